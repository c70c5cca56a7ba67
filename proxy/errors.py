"""One error hierarchy: each error knows its HTTP status and renders OpenAI's error envelope.

Third-party exceptions are translated where they enter (upstream, config) with
``raise ... from exc``, so routes only ever see these.
"""

from __future__ import annotations

import orjson


class ProxyError(Exception):
    status = 500
    type = "server_error"
    code: str | None = None

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        if code is not None:
            self.code = code

    def envelope(self) -> dict[str, object]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def body(self) -> bytes:
        return orjson.dumps(self.envelope())


class ConfigError(ProxyError):
    """A setting that stops start-up; the message names the key."""

    code = "config_error"


class InvalidRequest(ProxyError):
    status = 400
    type = "invalid_request_error"


class MissingIdentity(InvalidRequest):
    """No X-Memory-User and no bearer token: the memory API cannot know whose memories these are."""

    status = 401
    code = "missing_identity"


class MemoryRejected(InvalidRequest):
    """A write that is invalid or unsafe; nothing was stored."""

    code = "memory_rejected"


class PinRefused(MemoryRejected):
    """A pin past its cap (``pinned_cap_exceeded``) or already pinned (``duplicate_pin``); nothing was stored."""

    status = 409


class MemoryNotFound(InvalidRequest):
    status = 404
    code = "memory_not_found"


class ObjectNotFound(InvalidRequest):
    """An upstream object (a stored response, a conversation, a file...) the caller did not make: with a shared
    upstream key, as far as the caller can tell it does not exist."""

    status = 404


class UnknownRoute(InvalidRequest):
    """A path under /memory that no management route serves (never passed to the upstream)."""

    status = 404
    code = "unknown_route"


class MethodNotAllowed(InvalidRequest):
    status = 405
    code = "method_not_allowed"

    def __init__(self, message: str, *, allow: list[str]) -> None:
        super().__init__(message)
        self.headers = {"allow": ", ".join(allow)}


class VersionNotFound(MemoryNotFound):
    """A restore naming a version the memory's kept history does not hold."""

    code = "version_not_found"


class VersionMismatch(InvalidRequest):
    """``If-Match`` names a version that is no longer the memory's current one: nothing was changed."""

    status = 412
    code = "version_mismatch"

    def __init__(self, message: str, *, param: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message, param=param)
        self.headers = headers or {}  # the current ETag, so a client can tell what it is now


class AdminOnly(InvalidRequest):
    status = 403
    code = "admin_key_required"


class InvalidApiKey(InvalidRequest):
    """No memproxy key, or one the store does not know or has revoked (``auth.mode: keys``)."""

    status = 401
    code = "invalid_api_key"


class UserNotAllowed(InvalidRequest):
    """A personal key naming another user in ``X-Memory-User``."""

    status = 403
    code = "user_not_allowed"


class UntrustedSession(InvalidRequest):
    """A session that took in untrusted content asked for what only a trusted one may do (delete a trusted memory)."""

    status = 403
    code = "untrusted_session"


class NotHeld(InvalidRequest):
    """A review's reject of a memory that is not held: deleting a trusted memory is a plain delete's job."""

    status = 409
    code = "not_held"


class StoreUnavailable(ProxyError):
    """The store failed; chat requests go on without memory, management calls get a 503."""

    status = 503
    code = "memory_store_unavailable"


class UnstorableInput(InvalidRequest):
    """The store refused a value itself (not for being down): writing it again would fail again."""

    code = "unstorable_input"


class RequestTooLarge(ProxyError):
    status = 413
    type = "invalid_request_error"
    code = "request_too_large"


class UpstreamUnreachable(ProxyError):
    status = 502
    code = "upstream_unreachable"


class UpstreamTimeout(ProxyError):
    status = 504
    code = "upstream_timeout"


class BadUpstreamResponse(ProxyError):
    """The upstream answered 200 with something that is not what the proxy must read (a later call of a tool loop)."""

    status = 502
    code = "bad_upstream_response"


class UpstreamStreamError(ProxyError):
    """The upstream failed after the client's stream had started: reported as one SSE error event."""

    status = 502
    code = "upstream_stream_error"


class UpstreamStatusError(ProxyError):
    """An error status from a provider reached through litellm (the httpx path relays errors verbatim)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "upstream_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.type = type
        self.headers = headers or {}
