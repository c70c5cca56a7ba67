"""``memproxy mcp --url``: the tools and resources of a running memproxy's ``/mcp``, bridged to a host over stdio.

The host starts ``memproxy mcp`` as a command; each of its calls goes on to the running memproxy with the SDK's own
client (streamable HTTP, the memproxy key as the bearer token), which answers it as it answers any MCP host: same
identity rules, same store, same writes. The host's handshake and ``tools/list`` are answered here (the catalog is
the same), so the server is ready as soon as the process is; the connection is made at the first call and kept for
the process's life. :func:`reachable` checks the memproxy answers at all before anything is served.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import orjson
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
        self._tasks: anyio.abc.TaskGroup | None = None
        self._client: Client | None = None
        self._connecting = anyio.Lock()
        self._done = anyio.Event()

    async def __aenter__(self) -> RemoteMemory:
        self._tasks = await self._stack.enter_async_context(anyio.create_task_group())
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._done.set()
        await self._stack.aclose()

    async def call(self, caller: Identity, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        try:
            result = await (await self._connected()).call_tool(name, arguments)
        except Exception as exc:  # noqa: BLE001 - the host's model reads it, as any tool result
            return orjson.dumps({"ok": False, "error": f"memproxy at {self.url} did not answer: {exc}"}).decode(), True
        texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
        return "".join(texts), bool(result.is_error)

    async def read(self, caller: Identity, uri: str) -> str:
        found = await (await self._connected()).read_resource(uri)
        return "".join(c.text for c in found.contents if isinstance(c, types.TextResourceContents))

    async def _connected(self) -> Client:
        """The client, connected at the first call by a task that keeps it (the SDK's task groups must be left by
        the task that entered them) until the process ends."""
        async with self._connecting:
            if self._client is None:
                assert self._tasks is not None, "RemoteMemory is used outside its context"
                ready = anyio.Event()
                failed: list[Exception] = []
                self._tasks.start_soon(self._keep, ready, failed)
                await ready.wait()
                if failed:
                    raise failed[0]
            assert self._client is not None
            return self._client

    async def _keep(self, ready: anyio.Event, failed: list[Exception]) -> None:
        try:
            async with (
                httpx2.AsyncClient(headers=self._headers, timeout=60) as http,
                Client(streamable_http_client(self.url, http_client=http), cache=None) as client,
            ):
                self._client = client
                ready.set()
                await self._done.wait()
        except Exception as exc:  # noqa: BLE001 - the call that asked reads it; the next one tries again
            failed.append(exc)
        finally:
            self._client = None
            ready.set()


async def reachable(url: str) -> str | None:
    """Why memproxy at ``url`` cannot serve (None: it answers ``/healthz``)."""
    root = endpoint(url).removesuffix("/mcp")
    try:
        async with httpx2.AsyncClient(timeout=10) as http:
            answer = await http.get(f"{root}/healthz")
    except httpx2.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return None if answer.status_code == 200 else f"GET /healthz answered {answer.status_code}"
