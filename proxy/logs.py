"""Logging that never writes a credential: every record is redacted before it is formatted out or shown."""

from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import dataclass

from .scanning import redact

__all__ = ["LogEntry", "RecentProblems", "RedactingFilter", "configure_logging", "redact"]  # relay.py takes redact
RECENT = 50
MAX_MESSAGE_CHARS = 1000


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        return True


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.addFilter(RedactingFilter())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("proxy")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False


@dataclass(frozen=True, slots=True)
class LogEntry:
    at: float  # epoch seconds
    level: str  # WARNING | ERROR | CRITICAL
    logger: str
    message: str  # redacted, without a traceback


class _Kept:
    __slots__ = ("at", "level", "logger", "message", "entry")

    def __init__(self, at: float, level: str, logger: str, message: str) -> None:
        self.at, self.level, self.logger, self.message = at, level, logger, message
        self.entry: LogEntry | None = None  # redacted when first read


class RecentProblems(logging.Handler):
    """The last ``capacity`` WARNING-or-worse records of this process, for the store health an admin sees.

    Only the message is kept (never a traceback, which can quote locals), and it is redacted when first read, as
    history is: emitting stays a deque append, whatever the message.
    """

    def __init__(self, capacity: int = RECENT) -> None:
        super().__init__(logging.WARNING)
        self._kept: deque[_Kept] = deque(maxlen=capacity)
        self._reading = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record whose arguments do not fit its format still says something
            message = str(record.msg)
        self._kept.append(_Kept(record.created, record.levelname, record.name, message))

    def entries(self) -> list[LogEntry]:
        """Newest first."""
        with self._reading:
            found = []
            for kept in reversed(list(self._kept)):
                if kept.entry is None:
                    message = redact(kept.message)[:MAX_MESSAGE_CHARS]
                    kept.entry, kept.message = LogEntry(kept.at, kept.level, kept.logger, message), ""
                found.append(kept.entry)
            return found

    def attach(self, name: str = "proxy") -> None:
        logging.getLogger(name).addHandler(self)

    def detach(self, name: str = "proxy") -> None:
        logging.getLogger(name).removeHandler(self)
