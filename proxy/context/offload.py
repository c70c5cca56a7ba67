"""Tool-output offload: which tool results leave the request, and the placeholder that takes their place.

A tool result is offloaded when it is longer than ``context.offload_chars`` and belongs to an earlier turn: one
the model has answered since (an assistant message follows it). The newest turn's results, those after the
last assistant message, always reach the model whole, so it reads what it just asked for. The proxy's own
memory tools' results stay (a page of a detail offloaded again would go round in circles). The placeholder
depends only on the detail's id, the call and the length, so the same output always yields the same bytes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

DESCRIPTION_CHARS = 120


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool result to offload: where it is in the view, the call that asked for it, and its text."""

    index: int
    tool: str  # "" when the call is not in the conversation
    arguments: str
    content: str


def tool_text(content: Any) -> str | None:
    """A result's text: a string, or parts that are all text (joined by newlines); None for anything else
    (images, files), which stays as it is."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        texts = [part.get("text") if isinstance(part, dict) else None for part in content]
        if all(isinstance(text, str) for text in texts):
            return "\n".join(text for text in texts if isinstance(text, str))
    return None


def newest_turn(messages: Sequence[dict[str, Any]]) -> int:
    """Where the newest turn starts: right after the last assistant message (0 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "assistant":
            return index + 1
    return 0


def calls_by_id(messages: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Every tool call in the view: its id -> (tool name, arguments)."""
    calls: dict[str, tuple[str, str]] = {}
    for message in messages:
        for call in tool_calls(message):
            if not isinstance(call.get("id"), str):
                continue
            spec = call.get("function") or call.get("custom") or {}
            name = spec.get("name") if isinstance(spec, dict) else None
            arguments = spec.get("arguments", spec.get("input", "")) if isinstance(spec, dict) else ""
            calls[call["id"]] = (name if isinstance(name, str) else "", arguments if isinstance(arguments, str) else "")
    return calls


def tool_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's tool calls; whatever else a client put there is not one (the upstream's to refuse)."""
    calls = message.get("tool_calls")
    return [call for call in calls if isinstance(call, dict)] if isinstance(calls, list) else []


def offloadable(messages: Sequence[dict[str, Any]], threshold: int, *, keep: Collection[str] = ()) -> list[ToolOutput]:
    """The earlier turns' tool results longer than ``threshold``; results of tools named in ``keep`` stay."""
    calls = calls_by_id(messages)
    found = []
    for index in range(newest_turn(messages)):
        message = messages[index]
        if message.get("role") != "tool":
            continue
        text = tool_text(message.get("content"))
        if text is None or len(text) <= threshold:
            continue
        call_id = message.get("tool_call_id")
        tool, arguments = calls.get(call_id, ("", "")) if isinstance(call_id, str) else ("", "")
        if tool in keep:
            continue
        found.append(ToolOutput(index, tool, arguments, text))
    return found


def describe(tool: str, arguments: str) -> str:
    """One line: the tool and its arguments, cut to ``DESCRIPTION_CHARS``."""
    line = " ".join(f"{tool or 'tool output'} {arguments}".split())
    line = line.replace("]", ")").replace("[", "(")  # the placeholder's own brackets stay unambiguous
    return line if len(line) <= DESCRIPTION_CHARS else line[: DESCRIPTION_CHARS - 1] + "…"


def placeholder(ref: str, description: str, chars: int) -> str:
    return f"[MemoryRef: {ref} - {description}] ({chars} chars; memory_retrieve reads it)"
