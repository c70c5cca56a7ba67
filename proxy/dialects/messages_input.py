"""An Anthropic Messages request as the rest of the proxy reads it, and where memory goes in it.

:func:`view` gives recall, sessions and transcripts chat-shaped messages: ``system`` first, then per message its
text; an assistant's ``tool_use`` blocks (and server tools' ``server_tool_use``, MCP's ``mcp_tool_use`` as
``server__tool``) as ``tool_calls``, and in ``outside`` what provenance must count though no call in the message
explains it (a server tool's result without its call, a block this proxy does not know); a user turn's
``tool_result`` blocks as ``tool`` messages, then whatever else the turn says as the user's message. Memory goes
where Anthropic's rules allow it without touching the client's blocks (DESIGN "The memory block"): the block as an
extra text block at the end of ``system`` (a string system becomes a list of text blocks), each note as a text block
at the start of its user turn, after the ``tool_result`` blocks that must lead it. Pure.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..context.edits import ContextEdits
from ..memory.block import Placement
from .views import View


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def system_blocks(system: Any) -> list[Any]:
    if isinstance(system, str):
        return [text_block(system)] if system else []  # Anthropic refuses empty text blocks
    return list(system) if isinstance(system, list) else []


def view(payload: dict[str, Any]) -> View:
    messages: list[dict[str, Any]] = []
    positions: list[int] = []
    system = payload.get("system")
    if isinstance(system, str | list) and system:
        messages.append({"role": "system", "content": system})
        positions.append(-1)
    for position, message in enumerate(payload.get("messages") or ()):
        for viewed in _messages_of(message):
            messages.append(viewed)
            positions.append(position)
    return View(messages, positions)


def _messages_of(message: Any) -> list[dict[str, Any]]:
    if not isinstance(message, dict):
        return []
    role, content = message.get("role"), message.get("content")
    if not isinstance(content, list):
        return [{"role": role, "content": content}]
    blocks = [block for block in content if isinstance(block, dict)]
    if role == "assistant":
        texts = [block for block in blocks if block.get("type") == "text"]
        calls = [call for call in map(chat_call, blocks) if call is not None]
        said: dict[str, Any] = {"role": "assistant", "content": texts, **({"tool_calls": calls} if calls else {})}
        called = {call["id"] for call in calls}
        outside = [
            result_name(block.get("type"))
            for block in blocks
            if block.get("type") not in OWN_BLOCKS
            and chat_call(block) is None
            and block.get("tool_use_id") not in called
        ]
        return [{**said, "outside": outside} if outside else said]
    viewed = [
        {"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": block.get("content")}
        for block in blocks
        if block.get("type") == "tool_result"
    ]
    rest = [block for block in blocks if block.get("type") != "tool_result"]
    if rest or not viewed:
        viewed.append({"role": role, "content": rest})
    return viewed


# An assistant's blocks that are the model's own or the client's calls: nothing from outside is in them.
OWN_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use"})


def result_name(kind: Any) -> str:
    """The tool a server tool's result block names by its type (``web_fetch_tool_result``: ``web_fetch``), or the
    type of a block this proxy does not know."""
    return str(kind).removesuffix("_tool_result")


def brought(blocks: Any) -> tuple[str, ...]:
    """What an answer's blocks brought in from outside: the server tools the upstream ran (``server_tool_use``,
    the MCP connector's ``mcp_tool_use``), their results, and any block this proxy does not know."""
    names: list[str] = []
    for block in blocks:
        if not isinstance(block, dict) or str(block.get("type")) in OWN_BLOCKS:
            continue
        call = chat_call(block)
        names.append(str(call["function"]["name"]) if call is not None else result_name(block.get("type")))
    return tuple(dict.fromkeys(names))


def chat_call(block: dict[str, Any]) -> dict[str, Any] | None:
    """A call block (``tool_use``, a server tool's, an MCP tool's) as a chat-shaped tool call; None for others."""
    kind = block.get("type")
    if kind not in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return None
    name = block.get("name")
    if kind == "mcp_tool_use":
        name = f"{block.get('server_name')}__{name}"  # the MCP form provenance knows
    arguments = orjson.dumps(block.get("input", {})).decode()
    return {"id": block.get("id"), "type": "function", "function": {"name": name, "arguments": arguments}}


def with_notes(content: Any, notes: list[str]) -> list[Any]:
    """A user turn's content with notes first, after the ``tool_result`` blocks Anthropic wants leading."""
    blocks = list(content) if isinstance(content, list) else ([text_block(content)] if content else [])
    lead = 0
    while lead < len(blocks) and isinstance(blocks[lead], dict) and blocks[lead].get("type") == "tool_result":
        lead += 1
    return [*blocks[:lead], *map(text_block, notes), *blocks[lead:]]


def inject(payload: dict[str, Any], placement: Placement) -> dict[str, Any]:
    """A new body with the block at the end of ``system`` and each note in its user turn."""
    if placement.empty:
        return payload
    injected = dict(payload)
    if placement.block is not None:
        injected["system"] = [*system_blocks(payload.get("system")), text_block(placement.block)]
    notes: dict[int, list[str]] = {}
    positions = view(payload).positions
    for before, text in placement.notes:
        if 0 <= before < len(positions) and positions[before] >= 0:
            notes.setdefault(positions[before], []).append(text)
    if notes:
        messages = list(payload["messages"])
        for position, texts in notes.items():
            messages[position] = {**messages[position], "content": with_notes(messages[position].get("content"), texts)}
        injected["messages"] = messages
    return injected


def rewrite_context(payload: dict[str, Any], edits: ContextEdits) -> dict[str, Any]:
    """Offloaded outputs replaced in their ``tool_result`` blocks; a cut's dropped messages replaced by the
    overview, a text block at the end of ``system`` (the kept messages still open with a user turn)."""
    if edits.empty:
        return payload
    viewed = view(payload)
    messages = list(payload.get("messages") or ())
    for index, text in edits.replacements.items():
        position = viewed.positions[index] if 0 <= index < len(viewed.positions) else -1
        call_id = viewed.messages[index].get("tool_call_id") if position >= 0 else None
        message = messages[position] if position >= 0 else None
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        blocks = [
            {**block, "content": text}
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == call_id
            else block
            for block in message["content"]
        ]
        messages[position] = {**message, "content": blocks}
    rewritten = {**payload, "messages": messages}
    if edits.cut > 0 and edits.overview is not None and viewed.positions[edits.cut] >= 0:
        rewritten["messages"] = messages[viewed.positions[edits.cut] :]
        rewritten["system"] = [*system_blocks(payload.get("system")), text_block(edits.overview)]
    return rewritten
