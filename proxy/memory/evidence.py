"""Why a memory or an episode is held, as a person can check it: the lines of its session's history around the
first call to (or result of) an untrusted tool. Pure: the caller hands in the session's lines.

History writes a client tool's call as an assistant line ``called NAME(ARGUMENTS)`` and its result as a tool line
``NAME: OUTPUT`` (:func:`proxy.episodes.transcript.spoken`). The excerpt is centred on the first such line naming
one of the held record's sources (without one, a call trimmed before history saw it, on the first line said once the
session was untrusted), and every line in it that names one is marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .history import CALLED, HistoryLine, snippet
from .records import format_ts

BEFORE = 3  # lines of the excerpt before the marked one...
AFTER = 3  # ...and after it
LINE_CHARS = 500  # of each line's text in the excerpt (the marked one: TOOL_LINE_CHARS)
TOOL_LINE_CHARS = 1000


@dataclass(frozen=True, slots=True)
class Cited:
    line: HistoryLine
    tool: bool  # the line calls or returns one of the untrusted tools

    def to_json(self) -> dict[str, Any]:
        line = self.line
        text = snippet(line.text, (), TOOL_LINE_CHARS if self.tool else LINE_CHARS)
        return {
            "session": line.session,
            "turn": line.turn,
            "role": line.role,
            "ts": format_ts(line.ts),
            "text": text,
            "tool": self.tool,
        }


def names_tool(line: HistoryLine, sources: Sequence[str]) -> bool:
    """The line calls one of ``sources`` (an assistant line) or is its result (a tool line)."""
    if line.role == "assistant":
        return any(line.text.startswith(f"{CALLED}{name}(") for name in sources)
    if line.role == "tool":
        return any(line.text.startswith(f"{name}: ") for name in sources)
    return False


def tainted_at(lines: Sequence[HistoryLine], sources: Sequence[str]) -> int | None:
    """The position of the first line that called or returned one of ``sources``, else of the first line said
    once the session was untrusted; None when there is neither."""
    first_untrusted = None
    for position, line in enumerate(lines):
        if names_tool(line, sources):
            return position
        if first_untrusted is None and line.untrusted:
            first_untrusted = position
    return first_untrusted


def excerpt(lines: Sequence[HistoryLine], sources: Sequence[str]) -> list[Cited]:
    """A few lines before and after where the session took in untrusted content, the tools' own lines marked; []
    when history holds nothing of it."""
    at = tainted_at(lines, sources)
    if at is None:
        return []
    start, end = max(0, at - BEFORE), min(len(lines), at + AFTER + 1)
    return [Cited(lines[position], names_tool(lines[position], sources)) for position in range(start, end)]
