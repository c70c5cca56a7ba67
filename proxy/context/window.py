"""The window, overview + recent N turns: which old turns leave the request, and the overview that stays.

Turns are counted by user messages. Past ``window_turns`` plus a step (a quarter of the window) the oldest
turns are dropped, a whole step at a time: between two trims the same turns are dropped, so the overview and
everything after it are the same bytes request after request and the provider's prompt cache keeps its
prefix; it breaks once per step. A cut always falls at the start of a turn, and never between a tool call
and its result. Instructions (system and developer messages) are never dropped. Each dropped turn leaves one
buffer line, ``HH:MM user: first words``, its time the one the proxy first saw it at (UTC).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .offload import tool_calls

INSTRUCTION_ROLES = frozenset({"system", "developer"})
FIRST_WORDS = 12
LINE_CHARS = 100


def step_of(window: int) -> int:
    return max(1, window // 4)


def turns_to_drop(turns: int, window: int) -> int:
    """How many of ``turns`` leave: none until ``window`` plus a step, then whole steps, keeping ``window`` or more."""
    step = step_of(window)
    if turns < window + step:
        return 0
    return (turns - window) // step * step


def turn_starts(messages: Sequence[dict[str, Any]], positions: Sequence[int]) -> list[int]:
    """View indices of the user messages that open a turn. A user message that shares its place with the tool
    results before it (Anthropic's user turn holding ``tool_result`` blocks and text) continues a tool step."""
    starts = []
    for index, message in enumerate(messages):
        if message.get("role") != "user":
            continue
        if index > 0 and positions[index] >= 0 and positions[index - 1] == positions[index]:
            continue
        starts.append(index)
    return starts


def pair_safe(messages: Sequence[dict[str, Any]], starts: Sequence[int], drop: int) -> int:
    """``drop``, or fewer turns when cutting there would keep a tool result whose call was dropped."""
    while drop > 0:
        cut = starts[drop]
        calls = [call.get("id") for message in messages[:cut] for call in tool_calls(message)]
        results = [m.get("tool_call_id") for m in messages[cut:] if m.get("role") == "tool"]
        dropped = {ident for ident in calls if isinstance(ident, str)}  # other ids: the upstream refuses them
        kept = {ident for ident in results if isinstance(ident, str)}
        if not dropped & kept:
            return drop
        drop -= 1
    return 0


def message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def first_words(text: str) -> str:
    words = text.split()
    line = " ".join(words[:FIRST_WORDS])
    if len(line) > LINE_CHARS:
        line = line[: LINE_CHARS - 1]
    return line + ("…" if line != " ".join(words) else "")


def buffer_line(ts: float, role: str, text: str) -> str:
    """One buffer line: ``HH:MM role: first words``."""
    return f"{time.strftime('%H:%M', time.gmtime(ts))} {role}: {first_words(text)}"


def overview(lines: Sequence[str]) -> str:
    return "\n".join(
        [
            f"[Earlier in this conversation: {len(lines)} turns left out to save context, one line each "
            "(UTC time, who, first words)]",
            *lines,
            'memory_search with source "history" recalls what was said in them.',
        ]
    )
