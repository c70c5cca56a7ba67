"""Who may manage what: an admin everything; a service key its own user and its end users; anyone else themself."""

from __future__ import annotations

from ..errors import AdminOnly
from ..memory.caller import Identity
from ..memory.census import EVERYONE, UserScope

SERVICE_PREFIX = "svc:"  # how a service key's end users are stored: svc:<key id>:<name>


def require_admin(caller: Identity, what: str) -> None:
    """403 unless the caller is an admin: in auth.mode keys an admin key, in open mode memory.admin_key sent as
    X-Memory-Admin-Key."""
    if not caller.admin:
        how = "an admin key" if caller.key_kind is not None else "the admin key (X-Memory-Admin-Key)"
        raise AdminOnly(f"{what} needs {how}")


def scope_of(caller: Identity, service_user: str | None = None) -> UserScope:
    """The users whose counts ``caller`` may see. ``service_user``: a service key's own user (its requests that name
    no end user act for it)."""
    if caller.admin:
        return EVERYONE
    if caller.key_kind == "service" and caller.key_id is not None:
        own = frozenset({service_user}) if service_user is not None else frozenset()
        return UserScope(users=own, prefix=service_prefix(caller.key_id))
    return UserScope(users=frozenset({caller.user}))


def service_prefix(key_id: str) -> str:
    return f"{SERVICE_PREFIX}{key_id}:"


def name_for(caller: Identity, user: str) -> str:
    """``user`` as the caller names it in X-Memory-User: a service key its end users by their own names."""
    if not caller.admin and caller.key_kind == "service" and caller.key_id is not None:
        return user.removeprefix(service_prefix(caller.key_id))
    return user
