"""A non-streamed chat completion through the tool loop: each hop's answer read, one answer assembled.

The client sees one completion (COMPAT E1, E7): the first hop's ``id`` and ``created``, the text of
every hop, only its own tool calls, a finish reason that never says ``tool_calls`` without calls, and
usage summed over the hops. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .base import Call, Turn, add_usage, assistant_answer


class ChatAnswers:
    def __init__(self, hidden: frozenset[str]) -> None:
        self.hidden = hidden
        self._first: tuple[Any, Any] | None = None  # id and created of the first hop
        self._usage: dict[str, Any] | None = None
        self._contents: list[str] = []
        self._completion: dict[str, Any] = {}
        self._theirs: list[dict[str, Any]] = []

    def read(self, body: bytes) -> Turn | None:
        completion = _completion(body)
        if completion is None:
            return None
        if self._first is None:
            self._first = (completion.get("id"), completion.get("created"))
        self._completion = completion
        choice = completion["choices"][0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        self._usage = add_usage(self._usage, completion.get("usage"))
        mine, self._theirs = split_calls(message, self.hidden)
        if isinstance(message.get("content"), str) and message["content"]:
            self._contents.append(message["content"])
        order = [
            call["id"]
            for call in message.get("tool_calls") or ()
            if isinstance(call, dict) and isinstance(call.get("id"), str)
        ]
        reason = choice.get("finish_reason")
        client = tuple(
            (call["id"], _call_name(call) or "")
            for call in self._theirs
            if isinstance(call, dict) and isinstance(call.get("id"), str)
        )
        return Turn(
            mine, order, len(self._theirs), reason, message.get("content"), cut=reason == "length", client_calls=client
        )

    response_id = None  # chat answers are never chained from
    chain_id = None
    rewrites = False
    called: tuple[tuple[str, str], ...] = ()
    brought: tuple[str, ...] = ()  # a chat answer never shows a tool the upstream ran (Dialect.hosted says it)

    def glance(self, body: bytes) -> None:
        """Nothing of a chat answer is the session's but its text (:func:`said`, read when needed)."""

    def result(self) -> bytes:
        completion = self._completion
        choice = completion["choices"][0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        choice["message"] = message
        if self._theirs:
            message["tool_calls"] = self._theirs
        else:
            message.pop("tool_calls", None)
        message["content"] = "".join(self._contents) if self._contents else message.get("content")
        choice["finish_reason"] = visible_reason(choice.get("finish_reason"), len(self._theirs))
        if self._first is not None:
            completion["id"], completion["created"] = self._first
        if self._usage is not None:
            completion["usage"] = self._usage
        return orjson.dumps(completion)


def said(body: bytes) -> list[dict[str, Any]]:
    """A completion's first choice as the session keeps it: its text and tool calls (:func:`.base.assistant_answer`);
    nothing for anything else."""
    completion = _completion(body)
    message = completion["choices"][0].get("message") if completion is not None else None
    if not isinstance(message, dict):
        return []
    content, calls = message.get("content"), message.get("tool_calls")
    calls = [call for call in calls if isinstance(call, dict)] if isinstance(calls, list) else []
    return assistant_answer(content if isinstance(content, str) else None, calls)


def split_calls(message: Mapping[str, Any], hidden: frozenset[str]) -> tuple[list[Call], list[dict[str, Any]]]:
    """A completion message's tool calls: the memory ones (to run) and the client's (to return)."""
    mine: list[Call] = []
    theirs: list[dict[str, Any]] = []
    for call in message.get("tool_calls") or ():
        name = _call_name(call)
        if name in hidden and isinstance(call.get("id"), str):
            arguments = call["function"].get("arguments")
            text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
            mine.append(Call(call["id"], name, text))
        else:
            theirs.append(call)
    return mine, theirs


def visible_reason(reason: str | None, client_calls: int) -> str | None:
    """The finish reason the client gets once memory calls are taken out: never ``tool_calls`` with no calls."""
    if reason in ("tool_calls", "function_call") and not client_calls:
        return "stop"
    return reason


def _completion(body: bytes) -> dict[str, Any] | None:
    """A completion with a first choice, or None for anything else."""
    try:
        completion = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(completion, dict):
        return None
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return completion


def _call_name(call: Any) -> str | None:
    if not isinstance(call, dict) or call.get("type", "function") != "function":
        return None
    function = call.get("function")
    return function.get("name") if isinstance(function, dict) else None
