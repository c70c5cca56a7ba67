"""When the proxy first saw each turn of a session: the times of the overview's lines, stable between trims."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import orjson

MAX_SESSIONS = 10_000


class TurnClock:
    """Per session, a user message's digest -> the time it was first seen; the oldest sessions are forgotten
    past ``MAX_SESSIONS`` (their next overview dates the turns it still shows from then on)."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[tuple[str, ...], dict[bytes, float]] = OrderedDict()

    def times(self, key: tuple[str, ...], messages: list[dict[str, Any]], now: float) -> list[float]:
        """The first-seen time of each message (its own ``timestamp`` when it carries epoch seconds)."""
        seen = self._sessions.pop(key, None) or {}
        self._sessions[key] = seen
        while len(self._sessions) > self.max_sessions:
            self._sessions.popitem(last=False)
        found = []
        for ordinal, message in enumerate(messages):
            own = message.get("timestamp")
            if isinstance(own, int | float) and not isinstance(own, bool) and 0 < own < 1e11:
                found.append(float(own))
                continue
            digest = hashlib.blake2b(_encoded(ordinal, message.get("content")), digest_size=16).digest()
            found.append(seen.setdefault(digest, now))
        return found

    def forget(self, user: str, workspace: str) -> None:
        for key in [key for key in self._sessions if key[:2] == (user, workspace)]:
            del self._sessions[key]


def _encoded(ordinal: int, content: Any) -> bytes:
    try:
        return orjson.dumps([ordinal, content])
    except TypeError:  # an integer past 64 bits: still one stable text
        return repr([ordinal, content]).encode()
