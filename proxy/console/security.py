"""What keeps the console safe in a browser: its response headers, CSRF tokens, same-origin and loopback checks. Pure.

Memories hold text from web pages by design, so the console is written for hostile text: a Content-Security-Policy
that lets no inline script, no inline style and nothing from another origin run, and frames refused; every state
change is a POST that carries a token tied to the sign-in (derived from the cookie the browser alone holds, so a page
of another site can neither read nor forge it) and that came from this origin. Open mode has no sign-in: it serves
only this machine, checked by the peer's address and by the Host the browser asked for (DNS rebinding points a
stranger's name at 127.0.0.1, but cannot make the browser send ``Host: localhost``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
PAGE_CACHE = (b"cache-control", b"no-store")  # pages hold memory text: never kept by a browser or a proxy
STATIC_CACHE = (b"cache-control", b"no-cache")  # the script and the style sheet: revalidated (ETag), so never stale
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
_CSRF_CONTEXT = b"memproxy console csrf v1"


def csrf_token(cookie: str) -> str:
    """The sign-in's CSRF token: an HMAC of its cookie, so it is stored nowhere and unknowable without the cookie."""
    return hmac.new(cookie.encode("utf-8", "surrogateescape"), _CSRF_CONTEXT, hashlib.sha256).hexdigest()


def csrf_valid(cookie: str, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(csrf_token(cookie), presented)


def cross_site(headers: Mapping[str, str]) -> bool:
    """Whether a POST came from another site, as the browser says. ``Sec-Fetch-Site`` decides when it is there (every
    current browser sends it); else ``Origin``, unless that is ``null``, which is what a browser sends for the
    console's own forms under ``Referrer-Policy: no-referrer``. A client that says neither (curl) is judged by its
    CSRF token alone, which every POST needs anyway."""
    fetched = headers.get("sec-fetch-site")
    if fetched is not None:
        return fetched not in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None or origin == "null":
        return False
    hosts = {headers.get("host", "").lower(), headers.get("x-forwarded-host", "").split(",")[0].strip().lower()}
    try:
        parts = urlsplit(origin)
        return parts.scheme not in ("http", "https") or parts.netloc.lower() not in hosts - {""}
    except ValueError:
        return True


def loopback_only(peer: str | None, host_header: str | None) -> bool:
    """Whether a request came from this machine and asked for it by a loopback name (any port)."""
    if peer is None or host_header is None:
        return False
    try:
        if not ipaddress.ip_address(peer).is_loopback:
            return False
    except ValueError:
        return False
    return _host_name(host_header) in LOOPBACK_HOSTS


def over_tls(scheme: str, headers: Mapping[str, str]) -> bool:
    """HTTPS here, or at a proxy in front that says so: the cookie is then marked Secure."""
    forwarded = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return scheme == "https" or forwarded == "https"


def _host_name(host: str) -> str:
    """``localhost:8787`` -> ``localhost``, ``[::1]:8787`` -> ``[::1]``, lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host
