"""Who a request is for: user, workspace and session, from memproxy's headers or the bearer token.

Without ``X-Memory-User`` the user is a hash of the bearer token, never the token itself. A request
with neither has no identity and gets no memory: guessing one could hand a user someone else's.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

from ..errors import InvalidRequest, MissingIdentity
from ..memory.caller import DEFAULT_WORKSPACE, Identity

USER_HEADER = b"x-memory-user"
WORKSPACE_HEADER = b"x-memory-workspace"
SESSION_HEADER = b"x-memory-session"
ADMIN_HEADER = b"x-memory-admin-key"
MAX_NAME_CHARS = 200


def identify(raw_headers: Iterable[tuple[bytes, bytes]], admin_key: str | None = None) -> Identity | None:
    """The caller's identity, or None when the request names no user and carries no bearer token."""
    user = workspace = session = authorization = admin = None
    for name, value in raw_headers:
        name = name.lower()
        if name == USER_HEADER:
            user = _name(value, "X-Memory-User")
        elif name == WORKSPACE_HEADER:
            workspace = _name(value, "X-Memory-Workspace")
        elif name == SESSION_HEADER:
            session = _name(value, "X-Memory-Session")
        elif name == b"authorization":
            authorization = value
        elif name == ADMIN_HEADER:
            admin = value
    if user is None:
        token = _bearer(authorization)
        if token is None:
            return None
        user = user_for_token(token)
    is_admin = admin is not None and admin_key is not None and hmac.compare_digest(admin, admin_key.encode())
    return Identity(user, workspace or DEFAULT_WORKSPACE, session, is_admin)


def user_for_token(token: bytes) -> str:
    """The user a bearer token stands for: a hash, never the token."""
    return "key-" + hashlib.sha256(token).hexdigest()[:24]


def require_identity(raw_headers: Iterable[tuple[bytes, bytes]], admin_key: str | None = None) -> Identity:
    identity = identify(raw_headers, admin_key)
    if identity is None:
        raise MissingIdentity(
            "memproxy needs to know whose memories these are: send X-Memory-User or an Authorization bearer token"
        )
    return identity


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
