"""A Responses request's ``input`` as the rest of the proxy reads it, and where memory goes in it.

Recall, sessions and transcripts read every format as chat-shaped messages. :func:`view` gives them
``instructions`` as a leading system message and one message per item it knows: message items by role,
calls (``function_call``, ``custom_tool_call``, the built-in ``web_search_call`` ..., ``mcp_call`` as
``server__tool``) as assistant ``tool_calls`` so provenance sees every tool, their outputs as ``tool``
messages. Each view message remembers its item's position, so a note placed before the view's newest
user message lands before that item. Memory travels in ``developer`` message items of its own: the block
after the leading instruction items, notes before their user item (DESIGN "The memory block"). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from ..context.edits import ContextEdits
from ..memory.block import INSTRUCTION_ROLES, Placement
from .views import View


def input_items(payload: dict[str, Any]) -> list[Any]:
    """``input`` as a list: a string is one user message, no input none."""
    value = payload.get("input")
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return value if isinstance(value, list) else []


def item_kind(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind is None and isinstance(item.get("role"), str):
        return "message"  # an "easy" input message: role and content only
    return kind if isinstance(kind, str) else None


def view(payload: dict[str, Any]) -> View:
    messages: list[dict[str, Any]] = []
    positions: list[int] = []
    instructions = payload.get("instructions")
    if isinstance(instructions, str):
        messages.append({"role": "system", "content": instructions})
        positions.append(-1)
    elif isinstance(instructions, list):
        text = "\n".join(_text(item.get("content")) for item in instructions if item_kind(item) == "message")
        messages.append({"role": "system", "content": text})
        positions.append(-1)
    for position, item in enumerate(input_items(payload)):
        for message in _messages_of(item):
            messages.append(message)
            positions.append(position)
    return View(messages, positions)


def _messages_of(item: Any) -> list[dict[str, Any]]:
    kind = item_kind(item)
    if kind is None:
        return []
    if kind == "message":
        return [{"role": item.get("role"), "content": item.get("content")}]
    if kind.endswith("_call_output"):
        output = item.get("output")
        return [{"role": "tool", "tool_call_id": item.get("call_id"), "content": output}]
    if not kind.endswith("_call"):
        return []  # reasoning, item references, approvals: nothing recall or a transcript reads
    call_id = item.get("call_id") or item.get("id")
    if kind == "custom_tool_call":
        call = {"id": call_id, "type": "custom", "custom": {"name": item.get("name"), "input": item.get("input")}}
    else:
        call = {"id": call_id, "type": "function", "function": {"name": _call_name(kind, item)}}
        call["function"]["arguments"] = _arguments(item)
    messages = [{"role": "assistant", "content": None, "tool_calls": [call]}]
    if kind == "mcp_call" and item.get("output") is not None:  # an MCP call carries its own result
        messages.append({"role": "tool", "tool_call_id": call_id, "content": item.get("output")})
    return messages


def said(items: Iterable[Any]) -> list[dict[str, Any]]:
    """A response's output items as the session keeps them: chat-shaped, as :func:`view` reads the same items in a
    later request's input. Its calls keep their ids: a chained request's results name only those."""
    return [message for item in items for message in _messages_of(item)]


def call_names(items: Iterable[Any]) -> tuple[str, ...]:
    """The tools the items call, named as :func:`view` names them (built-in tools by kind, MCP as ``server__tool``)."""
    names: list[str] = []
    for item in items:
        for message in _messages_of(item):
            for call in message.get("tool_calls") or ():
                name = call.get("function", call.get("custom", {})).get("name")
                if isinstance(name, str) and name not in names:
                    names.append(name)
    return tuple(names)


def _call_name(kind: str, item: dict[str, Any]) -> Any:
    if kind == "function_call":
        return item.get("name")
    if kind == "mcp_call":
        return f"{item.get('server_label')}__{item.get('name')}"  # the MCP form provenance knows
    return kind.removesuffix("_call")  # built-in tools: web_search, file_search, computer, local_shell, ...


def _arguments(item: dict[str, Any]) -> str:
    for key in ("arguments", "action", "input", "queries"):
        value = item.get(key)
        if value is not None:
            return value if isinstance(value, str) else orjson.dumps(value).decode()
    return ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def developer(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "developer", "content": text}


def block_position(items: Sequence[Any]) -> int:
    """Right after the leading system/developer message items."""
    position = 0
    for item in items:
        if item_kind(item) != "message" or item.get("role") not in INSTRUCTION_ROLES:
            break
        position += 1
    return position


def inject(payload: dict[str, Any], placement: Placement) -> dict[str, Any]:
    """The block and notes as ``developer`` items; the client's items never edited or reordered.

    A string ``input`` becomes a list (its one user message) only when memory goes in.
    """
    if placement.empty:
        return payload
    items = input_items(payload)
    inserts: list[tuple[int, dict[str, Any]]] = []
    if placement.block is not None:
        inserts.append((block_position(items), developer(placement.block)))
    positions = view(payload).positions if placement.notes else []
    for before, text in placement.notes:
        if 0 <= before < len(positions) and positions[before] >= 0:
            inserts.append((positions[before], developer(text)))
    merged: list[Any] = []
    start = 0
    for before, item in sorted(inserts, key=lambda insert: insert[0]):
        merged += items[start:before]
        merged.append(item)
        start = before
    merged += items[start:]
    return {**payload, "input": merged}


def rewrite_context(payload: dict[str, Any], edits: ContextEdits) -> dict[str, Any]:
    """Offloaded outputs replaced in their ``*_call_output`` items; a cut's dropped items (reasoning and all)
    replaced by the overview, a ``developer`` item after the leading instruction items (and the instruction
    items the dropped turns held)."""
    if edits.empty:
        return payload
    positions = view(payload).positions
    items = list(input_items(payload))
    for index, text in edits.replacements.items():
        position = positions[index] if 0 <= index < len(positions) else -1
        kind = item_kind(items[position]) if position >= 0 else None
        if kind is not None and kind.endswith("_call_output"):
            items[position] = {**items[position], "output": text}
    if edits.cut > 0 and edits.overview is not None and positions[edits.cut] >= 0:
        cut, lead = positions[edits.cut], block_position(items)
        instructions = [
            item for item in items[lead:cut] if item_kind(item) == "message" and item.get("role") in INSTRUCTION_ROLES
        ]
        items = [*items[:lead], *instructions, developer(edits.overview), *items[cut:]]
    return {**payload, "input": items}
