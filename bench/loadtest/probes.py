"""Before anything is measured: one request per target and case at concurrency 1, checked for shape, and for
memproxy in front of the ``--memory-hop`` fake, checked to make exactly one memory hop; memproxy-keys must also
refuse a request without its key and find its key's user's memories, memproxy-pg find its user's memories."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import urllib.error
import urllib.request
from typing import Any

import httptools

from .cases import API_KEY, CHAT_BODY, HOP_CASES, Case
from .connection import HttpConnection, build_request
from .servers import Server
from .targets import LITELLM, MEMPROXY, MEMPROXY_KEYS, MEMPROXY_PG, Target


async def probe(server: Server, stream: bool, timeout_s: float, api: str = "chat") -> tuple[str | None, str]:
    """One request in ``api``'s format, checked for shape: returns (problem or None, the reply's text)."""
    host, port, data = build_request(server.base_url, stream, server.client_key, api=api)
    try:
        conn = await HttpConnection.open(host, port, timeout_s=5.0, keep_body=True)
        try:
            async with asyncio.timeout(timeout_s):
                await conn.request(data)
        finally:
            conn.close()
    except (OSError, TimeoutError, httptools.HttpParserError) as exc:
        return f"request failed: {exc!r}", ""
    body = bytes(conn.body)
    if conn.status != 200:
        return f"HTTP {conn.status}: {body[:300]!r}", ""
    try:
        if not stream:
            return None, reply_text(api, json.loads(body))
        events = [line[5:].strip() for line in body.decode().splitlines() if line.startswith("data:")]
        if api != "chat":
            return stream_text(api, [json.loads(event) for event in events], body)
        if not events or events[-1] != "[DONE]":
            return f"stream does not end with data: [DONE]: {body[-200:]!r}", ""
        text = "".join(
            (choice.get("delta") or {}).get("content") or ""
            for event in events[:-1]
            for choice in json.loads(event).get("choices", [])
        )
        return None, text
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return f"unexpected body ({exc!r}): {body[:300]!r}", ""


def reply_text(api: str, reply: dict[str, Any]) -> str:
    """The text of a whole (non-streamed) reply in ``api``'s format."""
    if api == "responses":
        return "".join(
            part.get("text") or "" for item in reply["output"] if item["type"] == "message" for part in item["content"]
        )
    if api == "messages":
        return "".join(block.get("text") or "" for block in reply["content"] if block["type"] == "text")
    return reply["choices"][0]["message"]["content"] or ""


def stream_text(api: str, events: list[dict[str, Any]], body: bytes) -> tuple[str | None, str]:
    """(problem or None, the text) of a Responses or Messages stream's events: it must end with its last event."""
    last = "response.completed" if api == "responses" else "message_stop"
    if not events or events[-1].get("type") != last:
        return f"stream does not end with {last}: {body[-200:]!r}", ""
    if api == "responses":
        deltas = [e["delta"] for e in events if e.get("type") == "response.output_text.delta"]
    else:
        deltas = [
            e["delta"].get("text") or ""
            for e in events
            if e.get("type") == "content_block_delta" and e["delta"].get("type") == "text_delta"
        ]
    return None, "".join(deltas)


def fake_counters(upstream: Server) -> dict[str, int]:
    """The --memory-hop fake's counts so far, read off the headers of one plain request to it."""
    request = urllib.request.Request(
        f"{upstream.base_url}/chat/completions",
        data=json.dumps(CHAT_BODY).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as response:
        calls, results = response.headers["x-fake-memory-calls"], response.headers["x-fake-tool-results"]
    return {"memory_calls": int(calls), "tool_results": int(results)}


def keys_problem(server: Server, memories: int) -> str | None:
    """Why memproxy-keys is not what it is measured as -- memproxy in auth.mode: keys whose key's user holds the
    seeded memories -- or None: a request with the fake's key instead of a memproxy key must get 401, and (when
    ``memories`` were seeded) the memory API must list one for the key."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(CHAT_BODY).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
    )
    try:
        with opener.open(request, timeout=10) as response:
            return f"answered {response.status} to a request without a memproxy key: not in auth.mode: keys"
    except urllib.error.HTTPError as exc:
        if exc.code != 401:
            return f"answered {exc.code} to a request without a memproxy key, not 401"
    except OSError as exc:
        return f"request without a memproxy key failed: {exc!r}"
    return memories_problem(server, memories)


def memories_problem(server: Server, memories: int) -> str | None:
    """Why the memory API of a memproxy does not list a memory for its requests' user (when ``memories`` were
    seeded for it), or None."""
    if memories <= 0:
        return None
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/memory/memories?limit=1",
        headers={"Authorization": f"Bearer {server.client_key}"},
    )
    try:
        with opener.open(request, timeout=10) as response:
            count = json.loads(response.read())["count"]
    except (OSError, ValueError, KeyError) as exc:
        return f"GET /memory/memories failed: {exc!r}"
    return None if count else "its requests' user has no memories"


def hop_problem(hops: int, before: dict[str, int], after: dict[str, int], text: str) -> str | None:
    """Why one memproxy request to the --memory-hop fake did not make ``hops`` hops, or None."""
    made = {key: after[key] - before[key] for key in after}
    if made != {"memory_calls": hops, "tool_results": hops}:
        return f"the fake upstream expected {hops} memory_search call(s) and as many tool results, counted {made}"
    if re.search(r"memory_search returned \d+ memories", text) is None:
        return f"the answer does not come from the call after the tool result: {text!r}"
    return None


async def check_replies(targets: list[Target], cases: tuple[Case, ...], timeout_s: float, memories: int = 0) -> None:
    """Each target must answer one plain and one streaming request sensibly before it is measured, and
    memproxy in front of the --memory-hop fake must make exactly one memory hop for each of its two;
    memproxy-keys must be in keys mode, its key's user holding ``memories`` (when any)."""
    hop_upstream = targets[0].hop_server
    assert hop_upstream is not None
    for target in targets:
        for case in cases:
            server = target.server_for(case)
            if target.status != "ok" or server is None or case.concurrency != 1:
                continue
            before = fake_counters(hop_upstream) if case.hops and target.name == MEMPROXY else None
            problem, text = await probe(server, case.stream, timeout_s, case.api)
            if problem is None and before is not None:
                problem = hop_problem(case.hops, before, fake_counters(hop_upstream), text)
            if problem:
                target.status = "skipped" if target.name == LITELLM else "failed"
                target.reason = f"{case.name} probe: {problem}"
                print(f"{target.name}: {target.status}: {target.reason}", file=sys.stderr)
                break
            target.probe_replies[case.name] = text
        if target.name == MEMPROXY_KEYS and target.status == "ok":
            problem = keys_problem(target.server, memories)
            if problem is not None:
                target.status, target.reason = "failed", f"keys probe: {problem}"
                print(f"{target.name}: {target.status}: {target.reason}", file=sys.stderr)
        if target.name == MEMPROXY_PG and target.status == "ok":
            problem = memories_problem(target.server, memories)
            if problem is not None:
                target.status, target.reason = "failed", f"memories probe: {problem}"
                print(f"{target.name}: {target.status}: {target.reason}", file=sys.stderr)
    direct = targets[0].probe_replies
    for target in targets[1:]:
        for kind, text in target.probe_replies.items():
            if text != direct.get(kind) and not (target.name == MEMPROXY and kind in HOP_CASES):
                print(f"note: {target.name}'s {kind} reply differs from direct: {text!r}", file=sys.stderr)
