"""One SSL context for every HTTP client a test process makes.

Each httpx client (``httpx.get``, an openai or anthropic SDK client, ...) loads the system's CA bundle into a new SSL
context: 50-60 ms of CPU, more than the request it makes to a proxy on the loopback. The end-to-end tests make
thousands of them (two test files: 687, 43 s), and a test polling for an episode every 0.1 s kept a core busy doing
it while the extraction process it waited for needed that core; each proxy a test starts makes its upstreams' too.
No test speaks TLS (nothing leaves the machine), so they share one context, made as httpx makes its default one; a
client given its own ``verify`` or ``cert`` still gets its own.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx
from httpx._transports import default

_create = default.create_ssl_context


@functools.cache
def _shared() -> ssl.SSLContext:
    return _create()


def _create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is True and cert is None and trust_env:
        return _shared()
    return _create(verify=verify, cert=cert, trust_env=trust_env)


def share_default_ssl_context() -> None:
    """Make httpx's transports (sync and async) and ``httpx.create_ssl_context()`` (a proxy's upstreams) give one
    default SSL context from now on."""
    default.create_ssl_context = _create_ssl_context
    httpx.create_ssl_context = _create_ssl_context
