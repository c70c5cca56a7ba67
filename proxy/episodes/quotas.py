"""Who a user's load counts against, and how much each holds: limits are per memproxy key, never one pool for all.

One key holder opening sessions past a global limit used to end everyone else's (and with them their state). Now
each key has its own share of live sessions and of the conversation bytes they keep, and past it only that key's
least recently seen sessions end; the global limits stay, as the process's memory bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sessions import Session


def key_of_user(user: str) -> str:
    """The memproxy key a user's work counts against: a service key's end users (``svc:<key id>:<name>``) are that
    key's; anyone else is their own (open mode's users, and a person, whose keys all name them)."""
    if user.startswith("svc:"):
        end = user.find(":", 4)
        return user[: end + 1] if end > 0 else user
    return user


@dataclass(slots=True)
class Usage:
    """Live sessions and the bytes of conversation they hold, per key and in all."""

    count: dict[str, int] = field(default_factory=dict)
    size: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def add(self, session: Session) -> None:
        key = key_of_user(session.user)
        self.count[key] = self.count.get(key, 0) + 1
        self.size[key] = self.size.get(key, 0) + session.size
        self.total += session.size

    def resize(self, session: Session, size: int) -> None:
        key = key_of_user(session.user)
        self.size[key] = self.size.get(key, 0) + size - session.size
        self.total += size - session.size
        session.size = size

    def remove(self, session: Session) -> None:
        key = key_of_user(session.user)
        left = self.count.get(key, 0) - 1
        if left > 0:
            self.count[key] = left
            self.size[key] -= session.size
        else:
            self.count.pop(key, None)
            self.size.pop(key, None)
        self.total -= session.size
