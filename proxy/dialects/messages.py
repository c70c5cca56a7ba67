"""Anthropic Messages (``/v1/messages``): its requests, its tools, and the loop's next hop.

Tools are Anthropic's shape, ``{"name", "description", "input_schema"}``. Which requests get them
follows chat's rules (COMPAT H): none with ``tool_choice: {"type": "none"}``, none when a
``tool_choice`` comes without tools (the upstream's error to give), a client tool of the same name wins
(server tools such as ``web_search_20250305`` carry a name too, and stay as they are); ``any`` and a
named tool are left as sent, as chat leaves ``required``.

The next hop (:func:`next_payload`) appends, per hidden turn, the assistant turn with the model's
content blocks exactly as it sent them (``thinking``/``redacted_thinking`` with their signatures, which
Anthropic checks, text, server tool blocks, the memory ``tool_use`` blocks), then a user turn of
``tool_result`` blocks, one per call. It needs the blocks from :attr:`Turn.state`; without them the turn
is rebuilt from its text and calls, which a model thinking with tools would refuse. The last hop
(:func:`withdraw`) drops the memory tools when the client's own remain; with none left it keeps them
and forbids tool use instead, since Anthropic refuses a conversation holding ``tool_use`` blocks
without a ``tools`` list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from .. import client_json
from ..errors import InvalidRequest
from .base import (
    HiddenStep,
    Kept,
    ParsedRequest,
    ToolPlan,
    ToolSpec,
    asks_for_json,
    assistant_answer,
    check_tools,
)
from .messages_answer import MessageAnswers, visible_reason
from .messages_errors import error_body
from .messages_input import chat_call, inject, rewrite_context, text_block, view
from .messages_memory import TYPE as MEMORY_TOOL
from .messages_restore import restore, tool_result, tool_use
from .messages_stream import MessageEvents

NO_TOOLS = {"type": "none"}


def parse_messages_request(body: bytes) -> ParsedRequest:
    """Check what the proxy relies on; everything else is the upstream's to judge."""
    payload = client_json.load_object(body)  # nested deeper than the proxy can write back: a 400, not a 500 later
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise InvalidRequest("'messages' must be a list of messages", param="messages")
    for position, message in enumerate(messages):
        if (
            not isinstance(message, dict)
            or not isinstance(message.get("role"), str)
            or not isinstance(message.get("content"), str | list)
        ):
            raise InvalidRequest(
                f"messages.{position} must be an object with a string 'role' and a string or list 'content'",
                param=f"messages.{position}",
            )
    system = payload.get("system")
    if system is not None and not (
        isinstance(system, str) or (isinstance(system, list) and all(isinstance(block, dict) for block in system))
    ):
        raise InvalidRequest("'system' must be a string or a list of text blocks", param="system")
    stream = payload.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("'stream' must be a boolean", param="stream")
    check_tools(payload, lambda i: f"tools.{i}", required="name")
    return ParsedRequest(body=body, payload=payload, stream=bool(stream), include_usage=True)


def messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """A read-only, chat-shaped view of the request (:mod:`proxy.dialects.messages_input`)."""
    return view(payload).messages


def plan_tools(payload: dict[str, Any], specs: Sequence[ToolSpec]) -> ToolPlan | None:
    tools = payload.get("tools")
    if tools is not None and not isinstance(tools, list):
        return None
    choice = payload.get("tool_choice")
    if choice is not None and (not tools or (isinstance(choice, dict) and choice.get("type") == "none")):
        return None
    taken = {tool.get("name") for tool in tools or () if isinstance(tool, dict)}
    offered = tuple(spec for spec in specs if spec.name not in taken)
    if not offered:
        return None
    return ToolPlan(frozenset(spec.name for spec in offered), offered)


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


def offer(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    return {**payload, "tools": [*(payload.get("tools") or ()), *map(tool_schema, plan.specs), *plan.native]}


def withdraw(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    """The last call of a loop: the model has to answer (see the module's docstring). The memory tool the proxy
    runs goes too, whether the client declared it or the proxy offered it."""
    tools = payload.get("tools") or []
    theirs = [tool for tool in tools if not _run_here(tool, plan)]
    if theirs:
        return {**payload, "tools": theirs}
    return {**payload, "tool_choice": NO_TOOLS}


def _run_here(tool: Any, plan: ToolPlan) -> bool:
    """A tool of the request whose calls the proxy runs: one of its function tools, or the memory tool."""
    return (
        isinstance(tool, dict)
        and ("type" not in tool or tool.get("type") == MEMORY_TOOL)
        and tool.get("name") in plan.names
    )


def next_payload(payload: dict[str, Any], steps: Sequence[HiddenStep]) -> dict[str, Any]:
    added: list[dict[str, Any]] = []
    for step in steps:
        added.append({"role": "assistant", "content": _turn_blocks(step)})
        added.append(
            {"role": "user", "content": [tool_result(c, r) for c, r in zip(step.calls, step.results, strict=True)]}
        )
    return {**payload, "messages": [*payload["messages"], *added]}


def _turn_blocks(step: HiddenStep) -> list[Any]:
    if isinstance(step.state, tuple):
        return [block for block in step.state if not _empty_text(block)]  # Anthropic refuses empty text blocks
    return [*([text_block(step.content)] if step.content else []), *map(tool_use, step.calls)]


def _empty_text(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "text" and not block.get("text")


class MessagesDialect:
    """``/v1/messages``."""

    name = "messages"
    echoes_tools = False

    @staticmethod
    def hosted(payload: dict[str, Any]) -> tuple[str, ...]:
        return ()  # its answers show the calls of the tools the upstream runs (their splitter's `brought`)

    @staticmethod
    def chained(payload: dict[str, Any]) -> str | None:
        return None  # every request carries the whole conversation

    @staticmethod
    def structured(payload: dict[str, Any]) -> bool:
        """``output_config.format``, or the beta's ``output_format`` before it."""
        config = payload.get("output_config")
        return asks_for_json(config.get("format") if isinstance(config, dict) else None) or asks_for_json(
            payload.get("output_format")
        )

    @staticmethod
    def answer(body: bytes) -> list[dict[str, Any]]:
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            return []
        content = message.get("content") if isinstance(message, dict) else None
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        return assistant_answer("".join(texts), [call for call in map(chat_call, blocks) if call is not None])

    parse = staticmethod(parse_messages_request)
    messages = staticmethod(messages)
    inject = staticmethod(inject)
    plan_tools = staticmethod(plan_tools)
    offer = staticmethod(offer)
    withdraw = staticmethod(withdraw)
    next_payload = staticmethod(next_payload)
    visible_reason = staticmethod(visible_reason)
    error_body = staticmethod(error_body)
    rewrite_context = staticmethod(rewrite_context)
    context_view = staticmethod(view)

    @staticmethod
    def reader(hidden: frozenset[str], previous: str | None = None) -> MessageAnswers:
        return MessageAnswers(hidden)

    @staticmethod
    def splitter(*, include_usage: bool, hidden: frozenset[str], previous: str | None = None) -> MessageEvents:
        return MessageEvents(hidden=hidden)

    @staticmethod
    def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
        return restore(payload, kept)


MESSAGES = MessagesDialect()
