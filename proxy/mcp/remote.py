"""``memproxy mcp --url``: the tools and resources of a running memproxy's ``/mcp``, bridged to a host over stdio.

The host starts ``memproxy mcp`` as a command; each of its calls goes on to the running memproxy with the SDK's own
client (streamable HTTP, the memproxy key as the bearer token), which answers it as it answers any MCP host: same
identity rules, same store, same writes. One connection for the process's life.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from ..memory.caller import Identity


def endpoint(url: str) -> str:
    """``http://host:8787``, ``.../v1`` or ``.../mcp``: memproxy's ``/mcp`` URL."""
    base = url.rstrip("/")
    if base.endswith("/mcp"):
        return base
    return base.removesuffix("/v1") + "/mcp"


class RemoteMemory:
    def __init__(self, url: str, *, key: str | None = None, user: str | None = None, workspace: str | None = None):
        self.url = endpoint(url)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        if user:
            headers["X-Memory-User"] = user
        if workspace:
            headers["X-Memory-Workspace"] = workspace
        self._headers = headers
        self._stack = AsyncExitStack()
        self._client: Client | None = None

    async def __aenter__(self) -> RemoteMemory:
        http = await self._stack.enter_async_context(httpx2.AsyncClient(headers=self._headers, timeout=60))
        transport = streamable_http_client(self.url, http_client=http)
        self._client = await self._stack.enter_async_context(Client(transport, cache=None))
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stack.aclose()

    async def call(self, caller: Identity, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        result = await self._connected().call_tool(name, arguments)
        texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
        return "".join(texts), bool(result.is_error)

    async def read(self, caller: Identity, uri: str) -> str:
        found = await self._connected().read_resource(uri)
        return "".join(c.text for c in found.contents if isinstance(c, types.TextResourceContents))

    def _connected(self) -> Client:
        if self._client is None:
            raise RuntimeError("RemoteMemory is used outside its context")
        return self._client
