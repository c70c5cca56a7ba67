"""Does memory keep provider prompt caches hitting? A scripted 10-turn session through a real memproxy.

Providers cache the longest unchanged prefix of a request: the tool definitions, then the messages in
order. For each request of an agent-style session (a coding agent's system prompt and eight tools) this
reports how much of it equals the previous request's beginning, the part a provider can serve from its
cache, for three runs through the same proxy, in each of the three formats memproxy serves: chat completions
(``/v1/chat/completions``), OpenAI's Responses API (``/v1/responses``, the whole input resent every turn, no
``previous_response_id``; what is cached: tools, instructions, input items) and Anthropic's Messages API
(``/v1/messages``; tools, system, messages):

- no memory: the ceiling, what a conversation costs anyway as it grows;
- memproxy: the block frozen per session, later memories as notes placed before the newest message;
- the naive alternative: the block recomputed for every request (each request given its own session).

    python bench/prompt_cache.py

Targets, in every format: every request starts with the whole previous request (prefix kept: 100%), and
memproxy's cached share is at least 95%, or, where the session itself allows less, no lower than the no-memory
ceiling. Needs no key or network.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import orjson

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import Reply, run_fake_upstream
from proxy.testing.runner import serve_in_background

HERE = Path(__file__).resolve().parent
OURS, NAIVE = "memproxy (frozen block + notes)", "naive (block recomputed per request)"
SYSTEM = (
    "You are a senior software engineer pairing with the user inside their repository. You can read and edit "
    "files, run commands and tests, and open pull requests. Work in small, verified steps: explain what you "
    "are about to do in one sentence, do it, then check the result before moving on. Prefer the project's "
    "existing conventions over your own taste; when they are unclear, look at neighbouring code first. Never "
    "invent APIs: read the source or the documentation. Keep answers short and lead with code. When a command "
    "fails, read the whole error before changing anything. Ask before destructive operations (dropping data, "
    "force-pushing, deleting branches). Write tests for every behaviour change and run them. Summarise what "
    "changed at the end of each task, with the files touched and anything left undone."
)
TURNS = [
    "Let's start on the refund export. Which database should I point the script at while I test it?",
    "ok. what port does that one listen on again?",
    "Write the query that pulls last month's refunds by currency.",
    "How do we usually format SQL in this codebase?",
    "Now wrap it in a CLI command. Which Python version are we on?",
    "Add tests for it. Anything I should know about how we write tests?",
    "Run them in CI too. Which CI system runs the billing service?",
    "Who should review this PR?",
    "When is the next release train?",
    "Great, write the PR description.",
]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {arg: {"type": "string", "description": f"The {arg.replace('_', ' ')}."} for arg in args},
                "required": list(args[:1]),
            },
        },
    }
    for name, description, args in [
        (
            "read_file",
            "Read a file of the repository, optionally a range of lines.",
            ("path", "start_line", "end_line"),
        ),
        (
            "edit_file",
            "Replace an exact string in a file with another; fails if it is not unique.",
            ("path", "old", "new"),
        ),
        ("create_file", "Create a file with the given content; refuses to overwrite.", ("path", "content")),
        (
            "run_command",
            "Run a shell command in the repository and return its output and exit status.",
            ("command", "cwd"),
        ),
        ("search_code", "Search the repository for a regular expression; returns matching lines.", ("pattern", "glob")),
        ("list_directory", "List a directory of the repository, with sizes.", ("path", "depth")),
        ("run_tests", "Run the test suite or a subset and return the failures.", ("selector", "timeout_s")),
        ("open_pull_request", "Open a pull request from the current branch.", ("title", "body", "base")),
    ]
]
ANSWER = "Done. " + "Here is the change with a short explanation of each step and the commands I ran. " * 4


FORMATS = ("chat", "responses", "messages")
PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}
# The tools as each format declares them.
RESPONSES_TOOLS = [{"type": "function", **tool["function"]} for tool in TOOLS]
MESSAGES_TOOLS = [
    {"name": f["name"], "description": f["description"], "input_schema": f["parameters"]}
    for f in (tool["function"] for tool in TOOLS)
]


def request_body(api: str, turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The request an agent sends in ``api``'s format after ``turns`` (user and assistant text, alternating)."""
    if api == "responses":  # the whole input again, as a client without previous_response_id sends it
        return {"model": "fake-model", "instructions": SYSTEM, "input": turns, "tools": RESPONSES_TOOLS}
    if api == "messages":
        return {"model": "fake-model", "max_tokens": 1024, "system": SYSTEM, "messages": turns, "tools": MESSAGES_TOOLS}
    return {"model": "fake-model", "messages": [{"role": "system", "content": SYSTEM}, *turns], "tools": TOOLS}


def reply_text(api: str, reply: dict[str, Any]) -> str:
    if api == "responses":
        return "".join(
            part["text"] for item in reply["output"] if item["type"] == "message" for part in item["content"]
        )
    if api == "messages":
        return "".join(block["text"] for block in reply["content"] if block["type"] == "text")
    return str(reply["choices"][0]["message"]["content"])


def cached_text(api: str, body: dict[str, Any]) -> bytes:
    """What the provider tokenises, in its order (the tools, the system prompt, the turns), as bytes whose
    prefix grows with the conversation: the closing brackets are cut off."""
    if api == "responses":
        return orjson.dumps([body.get("tools"), body.get("instructions"), body["input"]])[:-2]
    if api == "messages":
        return orjson.dumps([body.get("tools"), body.get("system"), body["messages"]])[:-2]
    return orjson.dumps([body["tools"], body["messages"]])[:-2]


def run_session(url: str, user: str, fresh_session_each_request: bool, api: str) -> list[str]:
    """The scripted session in ``api``'s format; what memproxy injected into each request."""
    auth = {"x-api-key": "sk-bench"} if api == "messages" else {"Authorization": "Bearer sk-bench"}
    seen: list[str] = []
    turns: list[dict[str, Any]] = []
    with httpx.Client(base_url=url, headers={"X-Memory-User": user, **auth}, timeout=30, trust_env=False) as client:
        for n, question in enumerate(TURNS):
            turns.append({"role": "user", "content": question})
            headers = {"X-Memory-Session": f"{user}-{api}-{n}"} if fresh_session_each_request else {}
            response = client.post(PATHS[api], json=request_body(api, turns), headers=headers)
            response.raise_for_status()
            seen.append(response.headers.get("x-memproxy-injected", ""))
            turns.append({"role": "assistant", "content": reply_text(api, response.json())})
    return seen


def prefix_shares(requests: list[bytes]) -> list[tuple[float, float]]:
    """Per request after the first: (common prefix / this request, common prefix / previous request)."""
    out = []
    for previous, current in zip(requests, requests[1:], strict=False):
        common = 0
        for a, b in zip(previous, current, strict=False):
            if a != b:
                break
            common += 1
        out.append((common / len(current), common / len(previous)))
    return out


def main() -> int:
    memories = [json.loads(line) for line in (HERE / "retrieval" / "memories.jsonl").read_text().splitlines() if line]
    runs = (("no memory (the ceiling)", "nobody", False), (OURS, "bench", False), (NAIVE, "bench", True))
    results: dict[str, dict[str, tuple[list[tuple[float, float]], list[str], list[bytes]]]] = {}
    with tempfile.TemporaryDirectory() as data_dir, run_fake_upstream() as fake:
        fake.respond_with(lambda body: Reply(content=ANSWER))
        overrides = {
            "upstream.base_url": fake.base_url,
            "upstream.anthropic_base_url": fake.base_url,
            "store.path": data_dir,
        }
        settings = load_settings(overrides=overrides)
        with serve_in_background(create_app(build_services(settings)), name="memproxy") as root:
            for memory in memories:
                fields = {k: memory[k] for k in ("text", "tags", "category", "scope")}
                httpx.post(
                    f"{root}/memory/memories", json=fields, headers={"X-Memory-User": "bench"}
                ).raise_for_status()
            for api in FORMATS:
                results[api] = {}
                for label, user, fresh in runs:
                    start = len(fake.requests)
                    injected = run_session(f"{root}/v1", user, fresh, api)
                    bodies = [cached_text(api, r.json) for r in fake.requests[start:]]
                    results[api][label] = (prefix_shares(bodies), injected, bodies)

    for api in FORMATS:
        for label, (shares, injected, bodies) in results[api].items():
            print(f"\n{api}: {label}")
            print(f"{'turn':>4} {'bytes':>7} {'cached share':>13} {'prev kept':>10}  injected")
            print(f"{1:>4} {len(bodies[0]):>7} {'-':>13} {'-':>10}  {injected[0]}")
            for n, ((of_current, of_previous), ids) in enumerate(zip(shares, injected[1:], strict=True), 2):
                print(f"{n:>4} {len(bodies[n - 1]):>7} {of_current:>13.1%} {of_previous:>10.1%}  {ids}")
            mean = statistics.fmean(share for share, _ in shares)
            print(f"mean share of each request equal to the previous request's prefix: {mean:.1%}")

    print("\nmean cached share (min prefix kept), by format:")
    print(f"{'format':<10} " + " ".join(f"{label:>38}" for label, _, _ in runs))
    for api in FORMATS:
        cells = []
        for label, _, _ in runs:
            shares = results[api][label][0]
            mean, kept = statistics.fmean(s for s, _ in shares), min(k for _, k in shares)
            cells.append(f"{f'{mean:.1%} ({kept:.1%})':>38}")
        print(f"{api:<10} " + " ".join(cells))

    checks = []
    for api in FORMATS:
        ours = statistics.fmean(share for share, _ in results[api][OURS][0])
        ceiling = statistics.fmean(share for share, _ in results[api]["no memory (the ceiling)"][0])
        kept = min(kept for _, kept in results[api][OURS][0])
        checks += [
            (
                kept == 1.0,
                f"{api}: memproxy kept the whole previous request as the prefix of every request: min {kept:.1%}",
            ),
            (
                ours >= min(0.95, ceiling),
                f"{api}: memproxy cached share {ours:.1%} (target >= 95%; this session allows {ceiling:.1%} "
                "without memory)",
            ),
        ]
    print()
    for ok, text in checks:
        print(f"{'PASS' if ok else 'MISS'}  {text}")
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
