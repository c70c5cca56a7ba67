"""Who is looking at the console: a sign-in (keys mode) or this machine's person (open mode), acting for whom.

Keys mode: a memproxy key is exchanged once for a random cookie; the store keeps the cookie's hash, the key's id and
whom the sign-in acts for (a user, a service's end user, a workspace). Every request looks the sign-in up and checks
its key against the key ring, which every process refreshes from the store four times a second: a revoked key's
sign-ins end within a second on every replica. The identity is worked out by the rule the management API uses
(:func:`acting_for` with ``management``): a personal key acts for its own user, a service key for its end users, an
admin key for anyone. Open mode: a sign-in without a key, on loopback only, acting for the user the person picks;
entering ``memory.admin_key`` makes it an admin's, as ``X-Memory-Admin-Key`` makes an API call one (the store keeps
a hash of that key, so the sign-in ends when the key is changed or removed).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, replace

from ..auth.identity import NO_USER, Authenticator, acting_for, checked_name, identify
from ..errors import InvalidRequest, ProxyError
from ..memory.caller import DEFAULT_WORKSPACE, Identity
from ..memory.console_sessions import ConsoleSession, ConsoleSessionStore, session_id
from ..memory.keys import KeyRecord
from .security import csrf_token

COOKIE = "memproxy_console"
OPEN_ADMIN = "open-admin:"  # an open-mode sign-in's key id once memory.admin_key was entered: this and the key's hash
_OPEN_ADMIN_CONTEXT = b"memproxy console open-mode admin v1"


@dataclass(frozen=True, slots=True)
class Viewer:
    """A signed-in request: its sign-in, the key behind it (None: open mode) and whose memory it shows (None: open
    mode before a user is picked)."""

    session: ConsoleSession
    cookie: str
    key: KeyRecord | None
    identity: Identity | None
    admin: bool = False  # an admin key, or open mode with memory.admin_key entered: the admin pages are theirs

    @property
    def csrf(self) -> str:
        return csrf_token(self.cookie)

    @property
    def picks_user(self) -> bool:
        """Whether the person may choose whom to act for: open mode's anyone, a service key's end users, an admin
        key's anyone."""
        return self.key is None or self.key.kind in ("service", "admin")

    @property
    def manager(self) -> Identity | None:
        """Who calls the services that manage the store (keys, users, forgetting, health): the identity acted for,
        or for an open-mode admin who picked no user yet, the admin alone (as the API's ``manager`` makes them)."""
        if self.identity is not None:
            return self.identity
        return Identity(NO_USER, self.session.workspace, admin=True) if self.admin else None


class SignIns:
    def __init__(self, store: ConsoleSessionStore, auth: Authenticator, ttl_s: float) -> None:
        self.store = store
        self.auth = auth
        self.ttl_s = ttl_s
        admin_key = auth.settings.memory.admin_key
        self.open_admin_key = admin_key if not auth.keys_mode and admin_key else None
        self._open_admin = _open_admin_id(self.open_admin_key) if self.open_admin_key is not None else None

    @property
    def keys_mode(self) -> bool:
        return self.auth.keys_mode

    async def sign_in(self, key: str) -> tuple[str, Viewer] | None:
        """A new sign-in for a valid key (its cookie and viewer), or None for a wrong, unknown or revoked one."""
        assert self.auth.keyring is not None
        record = self.auth.keyring.lookup(key.strip()) if key.strip() else None
        if record is None:
            return None
        return await self._start(record.id, None, record)

    async def open(self) -> tuple[str, Viewer]:
        """Open mode's sign-in, made on the first visit from this machine: no user picked yet."""
        return await self._start(None, None, None)

    async def _start(self, key_id: str | None, user: str | None, key: KeyRecord | None) -> tuple[str, Viewer]:
        cookie = secrets.token_urlsafe(32)
        now = time.time()
        session = ConsoleSession(session_id(cookie), key_id, user, DEFAULT_WORKSPACE, now, now + self.ttl_s)
        await self.store.put(session)
        return cookie, Viewer(session, cookie, key, self._identity(session, key))

    async def viewer(self, cookie: str | None) -> Viewer | None:
        """The sign-in a cookie stands for, while it lasts and its key is active; None otherwise (and an ended one is
        deleted, so its cookie never works again)."""
        if not cookie or len(cookie) > 128:
            return None
        session = await self.store.get(session_id(cookie))
        if session is None:
            return None
        key = None
        if self.keys_mode:
            assert self.auth.keyring is not None
            key = self.auth.keyring.active(session.key_id) if session.key_id is not None else None
            ended, admin = key is None, key is not None and key.kind == "admin"
        else:  # a key id: signed in when memproxy ran in keys mode, or an admin key changed or removed since
            ended = session.key_id is not None and session.key_id != self._open_admin
            admin = session.key_id is not None and session.key_id == self._open_admin
        if ended or not session.live(time.time()):
            await self.store.delete(session.id)
            return None
        return Viewer(session, cookie, key, self._identity(session, key, admin=admin), admin)

    async def elevate(self, viewer: Viewer, admin_key: str) -> Viewer | None:
        """Open mode: the sign-in becomes an admin's when ``admin_key`` is ``memory.admin_key``; None otherwise (and
        nothing changes)."""
        if self.open_admin_key is None or self._open_admin is None or viewer.key is not None:
            return None
        if not hmac.compare_digest(admin_key.encode("utf-8", "surrogateescape"), self.open_admin_key.encode()):
            return None
        session = replace(viewer.session, key_id=self._open_admin)
        await self.store.put(session)
        return Viewer(session, viewer.cookie, None, self._identity(session, None, admin=True), True)

    async def sign_out(self, viewer: Viewer) -> None:
        await self.store.delete(viewer.session.id)

    async def act_for(self, viewer: Viewer, user: str | None, workspace: str) -> Viewer:
        """Act for another user (open mode, a service's end user; '' or None: the key's own) or workspace, as far
        as the key may: a name the API would refuse is refused here (400), and nothing changes."""
        workspace = checked_name(workspace, "workspace") if workspace.strip() else DEFAULT_WORKSPACE
        user = user.strip() if user is not None and user.strip() else None
        if user is not None and not viewer.picks_user and (viewer.key is None or user != viewer.key.user):
            raise InvalidRequest("this key acts for its own user only", param="user")
        session = replace(viewer.session, user=user, workspace=workspace)
        identity = self._identity(session, viewer.key, admin=viewer.admin, strict=True)
        await self.store.put(session)
        return Viewer(session, viewer.cookie, viewer.key, identity, viewer.admin)

    def _identity(
        self, session: ConsoleSession, key: KeyRecord | None, *, admin: bool = False, strict: bool = False
    ) -> Identity | None:
        """Whom a sign-in acts for, by the management API's own rules; a choice the rules no longer allow falls back
        to the key's own user (or, in open mode, to none picked), unless ``strict`` (the person is choosing now)."""
        try:
            if key is not None:
                user = checked_name(session.user, "user") if session.user is not None else None
                return acting_for(key, user, session.workspace, management=True)
            if session.user is None:
                return None
            headers = [(b"x-memory-user", session.user.encode()), (b"x-memory-workspace", session.workspace.encode())]
            identity = identify(headers)
            return replace(identity, admin=True) if identity is not None and admin else identity
        except ProxyError:
            if strict:
                raise
            return acting_for(key, None, DEFAULT_WORKSPACE) if key is not None else None


def _open_admin_id(admin_key: str) -> str:
    """What an open-mode admin's sign-in keeps for ``memory.admin_key``: a keyed hash, never the key."""
    digest = hmac.new(admin_key.encode("utf-8", "surrogateescape"), _OPEN_ADMIN_CONTEXT, hashlib.sha256).hexdigest()
    return OPEN_ADMIN + digest
