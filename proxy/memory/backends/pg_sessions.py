"""Sessions' state in PostgreSQL, so replicas behind a load balancer serve one session alike (:mod:`..session_state`).

Each write notifies ``session:<tag>:<version>`` (or ``kept:<tag>:0``) in its transaction. A replica trusts the
working copy it read or wrote at version ``v`` until a notification announces a newer one, or its listener was
down since (``Database.trusts``); then its next request of that session reads the row again. Rows expire
``ttl_s`` after their last write (a replica still using a session rewrites it when half of that has passed);
expired rows are ignored on read and deleted by a later write (at most once a minute per process).

Provenance has two tables of its own (:mod:`..session_state`): ``session_taint``, the untrusted sources each tainted
session took in (a write adds to them, in one statement), and ``chain_links``, which session an untrusted session's
answer continues; both kept ``TRUST_TTL_S`` after their last write, read by any replica that lacks them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import orjson

from ..session_state import TRUST_TTL_S, SessionKey, State, clean_sources
from ..store import Owner
from .pg_owners import owner_key
from .postgres import CHANNEL, Database, tag_of, without_nul

MAX_TRACKED = 10_000
SWEEP_S = 60.0  # expired rows are deleted by a write at most this often: each sweep was a round trip of its own
SESSION_KIND = "session"
KEPT_KIND = "kept"


def _key(owner: tuple[str, str]) -> str:
    return owner_key(Owner(owner[0], owner[1]))


def _tag(owner: tuple[str, str], session: str) -> str:
    return tag_of(orjson.dumps([owner[0], owner[1], session]).decode())


class PostgresSessionState:
    shared = True

    def __init__(self, database: Database, ttl_s: float) -> None:
        self.db = database
        self.ttl_s = ttl_s
        self._known: OrderedDict[str, tuple[int, int, float]] = OrderedDict()  # tag -> (version, epoch, written at)
        self._announced: OrderedDict[str, None] = OrderedDict()  # tags of sessions with turns kept elsewhere
        self._tags: dict[SessionKey, str] = {}
        self._swept = 0.0  # when this process last deleted expired rows
        self._trust_swept = 0.0  # ... of the provenance tables
        database.retain()
        database.subscribe(SESSION_KIND, self._session_notified)
        database.subscribe(KEPT_KIND, self._kept_notified)

    # -- blocks and notes -----------------------------------------------------------------------------------

    def fresh(self, key: SessionKey) -> bool:
        known = self._known.get(self._tag_of(key))
        if known is None or not self.db.trusts(known[1]):
            return False
        return time.time() - known[2] < self.ttl_s / 2  # else read (and rewrite) it before it expires

    async def get(self, key: SessionKey) -> State | None:
        tag, epoch = self._tag_of(key), self.db.epoch
        async with self.db.connection() as conn:
            row = await conn.fetchrow(
                "SELECT version, state, expires_at FROM session_state"
                " WHERE owner_key = $1 AND session = $2 AND expires_at > $3",
                _key((key[0], key[1])),
                key[2],
                time.time(),
            )
        if row is None:
            self._known.pop(tag, None)
            return None
        written = row["expires_at"] - self.ttl_s
        self._note(tag, row["version"], epoch, written)
        state: State = row["state"]
        return state

    async def put(self, key: SessionKey, state: State) -> None:
        """One statement, so one round trip (a transaction of a sweep, the write and the notification took five): a
        new conversation's first request writes it while the upstream works, and its answer waits for it."""
        tag, epoch, now = self._tag_of(key), self.db.epoch, time.time()
        async with self.db.connection() as conn:
            if now - self._swept >= SWEEP_S:
                self._swept = now
                await conn.execute("DELETE FROM session_state WHERE expires_at < $1", now)
            version = await conn.fetchval(
                "WITH written AS ("
                " INSERT INTO session_state (owner_key, session, version, state, expires_at)"
                " VALUES ($1, $2, 1, $3, $4)"
                " ON CONFLICT (owner_key, session) DO UPDATE"
                " SET version = session_state.version + 1, state = $3, expires_at = $4"
                " RETURNING version)"
                " SELECT version, pg_notify($5::text, $6::text || version::text) FROM written",
                _key((key[0], key[1])),
                key[2],
                state,
                now + self.ttl_s,
                CHANNEL,
                f"{SESSION_KIND}:{tag}:",
            )
        self._note(tag, version, epoch, now)

    # -- kept turns -----------------------------------------------------------------------------------------

    def announced(self, owner: tuple[str, str], session: str) -> bool:
        return _tag(owner, session) in self._announced

    async def kept_turns(self, owner: tuple[str, str], session: str) -> dict[str, Any]:
        self._announced.pop(_tag(owner, session), None)  # before reading: a turn kept meanwhile announces again
        async with self.db.connection() as conn:
            rows = await conn.fetch(
                "SELECT call_id, turn FROM kept_turns WHERE owner_key = $1 AND session = $2 AND expires_at > $3",
                _key(owner),
                session,
                time.time(),
            )
        return {row["call_id"]: row["turn"] for row in rows}

    async def keep_turn(self, owner: tuple[str, str], session: str, call_ids: list[str], turn: Any) -> None:
        now = time.time()
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM kept_turns WHERE expires_at < $1", now)
            await conn.executemany(
                "INSERT INTO kept_turns (owner_key, session, call_id, turn, expires_at) VALUES ($1, $2, $3, $4, $5)"
                " ON CONFLICT (owner_key, session, call_id) DO UPDATE SET turn = $4, expires_at = $5",
                [(_key(owner), session, without_nul(call_id), turn, now + self.ttl_s) for call_id in call_ids],
            )
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{KEPT_KIND}:{_tag(owner, session)}:0")

    # -- provenance -----------------------------------------------------------------------------------------

    async def add_taint(self, owner: tuple[str, str], session: str, sources: Sequence[str]) -> None:
        async with self.db.connection() as conn:
            await self._sweep_trust(conn)
            await conn.execute(
                "INSERT INTO session_taint (owner_key, session, sources, expires_at) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (owner_key, session) DO UPDATE SET expires_at = $4, sources = ("
                "  SELECT jsonb_agg(DISTINCT source ORDER BY source)"
                "  FROM jsonb_array_elements_text(session_taint.sources || EXCLUDED.sources) AS source)",
                _key(owner),
                session,
                clean_sources(sources),
                time.time() + TRUST_TTL_S,
            )

    async def taint(self, owner: tuple[str, str], session: str) -> tuple[str, ...]:
        async with self.db.connection() as conn:
            sources = await conn.fetchval(
                "SELECT sources FROM session_taint WHERE owner_key = $1 AND session = $2 AND expires_at > $3",
                _key(owner),
                session,
                time.time(),
            )
        return tuple(str(source) for source in sources) if isinstance(sources, list) else ()

    async def put_link(self, owner: tuple[str, str], response_id: str, link: dict[str, Any]) -> None:
        async with self.db.connection() as conn:
            await self._sweep_trust(conn)
            await conn.execute(
                "INSERT INTO chain_links (owner_key, response_id, link, expires_at) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (owner_key, response_id) DO UPDATE SET link = $3, expires_at = $4",
                _key(owner),
                response_id.replace("\x00", ""),
                link,
                time.time() + TRUST_TTL_S,
            )

    async def get_link(self, owner: tuple[str, str], response_id: str) -> dict[str, Any] | None:
        async with self.db.connection() as conn:
            link = await conn.fetchval(
                "SELECT link FROM chain_links WHERE owner_key = $1 AND response_id = $2 AND expires_at > $3",
                _key(owner),
                response_id.replace("\x00", ""),
                time.time(),
            )
        return link if isinstance(link, dict) else None

    async def _sweep_trust(self, conn: Any) -> None:
        now = time.time()
        if now - self._trust_swept >= SWEEP_S:
            self._trust_swept = now
            await conn.execute("DELETE FROM session_taint WHERE expires_at < $1", now)
            await conn.execute("DELETE FROM chain_links WHERE expires_at < $1", now)

    # -- forgetting -----------------------------------------------------------------------------------------

    async def count(self, owner: tuple[str, str]) -> tuple[int, int]:
        async with self.db.connection() as conn:
            row = await conn.fetchrow(
                "SELECT (SELECT count(*) FROM session_state WHERE owner_key = $1) AS sessions,"
                " (SELECT count(*) FROM kept_turns WHERE owner_key = $1) AS kept",
                _key(owner),
            )
        return int(row["sessions"]), int(row["kept"])

    async def forget(self, owner: tuple[str, str]) -> tuple[int, int]:
        async with self.db.transaction() as conn:
            sessions = await conn.fetch(
                "DELETE FROM session_state WHERE owner_key = $1 RETURNING session, version", _key(owner)
            )
            kept = await conn.execute("DELETE FROM kept_turns WHERE owner_key = $1", _key(owner))
            await conn.execute("DELETE FROM session_taint WHERE owner_key = $1", _key(owner))
            await conn.execute("DELETE FROM chain_links WHERE owner_key = $1", _key(owner))
            for row in sessions:
                tag = _tag(owner, row["session"])
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{SESSION_KIND}:{tag}:{row['version'] + 1}")
        return len(sessions), int(kept.rsplit(" ", 1)[-1])

    async def aclose(self) -> None:
        self.db.unsubscribe(SESSION_KIND, self._session_notified)
        self.db.unsubscribe(KEPT_KIND, self._kept_notified)
        await self.db.release()

    # -- bookkeeping ----------------------------------------------------------------------------------------

    def _tag_of(self, key: SessionKey) -> str:
        tag = self._tags.get(key)
        if tag is None:
            if len(self._tags) >= MAX_TRACKED:
                self._tags.clear()
            tag = self._tags[key] = _tag((key[0], key[1]), key[2])
        return tag

    def _note(self, tag: str, version: int, epoch: int, written: float) -> None:
        self._known[tag] = (version, epoch, written)
        self._known.move_to_end(tag)
        while len(self._known) > MAX_TRACKED:
            self._known.popitem(last=False)

    def _session_notified(self, tag: str, version: int) -> None:
        known = self._known.get(tag)
        if known is not None and version > known[0]:
            del self._known[tag]  # another replica changed it: the next request reads it again

    def _kept_notified(self, tag: str, version: int) -> None:
        self._announced[tag] = None
        self._announced.move_to_end(tag)
        while len(self._announced) > MAX_TRACKED:
            self._announced.popitem(last=False)
