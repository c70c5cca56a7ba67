"""One PostgreSQL database shared by every backend of a process: the pool, the schema, change notifications.

- :class:`Database` owns an asyncpg pool, created on first use in the running event loop (``start``), and
  closed when the last backend built on it closes (``retain`` / ``release``).
- ``start`` applies the migrations of :mod:`.pg_schema` not applied yet, in one transaction under a
  transaction-level advisory lock: replicas starting together wait for each other, and each migration runs
  once. A database migrated past what this code knows stops start-up (:class:`StoreUnavailable`).
- Writers call ``pg_notify(CHANNEL, 'kind:tag:version')`` in their transaction; one listening connection per
  process hands each notification to the backends that subscribed to its kind. While it is down (the
  database restarted, a network hiccup) ``trusts`` says False, so caches are checked against the database
  again, and it reconnects in the background.
- Every driver error (a refused connection, a dropped one, a timeout, a server error) surfaces as
  :class:`StoreUnavailable`: chat requests fail open, management calls get a 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import orjson

from ...errors import StoreUnavailable, UnstorableInput
from .pg_schema import MIGRATIONS

log = logging.getLogger("proxy.memory")

CHANNEL = "memproxy_changes"
MIGRATION_LOCK = 0x6D656D70726F7879 >> 1  # "memproxy", as a bigint: the advisory lock migrations run under
DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError, TimeoutError)
RECONNECT_S = (0.1, 0.2, 0.5, 1.0, 2.0)  # the listener's waits between attempts, then the last one forever

Notified = Callable[[str, int], None]  # (tag, version)


def unavailable(exc: BaseException) -> StoreUnavailable:
    """One line that says what failed, never the DSN (asyncpg's messages name host and port, not passwords)."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return StoreUnavailable(f"the PostgreSQL store failed: {type(exc).__name__}{': ' + detail if detail else ''}")


def tag_of(owner_key: str) -> str:
    """A fixed-size name for an owner in notifications (their payload is limited to 8000 bytes)."""
    return hashlib.sha256(owner_key.encode()).hexdigest()[:32]


async def _keep_session(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is. memproxy leaves no session state on a pooled one (no ``SET``,
    ``LISTEN`` or session-level advisory lock, no cursor outside a transaction), and asyncpg still rolls back an
    open transaction first. asyncpg's default reset query was a round trip on every release: two per request of a
    new conversation, about 190 µs each on a loaded machine."""


# A NUL character, as JSON writes it (``\u0000``, not preceded by an escaping backslash). PostgreSQL's jsonb and
# text refuse NUL; a `cat` of a binary file puts one in a tool output.
_JSON_NUL = re.compile(r"(?<!\\)((?:\\\\)*)\\u0000")


def jsonb_text(value: Any) -> str:
    """A value as jsonb takes it: JSON, each NUL in a string replaced by U+FFFD (the replacement character)."""
    text = orjson.dumps(value).decode()
    return _JSON_NUL.sub(r"\1\\ufffd", text) if "\\u0000" in text else text


def without_nul(text: str) -> str:
    """A text column's value: PostgreSQL refuses NUL, so it becomes U+FFFD."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", schema="pg_catalog", encoder=jsonb_text, decoder=orjson.loads)


class Database:
    def __init__(
        self,
        dsn: str,
        *,
        max_size: int = 10,
        connect_timeout_s: float = 5.0,
        command_timeout_s: float = 10.0,
    ) -> None:
        self.dsn = dsn
        self.max_size = max_size
        self.connect_timeout_s = connect_timeout_s
        self.command_timeout_s = command_timeout_s
        self.epoch = 0  # bumped whenever the listener stops or starts: caches verified before are not trusted
        self.migrated: list[str] = []  # what this process's start applied (tests: migrations run once)
        self._pool: asyncpg.Pool | None = None
        self._starting: asyncio.Future[None] | None = None
        self._users = 0
        self._subscribers: dict[str, list[Notified]] = {}
        self._listener: asyncpg.Connection | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._closing = False

    # -- lifetime -------------------------------------------------------------------------------------------

    def retain(self) -> None:
        """A backend uses this database: it stays open until every user has called ``release``."""
        self._users += 1

    async def release(self) -> None:
        self._users -= 1
        if self._users <= 0:
            await self.aclose()

    async def start(self) -> None:
        """Connect, migrate and listen, once per event loop; safe to call from many tasks at once."""
        if self._pool is not None:
            return
        if self._starting is None or self._starting.done():  # not started, or the last attempt failed
            self._starting = asyncio.ensure_future(self._start())
            self._starting.add_done_callback(_retrieved)
        # Shielded: a caller that stops waiting (a request's deadline) leaves the start to finish for the next.
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        self._closing = False
        try:
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=1,
                max_size=self.max_size,
                timeout=self.connect_timeout_s,
                command_timeout=self.command_timeout_s,
                init=_init_connection,
                reset=_keep_session,
            )
        except DRIVER_ERRORS as exc:
            raise unavailable(exc) from exc
        except ValueError as exc:  # a malformed DSN
            raise StoreUnavailable(f"store.dsn is not a PostgreSQL connection string: {exc}") from exc
        try:
            async with pool.acquire() as conn:
                self.migrated = await migrate(conn)
            if self._subscribers:
                await self._listen()
        except BaseException as exc:
            pool.terminate()
            if isinstance(exc, DRIVER_ERRORS):
                raise unavailable(exc) from exc
            raise
        self._pool = pool

    async def aclose(self) -> None:
        self._closing = True
        if self._starting is not None:
            with contextlib.suppress(Exception):
                await self._starting
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
            self._reconnecting = None
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(*DRIVER_ERRORS):
                await listener.close(timeout=self.connect_timeout_s)
        pool, self._pool = self._pool, None
        if pool is not None:
            try:
                await asyncio.wait_for(pool.close(), self.connect_timeout_s)
            except (*DRIVER_ERRORS, asyncio.CancelledError):
                pool.terminate()
        self.epoch += 1

    # -- queries --------------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; any driver error in the body or in getting it is a :class:`StoreUnavailable`."""
        await self.start()
        assert self._pool is not None
        try:
            # Timed here, not by asyncpg: its timeout runs every acquire in a task of its own (wait_for).
            async with asyncio.timeout(self.connect_timeout_s):
                conn = await self._pool.acquire()
            try:
                yield conn
            finally:
                await self._pool.release(conn)
        except asyncpg.DataError as exc:  # this value, not the database: trying again changes nothing
            raise UnstorableInput(f"the PostgreSQL store refused a value: {type(exc).__name__}") from exc
        except DRIVER_ERRORS as exc:
            raise unavailable(exc) from exc

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.connection() as conn, conn.transaction():
            yield conn

    # -- notifications --------------------------------------------------------------------------------------

    def subscribe(self, kind: str, notified: Notified) -> None:
        """Call ``notified(tag, version)`` for every change of ``kind`` any process commits from now on."""
        self._subscribers.setdefault(kind, []).append(notified)
        if self._pool is not None and self._listener is None and self._reconnecting is None:
            self._reconnecting = asyncio.ensure_future(self._relisten())

    def unsubscribe(self, kind: str, notified: Notified) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._subscribers[kind].remove(notified)

    @property
    def listening(self) -> bool:
        return self._listener is not None and not self._listener.is_closed()

    def trusts(self, epoch: int) -> bool:
        """A cache verified at ``epoch`` has heard of every change since: the listener has been up all along."""
        return epoch == self.epoch and self.listening

    async def _listen(self) -> None:
        conn = await asyncpg.connect(self.dsn, timeout=self.connect_timeout_s)
        try:
            await conn.add_listener(CHANNEL, self._on_notification)
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._on_lost)
        self._listener = conn
        self.epoch += 1

    def _on_notification(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        kind, _, rest = payload.partition(":")
        tag, _, version = rest.partition(":")
        try:
            number = int(version)
        except ValueError:
            return
        for notified in list(self._subscribers.get(kind, ())):
            try:
                notified(tag, number)
            except Exception:  # noqa: BLE001 - one subscriber's bug must not starve the others
                log.exception("a change notification could not be handled")

    def _on_lost(self, conn: Any) -> None:
        if conn is not self._listener:
            return
        self._listener = None
        self.epoch += 1
        if not self._closing:
            log.warning("lost the PostgreSQL change listener; reconnecting (caches are checked until then)")
            self._reconnecting = asyncio.ensure_future(self._relisten())

    async def _relisten(self) -> None:
        attempt = 0
        try:
            while not self._closing:
                try:
                    await self._listen()
                    log.info("PostgreSQL change listener reconnected")
                    return
                except DRIVER_ERRORS:
                    await asyncio.sleep(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)])
                    attempt += 1
        finally:
            self._reconnecting = None


def _retrieved(future: asyncio.Future[None]) -> None:
    """A failed start nobody waits for any more is not an error to report: the next caller tries again."""
    if not future.cancelled():
        future.exception()


async def migrate(conn: asyncpg.Connection) -> list[str]:
    """Apply the migrations this database lacks, in order, once across every process; returns their names."""
    known = [name for name, _ in MIGRATIONS]
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " name text PRIMARY KEY,"
            " applied_at timestamptz NOT NULL DEFAULT now(),"
            " applied_by text NOT NULL)"
        )
        applied = {row["name"] for row in await conn.fetch("SELECT name FROM schema_migrations")}
        unknown = sorted(applied - set(known))
        if unknown:
            raise StoreUnavailable(
                f"the PostgreSQL schema has migration {unknown[-1]}, newer than this memproxy knows "
                f"(up to {known[-1]}): upgrade memproxy"
            )
        ran = []
        for name, sql in MIGRATIONS:
            if name in applied:
                continue
            await conn.execute(sql)
            await conn.execute(
                "INSERT INTO schema_migrations (name, applied_by) VALUES ($1, $2)",
                name,
                f"{socket.gethostname()}:{os.getpid()}",
            )
            ran.append(name)
    if ran:
        log.info("PostgreSQL schema migrated: %s", ", ".join(ran))
    return ran
