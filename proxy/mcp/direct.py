"""``memproxy mcp --config``: the MCP tools over the configured store itself (files or PostgreSQL), opened as the
CLI's commands open it, for the one user and workspace the command names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..config import Settings
from ..episodes.untrusted import UntrustedTools
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
