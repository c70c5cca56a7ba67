"""A Responses request's ``input`` as the rest of the proxy reads it, and where memory goes in it.

Recall, sessions and transcripts read every format as chat-shaped messages. :func:`view` gives them ``instructions``
as a leading system message and one message per item it knows: message items by role, calls (``function_call``,
``custom_tool_call``, the built-in ``web_search_call`` ..., ``mcp_call`` as ``server__tool``) as assistant
``tool_calls`` so provenance sees every tool, their outputs as ``tool`` messages. An item whose content the proxy
cannot read or attribute to a call (an ``item_reference``, an encrypted ``compaction``, ``mcp_list_tools``, a type
it does not know) is an assistant message with no content that names it in ``outside``: provenance counts it as
outside content (:mod:`proxy.episodes.evidence`). Each view message remembers its item's position, so a note placed
before the view's newest user message lands before that item. Memory travels in ``developer`` message items of its
own: the block after the leading instruction items, notes before their user item (DESIGN "The memory block"). Pure.
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


# Items that are the client's, the model's or the user's own: nothing from outside is in them.
OWN_ITEMS = frozenset(
    {"message", "reasoning", "mcp_approval_request", "mcp_approval_response", "compaction_trigger", "additional_tools"}
)
RESULT_ITEMS = frozenset({"program_output", "tool_search_output"})  # results not named `*_call_output`


def item_kind(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind is None and isinstance(item.get("role"), str):
        return "message"  # an "easy" input message: role and content only
    if kind is None and isinstance(item.get("id"), str):
        return "item_reference"  # its type is optional: `{"id": ...}` names a stored item
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
    if kind.endswith("_call_output") or kind in RESULT_ITEMS:
        output = item.get("output", item.get("tools"))
        return [{"role": "tool", "tool_call_id": item.get("call_id"), "content": output}]
    if kind in OWN_ITEMS:
        return []  # reasoning, approvals: nothing recall or a transcript reads, nothing from outside
    if not kind.endswith("_call") and kind != "program":
        return [outside(kind, item)]
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


def outside(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    """An item the proxy cannot read or attribute to a call in sight, as provenance reads it."""
    name = f"{item.get('server_label')}__list_tools" if kind == "mcp_list_tools" else kind
    return {"role": "assistant", "content": None, "outside": [name]}


def said(items: Iterable[Any]) -> list[dict[str, Any]]:
    """A response's output items as the session keeps them: chat-shaped, as :func:`view` reads the same items in a
    later request's input. Its calls keep their ids: a chained request's results name only those."""
    return [message for item in items for message in _messages_of(item)]


def calls(items: Iterable[Any]) -> tuple[tuple[str, str], ...]:
    """The calls the items make, ``(call id, tool)``, named as :func:`view` names them (built-in tools by kind, MCP
    as ``server__tool``), and what they bring from outside, ``("", name)``: a request chaining from them holds only
    the calls' results, so provenance learns the calls here."""
    found: list[tuple[str, str]] = []
    for item in items:
        if item_kind(item) in OWN_ITEMS:  # most answers: a message, reasoning
            continue
        for message in _messages_of(item):
            for call in message.get("tool_calls") or ():
                name = call.get("function", call.get("custom", {})).get("name")
                call_id = call.get("id")
                if isinstance(name, str) and (pair := (call_id if isinstance(call_id, str) else "", name)) not in found:
                    found.append(pair)
            found += [("", name) for name in message.get("outside") or () if ("", name) not in found]
    return tuple(found)


# Output items the client acts on, or the model's own: everything else in an answer the upstream made by itself.
ANSWER_OWN = frozenset(
    {
        "message",
        "reasoning",
        "compaction",  # the model's compaction of the context it was given
        "function_call",
        "custom_tool_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_approval_request",
    }
)


def brought(items: Iterable[Any]) -> tuple[str, ...]:
    """What an answer's items brought in from outside: the tools the upstream ran itself (``web_search_call``,
    ``file_search_call``, ``code_interpreter_call``, ``mcp_call``, ``image_generation_call``, ...), the lists of
    tools an MCP server sent, and any item this proxy does not know, named as :func:`view` names them."""
    names: list[str] = []
    for item in items:
        kind = item_kind(item)
        if kind is None or kind in ANSWER_OWN:
            continue
        if kind.endswith("_call_output") or kind in RESULT_ITEMS:  # a result the upstream made itself
            names.append(kind)
            continue
        for message in _messages_of(item):
            for call in message.get("tool_calls") or ():
                names.append(str(call.get("function", call.get("custom", {})).get("name")))
            names += [str(name) for name in message.get("outside") or ()]
    return tuple(dict.fromkeys(names))


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
