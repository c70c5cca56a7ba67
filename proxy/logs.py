"""Logging that never writes a credential: every record is redacted before it is formatted out."""

from __future__ import annotations

import logging

from .scanning import redact

__all__ = ["RedactingFilter", "configure_logging", "redact"]  # relay.py imports redact from here


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
