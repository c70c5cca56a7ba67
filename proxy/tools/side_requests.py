"""Side requests: a client's one-shot utility calls beside the conversation, which memory leaves alone.

Coding agents call their model for more than the conversation: Claude Code asks for a session title (structured
output, no tools of its own), compacts the conversation, suggests the next prompt, labels tool calls, probes its
quota; Codex titles its threads and compacts. Many of these resend the whole conversation with one more user message
(a fork of it), so read as turns they would count as the user's, land in history as the user's words, consume the
model's answers meant for the conversation and, offered the memory tools, store or search on a summary's behalf.

A side request is one that asks for structured output (the client parses the answer: Messages
``output_config.format``, Chat ``response_format``, Responses ``text.format``; unless ``sessions.side_structured``
is off), or whose leading instruction texts or newest user message have a text that starts like one of
``sessions.side_requests`` (known clients' utility prompts, documented in proxy/config.py). It goes upstream as the
client sent it: no memory tools, no block or notes, no session, no history. Not the block either: what such a call
makes the client keeps (a title, a summary that replaces the conversation), so recalled memories would be written into
it where forgetting them cannot reach, and its answer is no better for them. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..config import SessionsSettings
from ..dialects.base import Dialect

INSTRUCTION_ROLES = frozenset({"system", "developer"})
STRUCTURED = "structured output"
KNOWN = "a known client's utility call"


class SideRequests:
    def __init__(self, settings: SessionsSettings) -> None:
        self.structured = settings.side_structured
        joined = "|".join(f"(?:{pattern})" for pattern in settings.side_requests)
        self._known = re.compile(joined) if settings.side_requests else None

    def reason(self, dialect: Dialect, payload: dict[str, Any], messages: Sequence[dict[str, Any]]) -> str | None:
        """Why a request is a side request (``messages``: its chat-shaped view as sent), or None when it is part of
        the conversation."""
        if self.structured and dialect.structured(payload):
            return STRUCTURED
        if self._known is not None and any(self._known.match(text) for text in _texts(messages)):
            return KNOWN
        return None


def _texts(messages: Sequence[dict[str, Any]]) -> Iterator[str]:
    """The texts a utility call shows itself in: those of the leading instructions (its own system prompt) and of the
    newest user message (the prompt a fork of the conversation ends with, or a one-shot call's only message)."""
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in INSTRUCTION_ROLES:
            break
        yield from _parts(message.get("content"))
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            yield from _parts(message.get("content"))
            return


def _parts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]
