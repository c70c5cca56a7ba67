"""Tiny scripted models for `FakeUpstream.respond_with`: the ones ``python -m proxy.testing`` runs for the
benchmark, and the helpers tests use to recognise and answer memproxy's episode extraction and judgement calls."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import orjson

from .replies import DEFAULT_CONTENT, Reply, ToolCall, loads_or_none

Responder = Callable[[dict[str, Any]], Reply]
_JUDGED = re.compile(r"<existing>\n(.*?)\n</existing>\n<new>\n(.*?)\n</new>", re.S)


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
    """Whether a request is memproxy's episode extraction call, in any of the three formats it makes one in (Chat
    Completions or Responses asking for a JSON object; Anthropic Messages opening with the extraction prompt). A
    judgement call, which asks for JSON too, is not one: see :func:`is_judgement`."""
    if is_judgement(body):
        return False
    response_format = body.get("response_format")
    text = body.get("text")
    text_format = text.get("format") if isinstance(text, dict) else None
    wants_json = any(isinstance(f, dict) and f.get("type") == "json_object" for f in (response_format, text_format))
    system = body.get("system")
    return wants_json or (isinstance(system, str) and system.startswith(_extraction_opening()))


def is_judgement(body: dict[str, Any]) -> bool:
    """Whether a request is memproxy's judgement call: is a newly extracted fact the same as, an update of, or
    different from a stored memory? (Its first message, or its Messages ``system``, is the judgement prompt.)"""
    messages = chat_view(body)
    content = messages[0].get("content") if messages else None
    return isinstance(content, str) and content.startswith(_judgement_opening())


def judged(body: dict[str, Any]) -> tuple[str, str]:
    """The (new fact, existing memory) a judgement call asks about."""
    content = str(chat_view(body)[-1].get("content"))
    found = _JUDGED.search(content)
    return (found[2], found[1]) if found else ("", "")


def chat_view(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's messages, chat-shaped, whichever format it came in: Chat Completions' ``messages``, the Responses
    API's ``input`` items (after its ``instructions``), or Anthropic's ``system`` and ``messages``."""
    listed = body.get("messages") if "messages" in body else body.get("input")
    messages = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
    if isinstance(listed, str):
        messages = [{"role": "user", "content": listed}]
    leading = body.get("system", body.get("instructions"))
    if isinstance(leading, str):
        messages = [{"role": "system", "content": leading}, *messages]
    return messages


def judgement_reply(verdict: str) -> Reply:
    """The answer a judgement call wants: ``{"verdict": "same" | "update" | "different"}`` as the content."""
    return Reply(orjson.dumps({"verdict": verdict}).decode())


def extraction_reply(summary: str, facts: list[str] | tuple[str, ...] = ()) -> Reply:
    """The answer an extraction call wants: ``{"summary", "facts"}`` as the message content."""
    return Reply(orjson.dumps({"summary": summary, "facts": list(facts)}).decode())


def extraction_responder(judge: Callable[[str, str], str] | None = None) -> Responder:
    """Answers extraction calls from the transcript itself (a summary and one fact per user line, at most five),
    judgement calls with ``judge(new fact, existing memory)``'s verdict (by default ``different``: keep both), and
    anything else with the default answer. What ``python -m proxy.testing --extraction`` runs, for the benchmark."""

    def respond(body: dict[str, Any]) -> Reply:
        if is_judgement(body):
            return judgement_reply(judge(*judged(body)) if judge is not None else "different")
        if not is_extraction(body):
            return Reply()
        messages = chat_view(body) or [{}]
        transcript = messages[-1].get("content") if isinstance(messages[-1], dict) else ""
        said = [line[6:].strip() for line in str(transcript).splitlines() if line.startswith("user: ")]
        facts = [f"User said: {' '.join(line.split()[:25])}" for line in said[:5]]
        topic = " ".join(said[0].split()[:12]) if said else "nothing"
        return extraction_reply(f"A session of {len(said)} user turns about {topic}.", facts)

    return respond


def either(test: Callable[[dict[str, Any]], bool], when: Responder, otherwise: Responder) -> Responder:
    """`when` answers the requests `test` picks, `otherwise` the rest (``--memory-hop --extraction``: both at once)."""
    return lambda body: when(body) if test(body) else otherwise(body)


@functools.cache
def _extraction_opening() -> str:
    from ..episodes.transcript import EXTRACTION_PROMPT  # lazily: `import proxy.testing` stays light

    return EXTRACTION_PROMPT.splitlines()[0]


@functools.cache
def _judgement_opening() -> str:
    from ..episodes.judgement import JUDGEMENT_PROMPT  # lazily: `import proxy.testing` stays light

    return JUDGEMENT_PROMPT.splitlines()[0]
