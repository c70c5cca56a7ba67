"""The access log: one line per request, JSON by default, never a secret.

A line says who (a hash of the user, never the name), what (route, method, format, model, stream), how it ended
(status, the upstream's status and error) and how long each part took. It never carries a header, a body, a query
string or a key; what the client chose and the line shows (the model's name, a passed-through path) is redacted
first, once per distinct value. A line costs a dict and an ``orjson.dumps`` on the event loop; the write happens
in a thread (:class:`LineWriter`), batched, so a slow stdout never stalls a request.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from ..scanning import redact
from .exchange import Exchange

LEVELS = {"info": 20, "warning": 30, "off": 100}
MAX_SHOWN = 200  # characters of a client-chosen value (a model's name, a path)
MAX_CACHED = 4096  # distinct users, models and paths remembered with their hashed or redacted form
QUIET_ROUTES = frozenset({"/healthz", "/metrics"})  # probes and scrapes: logged only when they fail
_MILLIS = tuple(f".{n:03d}Z" for n in range(1000))  # a timestamp's tail, formatted once

Sink = Callable[[bytes], None]


def user_hash(user: str) -> str:
    """What the log says for a user: the same on every replica and after restarts, so one user's requests can be
    followed and matched against a name an operator already knows, while the log (shipped to places with wider
    access and longer retention than the store) never holds the name itself, often an e-mail address. Not a secret
    from someone who guesses names: the log stays an internal record."""
    return "u-" + hashlib.sha256(b"memproxy-user\0" + user.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _Shown:
    """A bounded memo of a function over client-chosen strings."""

    __slots__ = ("_of", "_known")

    def __init__(self, of: Callable[[str], str]) -> None:
        self._of = of
        self._known: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        found = self._known.get(value)
        if found is None:
            if len(self._known) >= MAX_CACHED:
                self._known.clear()
            found = self._known[value] = self._of(value)
        return found


def _shown(value: str) -> str:
    return redact(value[:MAX_SHOWN])


class AccessLog:
    """``level``: ``info`` logs every request, ``warning`` only failed ones (a 5xx, an upstream error or timeout),
    ``off`` none. ``format``: ``json`` lines or ``text``. Lines go to ``sink`` (none: nothing is logged)."""

    def __init__(self, level: str = "info", format: str = "json", sink: Sink | None = None) -> None:
        self.threshold = LEVELS[level]
        self.text = format == "text"
        self.sink = sink
        self.user = _Shown(user_hash)  # a user's hash, memoised
        self._model = _Shown(_shown)
        self._path = _Shown(_shown)
        self._second = -1
        self._stamp = ""

    @property
    def on(self) -> bool:
        return self.sink is not None and self.threshold < LEVELS["off"]

    def log(
        self, exchange: Exchange, method: str, path: str, total: int, first_byte: int, upstream: int | None
    ) -> None:
        warning = exchange.status >= 500 or exchange.upstream_error is not None
        if (30 if warning else 20) < self.threshold or self.sink is None:
            return
        if exchange.route in QUIET_ROUTES and not warning:
            return
        line: dict[str, Any] = {
            "ts": self._now(),
            "level": "warning" if warning else "info",
            "request_id": exchange.request_id,
            "method": method,
            "route": exchange.route,
            "format": exchange.format,
            "status": exchange.status,
            "stream": exchange.stream,
            "duration_ms": total // 1000 / 1000,  # milliseconds to the microsecond (round() costs 1.5 us a call)
            "ttfb_ms": first_byte // 1000 / 1000,
        }
        if exchange.route == "passthrough":
            line["path"] = self._path(path)
        if upstream is not None:
            line["upstream_ms"] = upstream // 1000 / 1000
            line["proxy_ms"] = (total - upstream) // 1000 / 1000
            line["upstream_status"] = exchange.upstream_status or None
            if exchange.upstream_request_id is not None:
                line["upstream_request_id"] = exchange.upstream_request_id
        if exchange.upstream_error is not None:
            line["upstream_error"] = exchange.upstream_error
        if exchange.user is not None:
            line["user"] = self.user(exchange.user)
        model = exchange.model
        if isinstance(model, str):
            line["model"] = self._model(model)
        if exchange.format in ("chat", "responses", "messages"):
            line["hops"] = exchange.hops
            line["injected"] = exchange.injected
        self.sink(self._text(line) if self.text else orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))

    def _now(self) -> str:
        """UTC, to the millisecond; the seconds part formatted once a second."""
        now = time.time()
        second = int(now)
        if second != self._second:
            self._second, self._stamp = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return self._stamp + _MILLIS[int((now - second) * 1000)]

    @staticmethod
    def _text(line: dict[str, Any]) -> bytes:
        head = " ".join(str(line.pop(key)) for key in ("ts", "level", "method", "route", "status"))
        rest = " ".join(f"{key}={value}" for key, value in line.items() if value is not None)
        return f"{head} {rest}\n".encode()


class LineWriter:
    """Writes lines to a file descriptor from a thread of its own, a batch every ``interval_s``: the event loop only
    appends to a deque. Past ``max_pending`` lines waiting (the output stalled), new ones are dropped and counted
    (``dropped``): a request never waits for the log."""

    def __init__(self, fd: int = 1, *, interval_s: float = 0.05, max_pending: int = 100_000) -> None:
        self.fd = fd
        self.interval_s = interval_s
        self.max_pending = max_pending
        self.dropped = 0
        self._pending: deque[bytes] = deque()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memproxy-access-log", daemon=True)
        self._thread.start()

    def __call__(self, line: bytes) -> None:
        if len(self._pending) >= self.max_pending:
            self.dropped += 1
            return
        self._pending.append(line)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.flush()
        self.flush()

    def flush(self) -> None:
        pending = self._pending
        if not pending:
            return
        batch = []
        while pending:
            batch.append(pending.popleft())  # deque's popleft and append are safe across threads
        data = memoryview(b"".join(batch))
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError:
            self.dropped += len(batch)

    def close(self) -> None:
        """Writes what waits, then stops the thread."""
        self._stop.set()
        self._thread.join(timeout=5)
