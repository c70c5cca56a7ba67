"""Logging that never writes a credential: every record is redacted before it is formatted out."""

from __future__ import annotations

import logging
import re

_SECRETS = re.compile(
    r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"
    r"|\b(sk-[A-Za-z0-9_-]{3})[A-Za-z0-9_-]{8,}"
    r"|\b((?:api[_-]?key|token|password|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',]{4,}"
)


def redact(text: str) -> str:
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + "[redacted]", text)


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
