"""Tiny scripted models for `FakeUpstream.respond_with`: the ones ``python -m proxy.testing`` runs for the
benchmark, and the helpers tests use to recognise and answer memproxy's episode extraction call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from .replies import DEFAULT_CONTENT, Reply, ToolCall, loads_or_none

Responder = Callable[[dict[str, Any]], Reply]


def memory_hop_responder() -> Responder:
    """A tiny model that makes one memory hop: what ``python -m proxy.testing --memory-hop`` answers with.

    A request whose last message is a tool result gets an answer naming the number of memories the search
    returned; one that offers ``memory_search`` gets the call ``memory_search {"query": <the newest user
    message>}``; anything else the default answer. Every reply carries the counts so far in the headers
    ``x-fake-memory-calls`` (calls made) and ``x-fake-tool-results`` (results received), for the benchmark.
    """
    calls = results = 0

    def respond(body: dict[str, Any]) -> Reply:
        nonlocal calls, results
        messages = [m for m in body.get("messages") or () if isinstance(m, dict)]
        tools = [t.get("function") for t in body.get("tools") or () if isinstance(t, dict)]
        if messages and messages[-1].get("role") == "tool":
            results += 1
            content = messages[-1].get("content")
            found = loads_or_none(content.encode()) if isinstance(content, str) else None
            count = found.get("count") if isinstance(found, dict) else None
            reply = Reply(f"{DEFAULT_CONTENT} memory_search returned {count} memories.")
        elif any(isinstance(tool, dict) and tool.get("name") == "memory_search" for tool in tools):
            calls += 1
            users = [m.get("content") for m in messages if m.get("role") == "user"]
            reply = Reply(None, [ToolCall("memory_search", {"query": users[-1] if users else ""})])
        else:
            reply = Reply()
        reply.headers = {"x-fake-memory-calls": str(calls), "x-fake-tool-results": str(results)}
        return reply

    return respond


def is_extraction(body: dict[str, Any]) -> bool:
    """Whether a request is memproxy's episode extraction call (it asks for a JSON object)."""
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_object"


def extraction_reply(summary: str, facts: list[str] | tuple[str, ...] = ()) -> Reply:
    """The answer an extraction call wants: ``{"summary", "facts"}`` as the message content."""
    return Reply(orjson.dumps({"summary": summary, "facts": list(facts)}).decode())


def extraction_responder() -> Responder:
    """Answers extraction calls from the transcript itself (a summary and one fact per user line, at most five);
    anything else gets the default answer. What ``python -m proxy.testing --extraction`` runs, for the benchmark."""

    def respond(body: dict[str, Any]) -> Reply:
        if not is_extraction(body):
            return Reply()
        messages = body.get("messages") or [{}]
        transcript = messages[-1].get("content") if isinstance(messages[-1], dict) else ""
        said = [line[6:].strip() for line in str(transcript).splitlines() if line.startswith("user: ")]
        facts = [f"User said: {' '.join(line.split()[:25])}" for line in said[:5]]
        topic = " ".join(said[0].split()[:12]) if said else "nothing"
        return extraction_reply(f"A session of {len(said)} user turns about {topic}.", facts)

    return respond


def either(test: Callable[[dict[str, Any]], bool], when: Responder, otherwise: Responder) -> Responder:
    """`when` answers the requests `test` picks, `otherwise` the rest (``--memory-hop --extraction``: both at once)."""
    return lambda body: when(body) if test(body) else otherwise(body)
