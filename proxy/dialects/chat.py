"""OpenAI Chat Completions, the first dialect: where memory goes in ``messages``, how tools and calls are shaped.

Which requests get the memory tools follows what clients rely on (COMPAT E, H): ``tool_choice: none``
and requests the loop cannot carry faithfully (``n > 1``, audio, logprobs, predicted outputs, legacy
``functions``) get no tools; ``tool_choice`` without ``tools`` is the upstream's error to give, so it
stays untouched; a client tool of the same name wins; past 128 tools nothing is added. A forced or
``required`` ``tool_choice`` and an ``allowed_tools`` list are left as the client sent them: the tools
are still added so that every request of a session offers the same tools and the provider's prompt
cache keeps its prefix. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import client_json
from ..context.edits import ContextEdits
from ..errors import InvalidRequest, ProxyError
from ..memory.block import INSTRUCTION_ROLES
from .base import Call, HiddenStep, Kept, ParsedRequest, Placement, ToolPlan, ToolSpec, asks_for_json, call_message
from .chat_answer import ChatAnswers, said, visible_reason
from .chat_stream import ChunkNormaliser
from .views import View

MAX_TOOLS = 128  # OpenAI rejects more (`array_above_max_length`, COMPAT E6)


def plan_tools(payload: Mapping[str, Any], specs: Sequence[ToolSpec]) -> ToolPlan | None:
    """The memory tools this request gets, or None when adding them would change what the client asked for."""
    tools = payload.get("tools")
    if tools is not None and not isinstance(tools, list):
        return None  # the upstream's to reject
    if not tools and ("tool_choice" in payload or "parallel_tool_calls" in payload):
        return None  # COMPAT H1: without tools these are an error the client should keep getting
    if payload.get("tool_choice") == "none":
        return None  # COMPAT H2
    if "functions" in payload or "function_call" in payload or "prediction" in payload:
        return None  # legacy functions cannot mix with tools; predictions with tools are unsupported (H8)
    n = payload.get("n")
    modalities = payload.get("modalities")
    if (
        (isinstance(n, int) and n > 1)
        or payload.get("logprobs")
        or (isinstance(modalities, list) and "audio" in modalities)
    ):
        return None  # COMPAT H9: the loop would have to carry every choice, token logprob or audio part
    taken = {name for name in map(_tool_name, tools or ()) if name is not None}
    offered = tuple(spec for spec in specs if spec.name not in taken)
    if not offered or len(tools or ()) + len(offered) > MAX_TOOLS:
        return None
    return ToolPlan(frozenset(spec.name for spec in offered), offered)


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    """No ``description`` key when the spec has none: every request pays for each token of it."""
    function: dict[str, Any] = {"name": spec.name}
    if spec.description:
        function["description"] = spec.description
    function["parameters"] = spec.parameters
    return {"type": "function", "function": function}


def offer(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    return {**payload, "tools": [*(payload.get("tools") or ()), *map(tool_schema, plan.specs)]}


def withdraw(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    """The last call of a loop: the client's own tools only, so the model has to answer."""
    tools = [tool for tool in payload.get("tools") or () if _tool_name(tool) not in plan.names]
    if tools:
        return {**payload, "tools": tools}
    return {key: value for key, value in payload.items() if key != "tools"}


def assistant_turn(content: Any, calls: Sequence[Call]) -> dict[str, Any]:
    """The model's turn as the next upstream call sees it: its text and its memory calls.

    ``content`` as the upstream sent it, or ``""`` when it sent none: OpenAI accepts ``null`` beside tool calls, but
    llama-cpp-python's server answers it with a 500 (issue 14, item 9).
    """
    text = "" if content is None else content
    return {"role": "assistant", "content": text, "tool_calls": [call_message(call) for call in calls]}


def tool_result(call: Call, result: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": result}


def _tool_name(tool: Any) -> str | None:
    """A client tool's name; None for anything that is not a tool with a string name (the upstream's to reject)."""
    if not isinstance(tool, dict):
        return None
    kind = tool.get("type", "function")
    spec = tool.get(kind) if isinstance(kind, str) else None
    name = spec.get("name") if isinstance(spec, dict) else None
    return name if isinstance(name, str) else None


def parse_chat_request(body: bytes) -> ParsedRequest:
    """Check what the proxy relies on; everything else is the upstream's to judge."""
    payload = client_json.load_object(body)  # nested deeper than the proxy can write back: a 400, not a 500 later
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise InvalidRequest("'messages' must be a list of messages", param="messages")
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise InvalidRequest(
                f"messages[{position}] must be an object with a string 'role'", param=f"messages[{position}]"
            )
    stream = payload.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("'stream' must be a boolean", param="stream")
    options = payload.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    return ParsedRequest(body=body, payload=payload, stream=bool(stream), include_usage=include_usage)


@dataclass(frozen=True, slots=True)
class Insert:
    """A message to add before the client's message at ``before`` (``len(messages)``: at the end)."""

    before: int
    message: dict[str, Any]


def block_position(messages: Sequence[dict[str, Any]]) -> tuple[int, str]:
    """Right after the leading system/developer messages, in the role they use (COMPAT G1)."""
    position, role = 0, "system"
    for message in messages:
        if message.get("role") not in INSTRUCTION_ROLES:
            break
        position, role = position + 1, message["role"]
    return position, role


def insert(payload: dict[str, Any], inserts: Sequence[Insert]) -> dict[str, Any]:
    """A new body with ``inserts`` placed among the client's messages; the same body when there are none."""
    if not inserts:
        return payload
    messages = payload["messages"]
    ordered = sorted(inserts, key=lambda insert: insert.before)
    merged: list[Any] = []
    start = 0
    for item in ordered:
        merged += messages[start : item.before]
        merged.append(item.message)
        start = item.before
    merged += messages[start:]
    return {**payload, "messages": merged}


def inject(payload: dict[str, Any], placement: Placement) -> dict[str, Any]:
    """The block after the leading instructions, each note before its user message, in the instructions' role.

    The client's messages are never edited or reordered: memory travels in messages of its own.
    """
    if placement.empty:
        return payload
    messages = payload["messages"]
    position, role = block_position(messages)
    inserts = [Insert(position, {"role": role, "content": placement.block})] if placement.block is not None else []
    inserts += [Insert(before, {"role": role, "content": text}) for before, text in placement.notes]
    return insert(payload, inserts)


def next_payload(payload: dict[str, Any], steps: Sequence[HiddenStep]) -> dict[str, Any]:
    """The request again, with every hidden turn so far and its results after the client's messages."""
    added: list[dict[str, Any]] = []
    for step in steps:
        added.append(assistant_turn(step.content, step.calls))
        added += [tool_result(call, result) for call, result in zip(step.calls, step.results, strict=True)]
    return {**payload, "messages": [*payload["messages"], *added]}


def rewrite_context(payload: dict[str, Any], edits: ContextEdits) -> dict[str, Any]:
    """Offloaded results replaced in place; a cut's dropped turns replaced by the overview, a message in the
    instructions' role right after them (and after the instructions the dropped turns held)."""
    if edits.empty:
        return payload
    messages = [
        {**message, "content": edits.replacements[index]} if index in edits.replacements else message
        for index, message in enumerate(payload["messages"])
    ]
    if edits.cut > 0 and edits.overview is not None:
        lead, role = block_position(messages)
        instructions = [m for m in messages[lead : edits.cut] if m.get("role") in INSTRUCTION_ROLES]
        overview = {"role": role, "content": edits.overview}
        messages = [*messages[:lead], *instructions, overview, *messages[edits.cut :]]
    return {**payload, "messages": messages}


class ChatDialect:
    """``/v1/chat/completions``."""

    name = "chat"
    echoes_tools = False

    @staticmethod
    def hosted(payload: dict[str, Any]) -> tuple[str, ...]:
        """A search model given ``web_search_options`` reads the web for its answer, and the answer shows no call."""
        return ("web_search",) if payload.get("web_search_options") is not None else ()

    @staticmethod
    def chained(payload: dict[str, Any]) -> str | None:
        return None  # every request carries the whole conversation

    @staticmethod
    def structured(payload: dict[str, Any]) -> bool:
        return asks_for_json(payload.get("response_format"))

    parse = staticmethod(parse_chat_request)
    inject = staticmethod(inject)
    plan_tools = staticmethod(plan_tools)
    offer = staticmethod(offer)
    withdraw = staticmethod(withdraw)
    next_payload = staticmethod(next_payload)
    visible_reason = staticmethod(visible_reason)

    rewrite_context = staticmethod(rewrite_context)

    @staticmethod
    def messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = payload["messages"]
        return messages

    @staticmethod
    def context_view(payload: dict[str, Any]) -> View:
        messages: list[dict[str, Any]] = payload["messages"]
        return View(messages, list(range(len(messages))))

    @staticmethod
    def answer(body: bytes) -> list[dict[str, Any]]:
        return said(body)

    @staticmethod
    def reader(hidden: frozenset[str], previous: str | None = None) -> ChatAnswers:
        return ChatAnswers(hidden)

    @staticmethod
    def splitter(*, include_usage: bool, hidden: frozenset[str], previous: str | None = None) -> ChunkNormaliser:
        return ChunkNormaliser(include_usage=include_usage, hidden=hidden)

    @staticmethod
    def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
        from .chat_restore import restore  # it builds on this module's message shapes

        return restore(payload, kept)

    @staticmethod
    def error_body(error: ProxyError) -> bytes:
        return error.body()


CHAT = ChatDialect()
