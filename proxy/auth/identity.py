"""Who a request is for: user, workspace and session, from memproxy's key or, in open mode, its headers.

``auth.mode: open`` (one person on their own machine): the user is ``X-Memory-User``, else a hash of
the client's credential (never the credential itself); a request with neither gets no memory.
``auth.mode: keys`` (a shared deployment): the memproxy key decides the user. A personal key may not name
another user; a service key names its end users, namespaced under the key so that two services never share an
end user's memory. An admin key names any user (``X-Memory-User``, as stored: ``svc:<key id>:<name>`` for a
service's end user) on the management API only: its chat requests stay its own, since a model answering an
admin must not be given another user's memories, nor write into them, nor have extraction file the admin's
conversation under them. The upstream never sees a memproxy key.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass

from ..config import Settings
from ..errors import AdminOnly, InvalidApiKey, InvalidRequest, MissingIdentity, UserNotAllowed
from ..memory.caller import DEFAULT_WORKSPACE, Identity
from ..memory.keys import KeyRecord
from .keys import RESERVED_USER_PREFIXES, KeyRing, looks_like_key

USER_HEADER = b"x-memory-user"
WORKSPACE_HEADER = b"x-memory-workspace"
SESSION_HEADER = b"x-memory-session"
ADMIN_HEADER = b"x-memory-admin-key"
KEY_HEADER = b"x-memproxy-key"
MAX_NAME_CHARS = 200
NO_USER = ""  # an open-mode admin who named no user: manages the store, owns no memory (never a header's value)
RawHeaders = Iterable[tuple[bytes, bytes]]


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated request: whose memory, and what credential goes upstream."""

    identity: Identity | None
    upstream_key: str | None  # replaces the client's credential upstream; None: the client's own goes
    strip: frozenset[bytes]  # headers that carried memproxy's own key: never sent upstream
    client_key: str | None  # the client's own upstream credential (for extraction on its behalf), if any
    client_key_header: str = "authorization"  # where it came: "authorization" (a bearer token) or "x-api-key"


@dataclass(slots=True)
class _Headers:
    user: str | None = None
    workspace: str | None = None
    session: str | None = None
    authorization: bytes | None = None
    api_key: bytes | None = None
    memproxy_key: bytes | None = None
    admin: bytes | None = None


def read_headers(raw: RawHeaders) -> _Headers:
    found = _Headers()
    for name, value in raw:
        name = name.lower()
        if name == USER_HEADER:
            found.user = _name(value, "X-Memory-User")
        elif name == WORKSPACE_HEADER:
            found.workspace = _name(value, "X-Memory-Workspace")
        elif name == SESSION_HEADER:
            found.session = _name(value, "X-Memory-Session")
        elif name == b"authorization":
            found.authorization = value
        elif name == b"x-api-key":
            found.api_key = value.strip() or None
        elif name == KEY_HEADER:
            found.memproxy_key = value.strip() or None
        elif name == ADMIN_HEADER:
            found.admin = value
    return found


class Authenticator:
    def __init__(self, settings: Settings, keyring: KeyRing | None = None) -> None:
        self.settings = settings
        self.keyring = keyring
        self.keys_mode = settings.auth.mode == "keys"
        if self.keys_mode and keyring is None:
            raise ValueError("auth.mode: keys needs a key ring")

    def authenticate(self, raw: RawHeaders, *, management: bool = False) -> Caller:
        """The caller of a request; in keys mode a 401/403 before anything else happens. ``management``: a call
        of the management API, where an admin key may act for any user."""
        headers = read_headers(raw)
        if self.keys_mode:
            return self._by_key(headers, management=management)
        bearer, api_key, strip = _without_memproxy_keys(headers)
        client_key = bearer or api_key
        identity = _open_identity(headers, self.settings.memory.admin_key)
        upstream_key = self.settings.upstream.api_key
        return Caller(identity, upstream_key, strip, _text(client_key), _carrier(bearer))

    def require(self, raw: RawHeaders) -> Identity:
        """The caller's identity, for the management API: memory needs to know whose it is."""
        identity = self.authenticate(raw, management=True).identity
        if identity is None:
            raise MissingIdentity(
                "memproxy needs to know whose memories these are: send X-Memory-User or an Authorization bearer token"
            )
        return identity

    def manager(self, raw: RawHeaders) -> Identity:
        """The caller of a route that manages the store rather than someone's memory (keys, users, health): as
        :meth:`require`, except that in open mode the admin key alone will do, naming no user (``NO_USER``)."""
        headers = read_headers(raw)
        named = headers.user is not None or _bearer(headers.authorization) or headers.api_key
        if not self.keys_mode and not named and headers.admin is not None:
            admin_key = self.settings.memory.admin_key
            if admin_key is None or not hmac.compare_digest(headers.admin, admin_key.encode()):
                raise AdminOnly("X-Memory-Admin-Key is not this memproxy's memory.admin_key")
            return Identity(NO_USER, headers.workspace or DEFAULT_WORKSPACE, admin=True)
        return self.require(raw)

    def identity_of(self, raw: RawHeaders) -> Identity | None:
        """Who calls a route that forwards nothing (``/metrics``): any header may carry the memproxy key, whether or
        not an ``upstream.api_key`` is set."""
        headers = read_headers(raw)
        if self.keys_mode:
            return self._key_identity(headers)[0]
        return _open_identity(headers, self.settings.memory.admin_key)

    def _by_key(self, headers: _Headers, *, management: bool = False) -> Caller:
        identity, carrier = self._key_identity(headers, management=management)
        upstream_key = self.settings.upstream.api_key
        if carrier == KEY_HEADER:  # the client's own credential goes upstream, when it sent one
            # A memproxy key beside it (in Authorization or x-api-key) is never a provider key: it stays here.
            own_bearer, own_api_key, strip = _without_memproxy_keys(headers)
            client_key = _text(own_bearer or own_api_key)
            return Caller(
                identity,
                upstream_key if client_key is None else None,
                strip,
                client_key,
                _carrier(own_bearer),
            )
        if upstream_key is None:
            raise InvalidRequest(
                "this memproxy has no upstream.api_key, so your provider key must reach the upstream: send the "
                "memproxy key in X-Memproxy-Key and your provider key in Authorization",
                param="X-Memproxy-Key",
            )
        return Caller(identity, upstream_key, frozenset({KEY_HEADER, carrier}), None)

    def _key_identity(self, headers: _Headers, *, management: bool = False) -> tuple[Identity, bytes]:
        """The identity a memproxy key stands for, and the header it came in; a 401/403 when it stands for none."""
        assert self.keyring is not None
        bearer = _bearer(headers.authorization)
        presented: bytes | None
        if headers.memproxy_key is not None:
            presented, carrier = headers.memproxy_key, KEY_HEADER
        elif bearer is not None:
            presented, carrier = bearer, b"authorization"
        else:
            presented, carrier = headers.api_key, b"x-api-key"
        text = _text(presented)
        record = self.keyring.lookup(text) if text else None
        if record is None:
            raise InvalidApiKey(
                "a valid memproxy key is required: send it as Authorization: Bearer mp-..., x-api-key or X-Memproxy-Key"
                if not text
                else "the memproxy key is unknown or revoked"
            )
        identity = acting_for(record, headers.user, headers.workspace, headers.session, management=management)
        return identity, carrier


def _without_memproxy_keys(headers: _Headers) -> tuple[bytes | None, bytes | None, frozenset[bytes]]:
    """The client's bearer token and x-api-key unless they hold a memproxy key, and the headers to strip: a memproxy
    key never leaves the proxy, in whichever header it came."""
    bearer, api_key, strip = _bearer(headers.authorization), headers.api_key, {KEY_HEADER}
    if bearer is not None and looks_like_key(_text(bearer) or ""):
        bearer = None
        strip.add(b"authorization")
    if api_key is not None and looks_like_key(_text(api_key) or ""):
        api_key = None
        strip.add(b"x-api-key")
    return bearer, api_key, frozenset(strip)


def acting_for(
    record: KeyRecord,
    user: str | None = None,
    workspace: str | None = None,
    session: str | None = None,
    *,
    management: bool = False,
) -> Identity:
    """Whose memory a key's call is about when it names ``user``: the rule the API and the console share.

    A personal key acts for its own user only; a service key for its end users, namespaced under it; an admin key,
    on the management API and the console (``management``), for any user, and in chat for its own.
    """
    acting = record.user
    if user is not None and user != record.user:
        if record.kind == "service":
            acting = f"svc:{record.id}:{user}"  # the service's end user, never shared with another service
        elif record.kind == "admin" and management:
            acting = user  # an admin manages any user's memory (never chats as them)
        else:
            where = "" if record.kind == "personal" else " in a chat request (only on the management API)"
            raise UserNotAllowed(f"this key belongs to {record.user!r}; it may not act for another user{where}")
    return Identity(
        acting,
        workspace or DEFAULT_WORKSPACE,
        session,
        record.kind == "admin",
        key_id=record.id,
        key_kind=record.kind,
    )


def _open_identity(headers: _Headers, admin_key: str | None) -> Identity | None:
    user = headers.user
    if user is not None and user.startswith(RESERVED_USER_PREFIXES):
        raise InvalidRequest(
            f"X-Memory-User may not start with {' or '.join(RESERVED_USER_PREFIXES)}: memproxy derives those names",
            param="X-Memory-User",
        )
    if user is None:
        token = _bearer(headers.authorization) or headers.api_key
        if token is None:
            return None
        user = user_for_token(token)
    admin = headers.admin
    is_admin = admin is not None and admin_key is not None and hmac.compare_digest(admin, admin_key.encode())
    return Identity(user, headers.workspace or DEFAULT_WORKSPACE, headers.session, is_admin)


def identify(raw: RawHeaders, admin_key: str | None = None) -> Identity | None:
    """The caller's identity in open mode, or None when the request names no user and carries no credential."""
    return _open_identity(read_headers(raw), admin_key)


def user_for_token(token: bytes) -> str:
    """The user a bearer token stands for: a hash, never the token."""
    return "key-" + hashlib.sha256(token).hexdigest()[:24]


def checked_name(text: str, what: str) -> str:
    """A user or workspace name typed into the console, held to the rules of the header that carries it."""
    return _name(text.encode("utf-8", "surrogateescape"), what)


def _name(value: bytes, header: str) -> str:
    try:
        text = value.decode("utf-8").strip()
    except UnicodeDecodeError:
        text = ""
    if not text or len(text) > MAX_NAME_CHARS or not text.isprintable():
        raise InvalidRequest(f"{header} must be 1-{MAX_NAME_CHARS} printable characters", param=header)
    return text


def _bearer(authorization: bytes | None) -> bytes | None:
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(b" ")
    token = token.strip()
    return token if scheme.lower() == b"bearer" and token else None


def _carrier(bearer: bytes | None) -> str:
    """The header the client's own credential came in: its bearer token, else ``x-api-key``."""
    return "authorization" if bearer is not None else "x-api-key"


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")
