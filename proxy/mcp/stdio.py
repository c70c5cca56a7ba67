"""``memproxy mcp``: the MCP server over stdio, for hosts that start a command (Claude Desktop, Cursor, ...).

Two ways to the memory: a running memproxy (``--url``, :mod:`.remote`), or the configured store itself, opened
here as the CLI's commands open it (files or PostgreSQL), for one user and workspace (``--user``). stdout carries
the protocol alone: anything this process says goes to stderr.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..config import Settings
from ..episodes.untrusted import UntrustedTools
from ..memory.caller import Identity
from ..memory.file_service import FileService
from ..memory.history_service import HistoryService
from ..memory.service import MemoryService
from ..services import (
    build_database,
    build_detail_store,
    build_episode_store,
    build_history_store,
    build_memory_file_store,
    build_session_state,
    build_store,
    proxy_tool_names,
)
from ..tools.memory_tools import MemoryTools
from .local import LocalMemory
from .server import Memory, build_server


@asynccontextmanager
async def store_memory(settings: Settings) -> AsyncIterator[LocalMemory]:
    """The tools over the configured store, closed on exit."""
    database = build_database(settings)
    files = build_memory_file_store(settings, database)
    memory = MemoryService(
        build_store(settings, database),
        settings.memory,
        tools=True,
        episodes=build_episode_store(settings, database),
        sessions=build_session_state(settings, database),
        details=build_detail_store(settings, database),
        files=files,
    )
    history = HistoryService(build_history_store(settings, database), settings.history, memory.metrics)
    untrusted = UntrustedTools.of(settings.extraction, own=proxy_tool_names(settings))
    tools = MemoryTools(memory, history, untrusted=untrusted, files=FileService(files))
    try:
        if database is not None:
            await database.start()
        yield LocalMemory(tools, memory, writes=settings.mcp.writes)
    finally:
        await history.aclose()
        await memory.aclose()


async def serve(memory: Memory, caller: Identity) -> None:
    """Answer the host on stdin/stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(memory, lambda ctx: caller)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
