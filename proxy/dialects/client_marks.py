"""What a conversation says, without what its client marks on it from one request to the next.

Clients resend the whole conversation on every turn, but not always in the same bytes. Claude Code moves its
prompt-cache breakpoint (``cache_control``) to the newest message on every turn, and a message it sent as a list of
one text block with the marker comes back next turn as a plain string; it opens ``system`` with an attribution line
whose hash may change per request; it puts ``<system-reminder>`` blocks in the user's turn. Codex sends its working
directory, shell and date (``<environment_context>``) and AGENTS.md as user items. Sessions, prefix checks, notes
and history compare what a conversation says, so they read it through :meth:`ClientMarks.said`: the chat-shaped view
(:meth:`~proxy.dialects.base.Dialect.messages`) with

- cache markers dropped (``cache_control`` on a message or on any part of its content),
- the client's own context dropped (a text part matching one of ``sessions.client_context`` in full); a user
  message made only of it is the client's instruction, ``system`` here: no user turn, no words of the user's,
- a content list left with one text part read as that text (``[{"type": "text", "text": t}]`` says ``t``).

Nothing else changes: one message per message, in order (recall places notes by index), tool calls, results and
what provenance reads kept as they are. Only what memory reads changes; what goes upstream is the client's. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

CACHE_MARKER = "cache_control"
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
CONTEXT_ROLES = frozenset({"user", "system", "developer"})  # where a client puts its own context


class ClientMarks:
    def __init__(self, context: Sequence[str] = ()) -> None:
        # One expression, anchored: a text that does not open like a pattern fails at its first characters.
        joined = "|".join(f"(?:{pattern})" for pattern in context)
        self._context = re.compile(f"(?:{joined})\\s*\\Z", re.DOTALL) if context else None

    def said(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The conversation as it says it (see the module's docstring); the input is left as it came."""
        return [self._message(message) if isinstance(message, dict) else message for message in messages]

    def context(self, text: str) -> bool:
        """Whether a text is the client's own context, not what the conversation says."""
        return self._context is not None and self._context.match(text) is not None

    def _message(self, message: dict[str, Any]) -> dict[str, Any]:
        content = message.get("content")
        role = message.get("role")
        if isinstance(content, list):
            said, role = self._parts(content, role)
        elif isinstance(content, str) and role == "user" and self.context(content):
            said, role = content, "system"
        else:
            said = content
        if said is content and role == message.get("role") and CACHE_MARKER not in message:
            return message  # most messages: nothing to take off
        cleared = {key: value for key, value in message.items() if key != CACHE_MARKER}
        cleared["content"] = said
        cleared["role"] = role
        return cleared

    def _parts(self, content: list[Any], role: Any) -> tuple[Any, Any]:
        """A content list without markers and the client's context; one text part left is its text."""
        kept: list[Any] = []
        dropped = changed = False
        for part in content:
            if not isinstance(part, dict):
                kept.append(part)
                continue
            text = part.get("text")
            if role in CONTEXT_ROLES and isinstance(text, str) and self.context(text):
                dropped = True
                continue
            if CACHE_MARKER in part:
                part = {key: value for key, value in part.items() if key != CACHE_MARKER}
                changed = True
            kept.append(part)
        if dropped and not kept:
            # Only the client's context: an instruction, not a user turn. What it says stays (a Codex conversation
            # opens with its directory: two in different directories are two sessions).
            return _without_markers(content), "system" if role == "user" else role
        if len(kept) == 1 and isinstance(kept[0], dict) and str(kept[0].get("type")) in TEXT_PARTS:
            text = kept[0].get("text")
            if isinstance(text, str):
                return text, role
        return (kept if dropped or changed else content), role


def _without_markers(content: list[Any]) -> list[Any]:
    return [
        {key: value for key, value in part.items() if key != CACHE_MARKER} if isinstance(part, dict) else part
        for part in content
    ]
