"""Everything a process needs, built once and handed to ``create_app``; tests build their own."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx

from . import scanning
from .admin.forgetting import UserForgetting
from .admin.service import AdminService
from .auth.identity import Authenticator
from .auth.key_service import KeyService
from .auth.keys import KeyRing
from .auth.objects import UpstreamObjects
from .config import Settings
from .dialects.client_marks import ClientMarks
from .episodes.extraction import Extractor
from .episodes.extraction_process import ProcessExtractor
from .episodes.jobs import JobQueue, Jobs
from .episodes.service import EpisodeService
from .episodes.session_records import SessionRecords
from .episodes.untrusted import UntrustedTools
from .errors import ConfigError
from .logs import RecentProblems
from .memory.backends.census_files import FilesCensus
from .memory.backends.console_files import FilesConsoleSessions
from .memory.backends.detail_files import FilesDetails
from .memory.backends.durable import remove_crash_leftovers
from .memory.backends.episode_files import FilesEpisodes
from .memory.backends.files import FilesStore
from .memory.backends.forget_files import FilesForgetting
from .memory.backends.history_files import FilesHistory
from .memory.backends.key_files import FilesKeys
from .memory.backends.memory_files_json import FilesMemoryFiles
from .memory.backends.object_files import FilesObjects
from .memory.census import EVERYONE, Census
from .memory.console_sessions import ConsoleSessionStore
from .memory.details import DetailStore
from .memory.episodes import EpisodeStore
from .memory.file_service import FileService
from .memory.forgetting import Forgetting
from .memory.history import HistoryStore
from .memory.history_service import HistoryService
from .memory.keys import KeyStore
from .memory.memory_files import MemoryFileStore
from .memory.objects import ObjectStore
from .memory.review import ReviewQueue
from .memory.service import MemoryService
from .memory.session_state import SessionState
from .memory.store import MemoryStore
from .metrics import Metrics
from .pipe.providers import LiteLLMRoute
from .pipe.recording import RecordingTransport, ReplayTransport
from .pipe.upstream import Upstream
from .telemetry.access import AccessLog
from .telemetry.observer import Telemetry
from .tools.anthropic_memory import AnthropicMemoryTool
from .tools.context_tiers import ContextTiers
from .tools.hidden import HiddenTurns
from .tools.memory_tools import MEMORY_TOOL, NAMES, MemoryTools
from .tools.models import ToolModels
from .tools.side_requests import SideRequests

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
    admin: AdminService  # keys, users and their counts, forgetting a user, store health
    console_sessions: ConsoleSessionStore  # sign-ins to the console at /ui/, shared by every replica
    objects: UpstreamObjects  # who made which upstream object (checked when upstream.api_key is shared)
    telemetry: Telemetry  # per-request metrics, the access log, traces
    files: FileService  # the /memories directory Anthropic's memory tool works on, per user and workspace
    database: Database | None = None  # store.backend: postgres, shared by every store above

    @cached_property
    def side_requests(self) -> SideRequests:
        """Which requests are a client's utility calls beside the conversation (sessions.side_requests)."""
        return SideRequests(self.settings.sessions)

    @cached_property
    def client_marks(self) -> ClientMarks:
        """What a conversation says, without its client's cache markers and context (sessions.client_context)."""
        return ClientMarks(self.settings.sessions.client_context)

    @cached_property
    def session_records(self) -> SessionRecords:
        """Sessions as a person sees them: live and past, what each was given and why, what it said."""
        return SessionRecords(self.episodes)

    @cached_property
    def review(self) -> ReviewQueue:
        """What waits for a person's approval, with the evidence that held it."""
        return ReviewQueue(self.memory, self.episodes.history)

    async def __aenter__(self) -> Services:
        if self.settings.store.backend == "files":
            removed = await asyncio.to_thread(remove_crash_leftovers, Path(self.settings.store.path))
            if removed:
                log.info("removed %d temp files that crashed writers left in %s", removed, self.settings.store.path)
        self.admin.problems.attach()  # this process's warnings and errors, for the store health
        if self.database is not None:
            await self.database.start()  # migrated and listening before the first request
        if self.auth.keyring is not None:
            await self.auth.keyring.start()
        if self.memory.embeddings is not None:
            await self.memory.embeddings.start()  # the model loaded before the first request
        await asyncio.to_thread(scanning.warm)  # the write scanner's too: else the first write reads them on the loop
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
        await self.admin.aclose()  # the key store (the ring's too) and the census
        self.admin.problems.detach()
        await self.console_sessions.aclose()
        self.telemetry.close()  # last: the lines of the requests that ended during shutdown are written


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
    """The embedding model for hybrid ranking (``memory.embeddings``), else None: numpy and the model are never
    imported on the lexical path. ``enabled: auto`` turns it on only where the extra is installed and the model's
    weights are on this machine; a ``model`` given without ``enabled`` turns it on."""
    chosen = settings.memory.embeddings
    enabled = chosen.enabled if "enabled" in chosen.model_fields_set or chosen.model is None else True
    if enabled is False:
        return None
    from .memory.embedding_model import DEFAULT_MODEL, runnable_here

    model = chosen.model or DEFAULT_MODEL
    directory = None
    if enabled == "auto":
        directory, why = runnable_here(model)
        if directory is None:
            log.info("memory.embeddings.enabled is auto: ranking lexically, %s", why)
            return None
        log.info("memory.embeddings.enabled is auto: hybrid ranking with %s", why)
    from .memory.embeddings import Embeddings

    return Embeddings(model, deadline_s=chosen.deadline_ms / 1000, directory=directory)


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


def build_census(settings: Settings, database: Database | None = None) -> Census:
    """Counts over every owner of the store (users, what waits for review, store health)."""
    database = database or build_database(settings)
    if database is None:
        return FilesCensus(Path(settings.store.path))
    from .memory.backends.pg_census import PostgresCensus

    return PostgresCensus(database)


def build_console_session_store(settings: Settings, database: Database | None = None) -> ConsoleSessionStore:
    """Console sign-ins, beside the keys: under the data dir (files) or in the shared database."""
    database = database or build_database(settings)
    if database is None:
        return FilesConsoleSessions(Path(settings.store.path))
    from .memory.backends.pg_console import PostgresConsoleSessions

    return PostgresConsoleSessions(database)


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


def build_memory_file_store(settings: Settings, database: Database | None = None) -> MemoryFileStore:
    """The /memories directories of Anthropic's memory tool, beside the owner's memories or in the shared database."""
    database = database or build_database(settings)
    if database is None:
        return FilesMemoryFiles(Path(settings.store.path))
    from .memory.backends.pg_memory_files import PostgresMemoryFiles

    return PostgresMemoryFiles(database)


def proxy_tool_names(settings: Settings) -> frozenset[str]:
    """The tools whose calls the proxy runs itself: never outside content, and left out of transcripts."""
    names = frozenset(NAMES) if settings.tools.enabled else frozenset()
    return names | {MEMORY_TOOL} if settings.tools.anthropic_memory != "off" else names


def build_history_store(settings: Settings, database: Database | None = None) -> HistoryStore:
    database = database or build_database(settings)
    if database is None:
        return FilesHistory(Path(settings.store.path))
    from .memory.backends.pg_history import PostgresHistory

    return PostgresHistory(database)


def build_session_state(settings: Settings, database: Database | None = None) -> SessionState:
    """Blocks, notes and kept turns: shared through PostgreSQL by replicas, else in this process's memory. Taints and
    chain links are shared on both: through PostgreSQL, or the owner's trust file for every process on the machine."""
    if database is None:
        from .memory.backends.trust_files import FilesSessionState

        return FilesSessionState(settings.store.path)
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
    """Before serving: a files store's directory is writable, a PostgreSQL store reachable and migrated (or either
    says in one line why not). A proxy that started on a read-only data dir said ok on /healthz, then answered every
    write with a 503 and every model's memory_store with a failure."""
    if settings.store.backend == "files":
        await asyncio.to_thread(check_writable, Path(settings.store.path))
    database = build_database(settings)
    if database is not None:
        try:
            await database.start()
        finally:
            await database.aclose()


def check_writable(path: Path) -> None:
    """Creates the data dir if needed and writes, fsyncs and removes a probe file in it: what every write will do."""
    probe = path / f".write-check-{os.getpid()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(descriptor, b"ok")
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(f"store.path: {path} is not writable: {exc.strerror or exc}") from exc


def build_services(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    record_dir: str | Path | None = None,
    replay_dir: str | Path | None = None,
    store: MemoryStore | None = None,
    extractor: Extractor | None = None,
    tracer_provider: Any = None,
) -> Services:
    """``transport`` replaces the network, ``store`` the memory store and ``extractor`` the extraction model
    (tests); record/replay wrap the network. ``tracer_provider``: where traces go when ``tracing.enabled`` (else one
    set up from the ``OTEL_*`` variables)."""

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
    file_store = build_memory_file_store(settings, database)
    memory = MemoryService(
        store,
        settings.memory,
        metrics,
        tools=settings.tools.enabled,
        episodes=build_episode_store(settings, database),
        sessions=sessions,
        details=build_detail_store(settings, database),
        embeddings=build_embeddings(settings),
        files=file_store,
    )
    files = FileService(file_store)
    proxy_tools = proxy_tool_names(settings)
    untrusted = UntrustedTools.of(settings.extraction, own=proxy_tools)
    keys = build_key_store(settings, database)  # open mode too: an admin may create keys before switching to keys
    ring = KeyRing(keys) if settings.auth.mode == "keys" else None
    episodes = episode_service(settings, memory, extractor, metrics, database, history)
    hidden_turns = HiddenTurns(shared=sessions, share_deadline_s=settings.memory.store_deadline_ms / 1000)
    context = ContextTiers(settings.context, memory.details, untrusted, keep=NAMES)
    census = build_census(settings, database)
    admin = AdminService(
        keys=KeyService(keys, ring),
        census=census,
        episodes=episodes,
        forgetting=UserForgetting(memory, episodes, hidden_turns, context, census),
        problems=RecentProblems(),
        ring=ring,
    )
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
        tools=MemoryTools(memory, history, untrusted=untrusted, files=files, memory_tool=AnthropicMemoryTool(files)),
        tool_models=ToolModels(settings.tools.models),
        hidden_turns=hidden_turns,
        episodes=episodes,
        auth=Authenticator(settings, ring),
        context=context,
        admin=admin,
        console_sessions=build_console_session_store(settings, database),
        objects=UpstreamObjects(
            build_object_store(settings, database),
            ttl_s=settings.upstream.object_ttl_days * 86400,
            per_user=settings.upstream.max_objects_per_user,
        ),
        telemetry=build_telemetry(settings, metrics, census, tracer_provider),
        files=files,
        database=database,
    )


def build_telemetry(settings: Settings, metrics: Metrics, census: Census, tracer_provider: Any = None) -> Telemetry:
    """Metrics and the access log (quiet until ``memproxy serve`` gives it stdout); traces with ``tracing.enabled``,
    unless ``OTEL_SDK_DISABLED`` says otherwise. OpenTelemetry is imported only then."""
    tracing = None
    if settings.tracing.enabled and os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() != "true":
        from .telemetry.tracing import Tracing, build_provider

        tracing = Tracing(tracer_provider if tracer_provider is not None else build_provider())

    async def held() -> tuple[int, int]:
        waiting = await census.held(EVERYONE)
        return waiting.memories, waiting.episodes

    access = AccessLog(settings.server.access_log, settings.server.access_log_format)
    return Telemetry(metrics.http, access, tracing, held)


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
        proxy_tools=proxy_tool_names(settings),
        history=history,
        forgetting=build_forgetting(settings, database),
    )
