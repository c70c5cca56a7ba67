"""Whose memory a call is about: the one record every layer passes down, wherever the caller came from."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WORKSPACE = "default"


@dataclass(frozen=True, slots=True)
class Identity:
    user: str
    workspace: str = DEFAULT_WORKSPACE
    session: str | None = None  # X-Memory-Session; else derived from the conversation
    admin: bool = False  # may write global memories
    key_id: str | None = None  # auth.mode keys: the memproxy key that made the call (versions name it as the actor)
    key_kind: str | None = None  # personal | service | admin, with key_id
