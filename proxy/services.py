"""Everything a process needs, built once and handed to ``create_app``; tests build their own."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

from .auth.identity import Authenticator
from .auth.keys import KeyRing
from .config import Settings
from .episodes.extraction import Extractor
from .episodes.extraction_process import ProcessExtractor
from .episodes.jobs import JobQueue
from .episodes.service import EpisodeService
from .errors import ConfigError
from .memory.backends.durable import remove_crash_leftovers
from .memory.backends.episode_files import FilesEpisodes
from .memory.backends.files import FilesStore
from .memory.backends.key_files import FilesKeys
from .memory.episodes import EpisodeStore
from .memory.keys import KeyStore
from .memory.service import MemoryService
from .memory.store import MemoryStore
from .metrics import Metrics
from .pipe.providers import LiteLLMRoute
from .pipe.recording import RecordingTransport, ReplayTransport
from .pipe.upstream import Upstream
from .tools.hidden import HiddenTurns
from .tools.memory_tools import NAMES, MemoryTools
from .tools.models import ToolModels

log = logging.getLogger("proxy")


@dataclass
class Services:
    settings: Settings
    upstream: Upstream
    anthropic: Upstream  # /v1/messages
    litellm: LiteLLMRoute
    memory: MemoryService
    metrics: Metrics
    tools: MemoryTools
    tool_models: ToolModels
    hidden_turns: HiddenTurns
    episodes: EpisodeService
    auth: Authenticator

    async def __aenter__(self) -> Services:
        if self.settings.store.backend == "files":
            removed = await asyncio.to_thread(remove_crash_leftovers, Path(self.settings.store.path))
            if removed:
                log.info("removed %d temp files that crashed writers left in %s", removed, self.settings.store.path)
        if self.auth.keyring is not None:
            await self.auth.keyring.start()
        self.episodes.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.episodes.aclose()  # first: ending sessions queues their jobs
        await self.upstream.aclose()
        await self.anthropic.aclose()
        await self.litellm.aclose()
        await self.memory.aclose()
        if self.auth.keyring is not None:
            await self.auth.keyring.aclose()


def _files_backend(settings: Settings) -> Path:
    if settings.store.backend != "files":
        raise ConfigError(f"store.backend: {settings.store.backend!r} is not available yet; use 'files'")
    return Path(settings.store.path)


def build_store(settings: Settings, metrics: Metrics | None = None) -> MemoryStore:
    """``metrics`` counts the store's unreadable lines."""
    unreadable = metrics.store_unreadable.inc if metrics is not None else None
    return FilesStore(_files_backend(settings), on_unreadable=unreadable)


def build_episode_store(settings: Settings) -> EpisodeStore:
    return FilesEpisodes(_files_backend(settings))


def build_key_store(settings: Settings) -> KeyStore:
    return FilesKeys(_files_backend(settings))


def build_services(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    record_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    store: MemoryStore | None = None,
    extractor: Extractor | None = None,
) -> Services:
    """``transport`` replaces the network, ``store`` the memory store and ``extractor`` the extraction model
    (tests); record/replay wrap the network."""

    def upstream_at(base_url: str, key_header: bytes) -> Upstream:
        wrapped = transport
        if replay_dir is not None:
            wrapped = ReplayTransport(replay_dir, base_url)
        elif record_dir is not None:
            from httpx_aiohttp import AiohttpTransport

            wrapped = RecordingTransport(transport or AiohttpTransport(), record_dir, base_url)
        return Upstream(base_url, timeout_s=settings.upstream.timeout_s, transport=wrapped, key_header=key_header)

    upstream = upstream_at(settings.upstream.base_url, b"authorization")
    anthropic = upstream_at(settings.upstream.anthropic_base_url, b"x-api-key")
    litellm = LiteLLMRoute.of(settings.upstream)
    metrics = Metrics()
    store = store if store is not None else build_store(settings, metrics)
    memory = MemoryService(
        store, settings.memory, metrics, tools=settings.tools.enabled, episodes=build_episode_store(settings)
    )
    return Services(
        settings=settings,
        upstream=upstream,
        anthropic=anthropic,
        litellm=litellm,
        memory=memory,
        metrics=metrics,
        tools=MemoryTools(memory),
        tool_models=ToolModels(settings.tools.models),
        hidden_turns=HiddenTurns(),
        episodes=episode_service(settings, memory, extractor, metrics),
        auth=Authenticator(settings, KeyRing(build_key_store(settings)) if settings.auth.mode == "keys" else None),
    )


def episode_service(
    settings: Settings, memory: MemoryService, extractor: Extractor | None = None, metrics: Metrics | None = None
) -> EpisodeService:
    """Sessions, jobs and episodes over ``memory``'s store (the CLI builds one too, to approve and list)."""
    assert memory.episodes is not None
    return EpisodeService(
        settings,
        memory,
        memory.episodes,
        JobQueue(settings.store.path),
        extractor or ProcessExtractor(settings),
        metrics or memory.metrics,
        proxy_tools=frozenset(NAMES) if settings.tools.enabled else frozenset(),
    )
