"""Details: large tool outputs the proxy took out of what goes upstream (docs/context.md, offload).

A detail belongs to one owner (a user in a workspace). Its id is content-addressed, ``r-`` and a hash of the
owner and the output, so the same output in the same place always gets the same id, and so the same
placeholder upstream (the provider's prompt cache keeps hitting), while two users never share one. It keeps
the tool's name and arguments (from the matching call) and, when that tool brings outside content in, that it
is untrusted: whoever reads it back is told so. Secrets are redacted before a detail is built (the caller's
job: this module does no scanning).

:class:`DetailStore` is the storage contract; the backends are ``backends/detail_files.py`` and
``backends/pg_details.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from .provenance import strings
from .records import format_ts, parse_ts
from .store import Owner

# Ids become file names, so only this shape is accepted from a model, from disk or by a store.
DETAIL_ID = re.compile(r"r-[0-9a-f]{16}")


def detail_id(owner: Owner, content: str) -> str:
    """The same output in the same place, the same id; JSON-encoded, so no separator can be forged."""
    key = orjson.dumps([owner.user, owner.workspace, content])
    return "r-" + hashlib.sha256(key).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Detail:
    id: str
    tool: str  # the tool whose output it is ("" when its call was not in the conversation)
    arguments: str  # the call's arguments as the model sent them (redacted)
    content: str  # the output (redacted)
    created_at: float
    untrusted: bool = False  # the tool brings outside content in (not on extraction.trusted_tools, or out of sight)
    sources: tuple[str, ...] = ()
    session: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "arguments": self.arguments,
            "content": self.content,
            "created_at": format_ts(self.created_at),
            "untrusted": self.untrusted,
            "sources": list(self.sources),
            "session": self.session,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Detail:
        """A stored detail; ValueError for anything malformed (messages never quote the content)."""
        if not isinstance(obj, Mapping):
            raise ValueError("a detail must be a JSON object")
        ident = obj.get("id")
        if not isinstance(ident, str) or not DETAIL_ID.fullmatch(ident):
            raise ValueError("id must look like r-<16 hex digits>")
        texts = [obj.get(key) for key in ("tool", "arguments", "content", "created_at")]
        if not all(isinstance(text, str) for text in texts):
            raise ValueError("tool, arguments, content and created_at must be strings")
        untrusted, session = obj.get("untrusted"), obj.get("session")
        if not isinstance(untrusted, bool):
            raise ValueError("untrusted must be a boolean")  # never read as trusted by default
        if session is not None and not isinstance(session, str):
            raise ValueError("session must be a string")
        return cls(
            ident,
            obj["tool"],
            obj["arguments"],
            obj["content"],
            parse_ts(obj["created_at"]),
            untrusted,
            strings(obj, "sources", "sources"),
            session,
        )


class DetailStore(Protocol):
    """Async storage of details per owner. Every method may raise :class:`~proxy.errors.StoreUnavailable`."""

    async def put(self, owner: Owner, details: list[Detail]) -> None:
        """Store new details durably before returning; one already there under its id is left as it is."""
        ...

    async def get(self, owner: Owner, detail_id: str) -> Detail | None: ...

    async def count(self, owner: Owner) -> int: ...

    async def forget(self, owner: Owner) -> int:
        """Delete every detail of the owner; returns how many there were."""
        ...

    async def aclose(self) -> None: ...
