"""One SSL context for every HTTP client a test process makes.

Each httpx client (``httpx.get``, an openai or anthropic SDK client, ...) loads the system's CA bundle into a new SSL
context: 50-60 ms of CPU, more than the request it makes to a proxy on the loopback. The end-to-end tests make
thousands of them (two test files: 687, 43 s), and a test polling for an episode every 0.1 s kept a core busy doing
it while the extraction process it waited for needed that core; each proxy a test starts makes its upstreams' too.
No test speaks TLS (nothing leaves the machine), so they share one context per library, made as the library makes
its default one; a client given its own ``verify`` or ``cert`` still gets its own. Both httpx and httpx2 (the
anthropic SDK's, and the MCP client's) are covered.
"""

from __future__ import annotations

import functools
import importlib
import ssl
import sys
from collections.abc import Callable
from typing import Any

CreateContext = Callable[..., ssl.SSLContext]


def _sharing(create: CreateContext) -> CreateContext:
    shared = functools.cache(lambda: create())

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is True and cert is None and trust_env:
            return shared()
        return create(verify=verify, cert=cert, trust_env=trust_env)

    return create_ssl_context


def share_default_ssl_context() -> None:
    """From now on the transports of httpx and httpx2 (sync and async), and their ``create_ssl_context()`` (a
    proxy's upstreams), give one default SSL context each."""
    for library in ("httpx", "httpx2"):
        try:
            transports = importlib.import_module(f"{library}._transports.default")
        except ModuleNotFoundError:
            continue
        create = _sharing(transports.create_ssl_context)
        setattr(transports, "create_ssl_context", create)  # noqa: B010 - a module's attribute, replaced
        setattr(sys.modules[library], "create_ssl_context", create)  # noqa: B010
