"""Everything a process needs, built once and handed to ``create_app``; tests build their own."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import httpx

from .auth.identity import Authenticator
from .auth.keys import KeyRing
from .auth.objects import UpstreamObjects
from .config import Settings
from .episodes.extraction import Extractor
from .episodes.extraction_process import ProcessExtractor
from .episodes.jobs import JobQueue, Jobs
from .episodes.service import EpisodeService
from .episodes.untrusted import UntrustedTools
from .errors import ConfigError
from .memory.backends.detail_files import FilesDetails
from .memory.backends.durable import remove_crash_leftovers
from .memory.backends.episode_files import FilesEpisodes
from .memory.backends.files import FilesStore
from .memory.backends.forget_files import FilesForgetting
from .memory.backends.history_files import FilesHistory
from .memory.backends.key_files import FilesKeys
from .memory.backends.object_files import FilesObjects
from .memory.details import DetailStore
from .memory.episodes import EpisodeStore
from .memory.forgetting import Forgetting
from .memory.history import HistoryStore
from .memory.history_service import HistoryService
from .memory.keys import KeyStore
from .memory.objects import ObjectStore
from .memory.service import MemoryService
from .memory.session_state import InProcessSessionState, SessionState
from .memory.store import MemoryStore
from .metrics import Metrics
from .pipe.providers import LiteLLMRoute
from .pipe.recording import RecordingTransport, ReplayTransport
from .pipe.upstream import Upstream
from .tools.context_tiers import ContextTiers
from .tools.hidden import HiddenTurns
from .tools.memory_tools import NAMES, MemoryTools
from .tools.models import ToolModels

log = logging.getLogger("proxy")

if TYPE_CHECKING:  # the PostgreSQL modules import asyncpg, embeddings numpy: only their settings load them
    from .memory.backends.postgres import Database
    from .memory.embeddings import Embeddings


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
    context: ContextTiers  # offload and window (context.*), off unless configured
    objects: UpstreamObjects  # who made which upstream object (checked when upstream.api_key is shared)
    database: Database | None = None  # store.backend: postgres, shared by every store above

    async def __aenter__(self) -> Services:
        if self.settings.store.backend == "files":
            removed = await asyncio.to_thread(remove_crash_leftovers, Path(self.settings.store.path))
            if removed:
                log.info("removed %d temp files that crashed writers left in %s", removed, self.settings.store.path)
        if self.database is not None:
            await self.database.start()  # migrated and listening before the first request
        if self.auth.keyring is not None:
            await self.auth.keyring.start()
        if self.memory.embeddings is not None:
            await self.memory.embeddings.start()  # the model loaded before the first request
        await self.episodes.forgetting.start()  # forget-all marks known before the first request
        self.episodes.start()
        self.objects.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.episodes.aclose()  # first: ending sessions queues their jobs
        await self.episodes.forgetting.aclose()
        await self.upstream.aclose()
        await self.anthropic.aclose()
        await self.litellm.aclose()
        await self.memory.aclose()
        await self.objects.aclose()
        if self.auth.keyring is not None:
            await self.auth.keyring.aclose()
            await self.auth.keyring.store.aclose()


def build_database(settings: Settings) -> Database | None:
    """The PostgreSQL database for ``store.backend: postgres`` (connected on first use), else None."""
    if settings.store.backend != "postgres":
        return None
    if not settings.store.dsn:
        raise ConfigError('store.dsn: required with store.backend: postgres (e.g. "${DATABASE_URL}")')
    from .memory.backends.postgres import Database

    return Database(settings.store.dsn)


def build_store(settings: Settings, database: Database | None = None, metrics: Metrics | None = None) -> MemoryStore:
    """``database``: one shared with the other stores (else the store gets one of its own); ``metrics`` counts the
    files store's unreadable lines."""
    database = database or build_database(settings)
    if database is None:
        unreadable = metrics.store_unreadable.inc if metrics is not None else None
        return FilesStore(Path(settings.store.path), on_unreadable=unreadable)
    from .memory.backends.pg_memories import PostgresStore

    return PostgresStore(database)


def build_embeddings(settings: Settings) -> Embeddings | None:
    """The embedding model for hybrid ranking (``memory.embeddings.model``), else None: numpy and the model are
    never imported on the lexical path."""
    chosen = settings.memory.embeddings
    if chosen.model is None:
        return None
    from .memory.embeddings import Embeddings

    return Embeddings(chosen.model, deadline_s=chosen.deadline_ms / 1000)


def build_episode_store(settings: Settings, database: Database | None = None) -> EpisodeStore:
    database = database or build_database(settings)
    if database is None:
        return FilesEpisodes(Path(settings.store.path))
    from .memory.backends.pg_episodes import PostgresEpisodes

    return PostgresEpisodes(database)


def build_key_store(settings: Settings, database: Database | None = None) -> KeyStore:
    database = database or build_database(settings)
    if database is None:
        return FilesKeys(Path(settings.store.path))
    from .memory.backends.pg_keys import PostgresKeys

    return PostgresKeys(database)


def build_object_store(settings: Settings, database: Database | None = None) -> ObjectStore:
    """Who made which upstream object, beside the keys (files) or in the shared database."""
    database = database or build_database(settings)
    if database is None:
        return FilesObjects(Path(settings.store.path))
    from .memory.backends.pg_objects import PostgresObjects

    return PostgresObjects(database)


def build_detail_store(settings: Settings, database: Database | None = None) -> DetailStore:
    """Offloaded tool outputs, beside the owner's memories (files) or in the shared database."""
    database = database or build_database(settings)
    if database is None:
        return FilesDetails(Path(settings.store.path))
    from .memory.backends.pg_details import PostgresDetails

    return PostgresDetails(database)


def build_history_store(settings: Settings, database: Database | None = None) -> HistoryStore:
    database = database or build_database(settings)
    if database is None:
        return FilesHistory(Path(settings.store.path))
    from .memory.backends.pg_history import PostgresHistory

    return PostgresHistory(database)


def build_session_state(settings: Settings, database: Database | None = None) -> SessionState:
    """Blocks, notes and kept turns: shared through PostgreSQL by replicas, else in this process's memory."""
    if database is None:
        return InProcessSessionState()
    from .memory.backends.pg_sessions import PostgresSessionState

    return PostgresSessionState(database, settings.sessions.idle_timeout_s)


def build_forgetting(settings: Settings, database: Database | None = None) -> Forgetting:
    """forget-all marks, beside the memories (files) or in the shared database: every process hears of them."""
    database = database or build_database(settings)
    if database is None:
        return Forgetting(FilesForgetting(Path(settings.store.path)))
    from .memory.backends.pg_forgetting import PostgresForgetting

    return Forgetting(PostgresForgetting(database))


def build_jobs(settings: Settings, database: Database | None = None) -> Jobs:
    database = database or build_database(settings)
    if database is None:
        return JobQueue(settings.store.path)
    from .episodes.pg_jobs import PostgresJobs

    return PostgresJobs(database)


async def check_store(settings: Settings) -> None:
    """Before serving: a PostgreSQL store is reachable and migrated (or says in one line why not)."""
    database = build_database(settings)
    if database is not None:
        try:
            await database.start()
        finally:
            await database.aclose()


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
    database = build_database(settings)
    metrics = Metrics()
    store = store if store is not None else build_store(settings, database, metrics)
    sessions = build_session_state(settings, database)
    history = HistoryService(build_history_store(settings, database), settings.history, metrics)
    memory = MemoryService(
        store,
        settings.memory,
        metrics,
        tools=settings.tools.enabled,
        episodes=build_episode_store(settings, database),
        sessions=sessions,
        details=build_detail_store(settings, database),
        embeddings=build_embeddings(settings),
    )
    proxy_tools = frozenset(NAMES) if settings.tools.enabled else frozenset()
    untrusted = UntrustedTools.of(settings.extraction, trusted=proxy_tools)
    hidden_turns = HiddenTurns(shared=sessions)
    context = ContextTiers(settings.context, memory.details, untrusted, keep=NAMES)
    episodes = episode_service(settings, memory, extractor, metrics, database, history)
    # A forget-all on any replica: this process drops its frozen blocks and notes, kept turns and context state
    # of the owner too (the episode service drops live sessions and queued history itself).
    episodes.forgetting.subscribe(lambda owner, before: memory.recall.forget(*owner))
    episodes.forgetting.subscribe(lambda owner, before: hidden_turns.forget_here(owner))
    episodes.forgetting.subscribe(lambda owner, before: context.forget(*owner))
    return Services(
        settings=settings,
        upstream=upstream,
        anthropic=anthropic,
        litellm=litellm,
        memory=memory,
        metrics=metrics,
        tools=MemoryTools(memory, history),
        tool_models=ToolModels(settings.tools.models),
        hidden_turns=hidden_turns,
        episodes=episodes,
        auth=Authenticator(
            settings, KeyRing(build_key_store(settings, database)) if settings.auth.mode == "keys" else None
        ),
        context=context,
        objects=UpstreamObjects(
            build_object_store(settings, database),
            ttl_s=settings.upstream.object_ttl_days * 86400,
            per_user=settings.upstream.max_objects_per_user,
        ),
        database=database,
    )


def episode_service(
    settings: Settings,
    memory: MemoryService,
    extractor: Extractor | None = None,
    metrics: Metrics | None = None,
    database: Database | None = None,
    history: HistoryService | None = None,
) -> EpisodeService:
    """Sessions, jobs, episodes and history over ``memory``'s store (the CLI builds one too, to approve, list and
    forget)."""
    assert memory.episodes is not None
    if history is None:
        history = HistoryService(build_history_store(settings, database), settings.history, metrics or memory.metrics)
    return EpisodeService(
        settings,
        memory,
        memory.episodes,
        build_jobs(settings, database),
        extractor or ProcessExtractor(settings),
        metrics or memory.metrics,
        proxy_tools=frozenset(NAMES) if settings.tools.enabled else frozenset(),
        history=history,
        forgetting=build_forgetting(settings, database),
    )
