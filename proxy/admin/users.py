"""The users a caller may see, each with their workspaces and counts. Pure: the counts come from the census,
the live sessions from this process's tracker, the keys from the key store."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..memory.census import Tally, UserScope, total
from ..memory.store import Owner


@dataclass(frozen=True, slots=True)
class WorkspaceSummary:
    workspace: str
    tally: Tally
    sessions: int  # live in this process

    def to_json(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "counts": {**self.tally.to_json(), "sessions": self.sessions}}


@dataclass(frozen=True, slots=True)
class UserSummary:
    user: str  # as the caller names it in X-Memory-User (a service key: its end user's own name)
    stored: str  # as the store names it (a service's end user: svc:<key id>:<name>)
    workspaces: tuple[WorkspaceSummary, ...]
    user_wide: Tally  # memories that follow the user across workspaces
    keys: int  # active memproxy keys of this user

    @property
    def tally(self) -> Tally:
        return total([self.user_wide, *(w.tally for w in self.workspaces)])

    @property
    def sessions(self) -> int:
        return sum(w.sessions for w in self.workspaces)

    def to_json(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "stored": self.stored,
            "counts": {**self.tally.to_json(), "sessions": self.sessions, "keys": self.keys},
            "workspaces": [w.to_json() for w in self.workspaces],
            "user_wide": self.user_wide.to_json(),
        }


def summarize(
    tallies: Mapping[Owner, Tally],
    sessions: Mapping[tuple[str, str], int],
    keys: Mapping[str, int],
    scope: UserScope,
    name: Callable[[str], str],
) -> list[UserSummary]:
    """Every user in ``scope`` with anything stored, a live session or a key, by name. ``sessions``: live sessions
    by (user, workspace); ``keys``: active keys by user; ``name``: how the caller names a stored user."""
    users: dict[str, dict[str | None, Tally]] = {}
    for owner, tally in tallies.items():
        if owner.user is not None and scope.covers(owner.user):
            users.setdefault(owner.user, {})[owner.workspace] = tally
    for user, workspace in sessions:
        if scope.covers(user):
            users.setdefault(user, {}).setdefault(workspace, Tally())
    for user in keys:
        if scope.covers(user):
            users.setdefault(user, {})
    found = []
    for user in sorted(users):
        places = users[user]
        workspaces = tuple(
            WorkspaceSummary(workspace, tally, sessions.get((user, workspace), 0))
            for workspace, tally in sorted(((w, t) for w, t in places.items() if w is not None), key=_first)
        )
        found.append(UserSummary(name(user), user, workspaces, places.get(None, Tally()), keys.get(user, 0)))
    return found


def _first(item: tuple[str, Tally]) -> str:
    return item[0]
