"""Provenance that outlives a process in the files store: sessions' taints and untrusted sessions' chain links.

One append-only ``trust.jsonl`` per owner, beside their memories (``<root>/<owner_dir>/trust.jsonl``): a line
``{"taint": session, "sources": [...], "at": t}`` or ``{"link": response_id, "session", "chain", "called", "at"}``.
Writers append whole lines under the owner's ``trust.lock`` and fsync them before returning, so a taint is never
lost to a crash once the answer that brought it in has gone; readers take no lock and read the file again only when
its (inode, size, mtime) changed, so every process on the machine sees every other's lines. Lines older than
``TRUST_TTL_S`` are ignored, and dropped when a write finds the file past ``COMPACT_BYTES`` (rewritten to a temp
file and renamed over it). A line that does not parse is skipped. Only untrusted sessions write here, so the file
stays small; blocks and notes stay in each process's memory (:class:`InProcessSessionState`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ...errors import StoreUnavailable
from ..session_state import TRUST_TTL_S, InProcessSessionState, clean_sources
from ..store import Owner
from .durable import append_lines, fsync_dir, locked
from .files import owner_dir

T = TypeVar("T")
COMPACT_BYTES = 256 * 1024
MAX_CACHED = 1024  # owners whose file this process keeps parsed
_Stamp = tuple[int, int, int]


@dataclass(slots=True)
class _Parsed:
    stamp: _Stamp | None
    taints: dict[str, set[str]] = field(default_factory=dict)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)


class FilesSessionState(InProcessSessionState):
    """Blocks, notes and kept turns in this process's memory; taints and chain links in the owner's trust file."""

    def __init__(self, root: str | Path, ttl_s: float = TRUST_TTL_S) -> None:
        super().__init__()
        self.root = Path(root)
        self.ttl_s = ttl_s
        self._parsed: dict[Path, _Parsed] = {}
        self._lock = threading.Lock()  # the cache, between this process's file threads

    async def add_taint(self, owner: tuple[str, str], session: str, sources: Sequence[str]) -> None:
        line = {"taint": session, "sources": clean_sources(sources), "at": time.time()}
        await _in_thread(lambda: self._append(owner, line))

    async def taint(self, owner: tuple[str, str], session: str) -> tuple[str, ...]:
        parsed = await _in_thread(lambda: self._read(self._path(owner)))
        return tuple(sorted(parsed.taints.get(session, ())))

    async def put_link(self, owner: tuple[str, str], response_id: str, link: dict[str, Any]) -> None:
        line = {**link, "link": response_id, "at": time.time()}
        await _in_thread(lambda: self._append(owner, line))

    async def get_link(self, owner: tuple[str, str], response_id: str) -> dict[str, Any] | None:
        parsed = await _in_thread(lambda: self._read(self._path(owner)))
        return parsed.links.get(response_id)

    async def forget(self, owner: tuple[str, str]) -> tuple[int, int]:
        forgotten = await super().forget(owner)
        path = self._path(owner)

        def remove() -> None:
            with locked(path.with_name("trust.lock")), contextlib.suppress(FileNotFoundError):
                os.unlink(path)
                fsync_dir(path.parent)

        if path.parent.exists():
            await _in_thread(remove)
        return forgotten

    # -- the file -------------------------------------------------------------------------------------------

    def _path(self, owner: tuple[str, str]) -> Path:
        return self.root / owner_dir(Owner(owner[0], owner[1])) / "trust.jsonl"

    def _append(self, owner: tuple[str, str], line: dict[str, Any]) -> None:
        path = self._path(owner)
        with locked(path.with_name("trust.lock"), mkdir=True):
            created = not path.exists()
            append_lines(path, orjson.dumps(line) + b"\n")
            if created:
                fsync_dir(path.parent)
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path).st_size > COMPACT_BYTES:
                    self._compact(path)

    def _compact(self, path: Path) -> None:
        """Rewrite the file without its expired and unreadable lines (under the writers' lock)."""
        cutoff = time.time() - self.ttl_s
        kept = [line for line in path.read_bytes().splitlines() if (parsed := _line(line)) and parsed["at"] >= cutoff]
        temp = path.with_name(f"trust.jsonl.tmp-{os.getpid()}-{threading.get_ident()}")
        with open(temp, "wb") as out:
            out.write(b"".join(line + b"\n" for line in kept))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        fsync_dir(path.parent)

    def _read(self, path: Path) -> _Parsed:
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            return _Parsed(None)
        stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._parsed.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        parsed = _Parsed(stamp)
        cutoff = time.time() - self.ttl_s
        for raw in path.read_bytes().splitlines():
            line = _line(raw)
            if line is None or line["at"] < cutoff:
                continue
            if isinstance(line.get("taint"), str) and isinstance(line.get("sources"), list):
                parsed.taints.setdefault(line["taint"], set()).update(str(s) for s in line["sources"])
            elif isinstance(line.get("link"), str):
                parsed.links[line["link"]] = line
        with self._lock:
            if len(self._parsed) >= MAX_CACHED:
                self._parsed.clear()
            self._parsed[path] = parsed
        return parsed


def _line(raw: bytes) -> dict[str, Any] | None:
    try:
        line = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # a torn or hand-edited line: skipped, never fatal
    if not isinstance(line, dict) or not isinstance(line.get("at"), int | float):
        return None
    return line


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the session store failed: {exc.strerror or exc}") from exc
