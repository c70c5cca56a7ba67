"""Everything a process needs, built once and handed to ``create_app``; tests build their own."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

from .config import Settings
from .errors import ConfigError
from .hiddenturns import HiddenTurns
from .memory.files import FilesStore
from .memory.service import MemoryService
from .memory.store import MemoryStore
from .memory.tools import MemoryTools
from .metrics import Metrics
from .providers import LiteLLMRoute
from .recording import RecordingTransport, ReplayTransport
from .upstream import Upstream


@dataclass
class Services:
    settings: Settings
    upstream: Upstream
    litellm: LiteLLMRoute
    memory: MemoryService
    metrics: Metrics
    tools: MemoryTools
    hidden_turns: HiddenTurns

    async def __aenter__(self) -> Services:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.upstream.aclose()
        await self.litellm.aclose()
        await self.memory.aclose()


def build_store(settings: Settings) -> MemoryStore:
    if settings.store.backend != "files":
        raise ConfigError(f"store.backend: {settings.store.backend!r} is not available yet; use 'files'")
    return FilesStore(settings.store.path)


def build_services(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    record_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    store: MemoryStore | None = None,
) -> Services:
    """``transport`` replaces the network and ``store`` the memory store (tests); record/replay wrap the network."""
    base_url = settings.upstream.base_url
    if replay_dir is not None:
        transport = ReplayTransport(replay_dir, base_url)
    elif record_dir is not None:
        from httpx_aiohttp import AiohttpTransport

        transport = RecordingTransport(transport or AiohttpTransport(), record_dir, base_url)
    upstream = Upstream(base_url, timeout_s=settings.upstream.timeout_s, transport=transport)
    litellm = LiteLLMRoute(
        settings.upstream.litellm_models,
        api_base=settings.upstream.litellm_api_base,
        timeout_s=settings.upstream.timeout_s,
    )
    store = store if store is not None else build_store(settings)
    metrics = Metrics()
    memory = MemoryService(store, settings.memory, metrics, tools=settings.tools.enabled)
    return Services(
        settings=settings,
        upstream=upstream,
        litellm=litellm,
        memory=memory,
        metrics=metrics,
        tools=MemoryTools(memory),
        hidden_turns=HiddenTurns(),
    )
