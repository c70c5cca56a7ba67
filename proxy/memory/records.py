"""What a memory is: the frozen record every backend stores, and the checks a new one must pass.

The line format is ``id``, ``scope``, ``text``, ``tags``, ``ts`` (docs/storage.md), extended with
``category``, ``source``, ``confidence``, ``superseded_by``, ``use_count``, ``last_used`` and the
``session`` it was saved in (so memories of one conversation can lend each other weight), and with where it
came from: its ``origin`` and its provenance's ``untrusted``, ``sources`` and ``user_approved``
(:mod:`proxy.memory.provenance`), and whether it is ``pinned`` (a profile or workspace fact: always in the block,
:mod:`proxy.memory.pins`). ``injected_count`` and ``last_injected`` say how many sessions' blocks or notes carried
it and when one last did: bookkeeping, like the use counts, written in batches off the request path.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import MemoryRejected
from ..scanning import scan
from .provenance import TRUSTED, Provenance
from .versions import CHANGES, Actor

CATEGORIES = ("preference", "pattern", "correction", "fact", "instruction", "convention")
SCOPES = ("workspace", "user", "session", "global")
PIN_SCOPES = ("user", "workspace")  # the user's profile and the workspace's environment (docs/pinned.md)
# How sure we are of a memory, by how it was learned; `extracted` comes from episode extraction.
CONFIDENCE_BY_SOURCE = {"explicit": 1.0, "corrected": 0.9, "inferred": 0.7, "extracted": 0.6}
MAX_TEXT_CHARS = 500
MAX_TAGS = 5
MAX_TAG_CHARS = 50
MAX_SESSION_CHARS = 200  # as the X-Memory-Session header
MAX_CLOCK_SKEW_S = 86400.0  # an imported `ts` may be this far ahead of our clock, no further
MEMORY_ID = re.compile(r"m-([0-9]{1,20})")  # ASCII digits only: "m-²" passes str.isdigit() but not int()


@dataclass(frozen=True, slots=True)
class Embedding:
    """A memory's vectors from ``memory.embeddings.model`` (:mod:`.embeddings`): unit length, float16 little-endian,
    its whole text's first, then one per sentence when it has several (:mod:`.embedding_pieces`).

    Stored with the memory as base64 (768 bytes a vector for a 384-wide model, 1 KB on disk) and named by its model,
    so a memory embedded by another model is embedded again rather than compared across models. A memory embedded
    as one vector before its sentences were (or with one sentence) reads as its whole text alone.
    """

    model: str
    vector: bytes

    def to_json(self) -> dict[str, str]:
        return {"model": self.model, "f16": base64.b64encode(self.vector).decode("ascii")}

    @classmethod
    def from_json(cls, obj: Any) -> Embedding | None:
        """None for anything malformed: an embedding can always be computed again, a memory line is never lost."""
        if not isinstance(obj, Mapping) or not isinstance(obj.get("model"), str) or not isinstance(obj.get("f16"), str):
            return None
        try:
            vector = base64.b64decode(obj["f16"], validate=True)
        except (binascii.Error, ValueError):
            return None
        return cls(obj["model"], vector) if vector and len(vector) % 2 == 0 else None


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    text: str
    scope: str = "workspace"
    tags: tuple[str, ...] = ()
    category: str = "fact"
    source: str = "explicit"
    confidence: float = 1.0
    created: float = 0.0  # epoch seconds, `ts` on disk
    session: str | None = None
    superseded_by: str | None = None
    use_count: int = 0
    last_used: float | None = None
    origin: str = "api"
    provenance: Provenance = TRUSTED
    embedding: Embedding | None = None
    pinned: bool = False
    version: int = 1  # bumped by every change (:mod:`.versions`), never by a use count or an embedding
    change: str = "created"  # what made this version
    changed: float | None = None  # when; None: when it was created
    actor: Actor | None = None  # who; None: the writer its origin stands for (records from before versions)
    injected_count: int = 0  # sessions whose block or notes carried it: bookkeeping, never a version
    last_injected: float | None = None

    @property
    def changed_at(self) -> float:
        return self.created if self.changed is None else self.changed

    @property
    def changed_by(self) -> Actor:
        return self.actor if self.actor is not None else Actor.of_origin(self.origin, session=self.session)

    @property
    def live(self) -> bool:
        return self.superseded_by is None

    @property
    def held(self) -> bool:
        """Written by an untrusted session, or its text only looks safe (a ``reason`` the scanner held it for), and
        not approved yet: never injected, searched or superseding."""
        return self.provenance.held

    @property
    def number(self) -> int:
        """The n of ``m-<n>``: ids sort by it within one process."""
        match = MEMORY_ID.fullmatch(self.id)
        return int(match.group(1)) if match else 0

    def to_json(self, *, stored: bool = False) -> dict[str, Any]:
        """The memory as JSON. The stores' line (``stored=True``) adds its ``embedding`` and what made its version
        (``change``, ``changed``, ``actor``); API answers, tool results and exports leave those out (an import
        embeds again, and starts a history of its own) and say instead whether it is ``held``."""
        line = {
            "id": self.id,
            "scope": self.scope,
            "text": self.text,
            "tags": list(self.tags),
            "ts": format_ts(self.created),
            "category": self.category,
            "source": self.source,
            "confidence": self.confidence,
            "session": self.session,
            "superseded_by": self.superseded_by,
            "use_count": self.use_count,
            "last_used": None if self.last_used is None else format_ts(self.last_used),
            "origin": self.origin,
            **self.provenance.to_json(),
            "reason": self.provenance.reason,
            "pinned": self.pinned,
            "version": self.version,
            "injected_count": self.injected_count,
            "last_injected": None if self.last_injected is None else format_ts(self.last_injected),
        }
        if not stored:
            line["held"] = self.held
            return line
        if self.embedding is not None:
            line["embedding"] = self.embedding.to_json()
        if self.change != "created":
            line["change"] = self.change
        if self.changed is not None:
            line["changed"] = format_ts(self.changed)
        if self.actor is not None:
            line["actor"] = self.actor.to_json()
        return line

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Memory:
        """Read a stored line: lenient about missing extension fields, strict about types (ValueError)."""
        if not isinstance(obj, Mapping):
            raise ValueError("a memory line must be a JSON object")
        source = _text(obj, "source") or "explicit"
        confidence = obj.get("confidence")
        if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, int | float)):
            raise ValueError("confidence must be a number")
        tags = obj.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            raise ValueError("tags must be a list of strings")
        use_count = obj.get("use_count") or 0
        if isinstance(use_count, bool) or not isinstance(use_count, int):
            raise ValueError("use_count must be an integer")
        last_used = obj.get("last_used")
        injected_count = obj.get("injected_count") or 0
        if isinstance(injected_count, bool) or not isinstance(injected_count, int):
            raise ValueError("injected_count must be an integer")
        last_injected = obj.get("last_injected")
        pinned = obj.get("pinned", False)
        if not isinstance(pinned, bool):
            raise ValueError("pinned must be a boolean")
        version = obj.get("version", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ValueError("version must be a whole number from 1")
        change = obj.get("change", "created")
        if change not in CHANGES:
            raise ValueError(f"change must be one of {', '.join(CHANGES)}")
        changed = obj.get("changed")
        actor = obj.get("actor")
        memory_id, text = _text(obj, "id"), _text(obj, "text")
        if memory_id is None or text is None:
            raise ValueError("id and text are required")
        if not MEMORY_ID.fullmatch(memory_id):
            raise ValueError("id must be m-<n> in ASCII digits")
        return cls(
            id=memory_id,
            text=text,
            scope=_text(obj, "scope") or "workspace",
            tags=tuple(tags),
            category=_text(obj, "category") or "fact",
            source=source,
            confidence=float(confidence) if confidence is not None else CONFIDENCE_BY_SOURCE.get(source, 1.0),
            created=parse_ts(obj.get("ts")),
            session=_text(obj, "session"),
            superseded_by=_text(obj, "superseded_by"),
            use_count=use_count,
            last_used=parse_ts(last_used) if last_used is not None else None,
            origin=_text(obj, "origin") or "api",  # lines from before origins were recorded: see ORIGINS
            provenance=Provenance.of_memory(obj),
            embedding=Embedding.from_json(obj.get("embedding")),
            pinned=pinned,
            version=version,
            change=change,
            changed=parse_ts(changed) if changed is not None else None,
            actor=Actor.from_json(actor) if actor is not None else None,
            injected_count=injected_count,
            last_injected=parse_ts(last_injected) if last_injected is not None else None,
        )

    def used(self, now: float) -> Memory:
        return replace(self, use_count=self.use_count + 1, last_used=now)


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A checked, scanned memory waiting for its id."""

    text: str
    scope: str = "workspace"
    tags: tuple[str, ...] = ()
    category: str = "fact"
    source: str = "explicit"
    confidence: float = 1.0
    session: str | None = None
    created: float | None = None  # kept on import; now otherwise
    origin: str = "api"
    provenance: Provenance = TRUSTED
    embedding: Embedding | None = None  # computed before the write when embeddings are on
    pinned: bool = False
    actor: Actor | None = None  # who wrote it (None: the writer its origin stands for)

    def stored_as(self, memory_id: str, now: float) -> Memory:
        return Memory(
            id=memory_id,
            text=self.text,
            scope=self.scope,
            tags=self.tags,
            category=self.category,
            source=self.source,
            confidence=self.confidence,
            created=self.created if self.created is not None else round(now, 3),  # the precision of `ts`
            session=self.session,
            origin=self.origin,
            provenance=self.provenance,
            embedding=self.embedding,
            pinned=self.pinned,
            changed=None if self.created is None else round(now, 3),  # an import's: its own time, stored now
            actor=self.actor,
        )


def check_draft(
    fields: Mapping[str, Any],
    *,
    session: str | None = None,
    imported: bool = False,
    now: float | None = None,
    origin: str = "api",
    provenance: Provenance = TRUSTED,
) -> MemoryDraft:
    """Validate and scan what a client, a model or an import line wants stored; raise :class:`MemoryRejected`.

    A text (or tag) that is certainly a secret or an injection is refused; one that only looks like one (the
    scanner's suspect finding) makes a draft held for review, its provenance carrying the scanner's reason.
    ``origin`` and ``provenance`` are the writer's, stamped by the proxy: never read from ``fields``. An
    ``imported`` line (an export's) also brings its own ``session`` and ``ts``, and names its ``id`` and
    ``superseded_by`` for links; every field it carries is checked here, so nothing of a bad line is stored.
    """
    text = fields.get("text")
    if not isinstance(text, str) or not text.strip():
        raise MemoryRejected("'text' must be a non-empty string", param="text")
    text = text.strip()
    if len(text) > MAX_TEXT_CHARS:
        raise MemoryRejected(f"'text' is {len(text)} characters; the limit is {MAX_TEXT_CHARS}", param="text")
    tags = _check_tags(fields.get("tags"))
    scope = _one_of(fields, "scope", SCOPES, "workspace")
    category = _one_of(fields, "category", CATEGORIES, "fact")
    source = _one_of(fields, "source", tuple(CONFIDENCE_BY_SOURCE), "explicit")
    confidence = CONFIDENCE_BY_SOURCE[source]
    given = fields.get("confidence")
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, int | float) or not 0 <= given <= 1:
            raise MemoryRejected("'confidence' must be a number from 0 to 1", param="confidence")
        confidence = float(given)
    pinned = check_pinned(fields, scope)
    for part in (text, *tags):
        finding = scan(part)
        if finding is not None and finding.certain:
            raise MemoryRejected(finding.reason, param="text" if part is text else "tags")
        if finding is not None and (provenance.reason is None or part is text):
            provenance = provenance.flagged(finding.reason)
    if session is not None and not isinstance(session, str):  # an import line's own field: the index keys on it
        raise MemoryRejected("'session' must be a string", param="session")
    created = None
    if imported:
        session, created = _check_imported(fields, time.time() if now is None else now)
    return MemoryDraft(
        text, scope, tags, category, source, confidence, session, created, origin, provenance, pinned=pinned
    )


def check_pinned(fields: Mapping[str, Any], scope: str) -> bool:
    """``pinned`` (the record's name; ``pin`` as the model's tool says it): a boolean, and only where a pin lives."""
    given = fields.get("pinned")
    name = "pinned"
    if given is None:
        given, name = fields.get("pin"), "pin"
    if given is None:
        return False
    if not isinstance(given, bool):
        raise MemoryRejected(f"'{name}' must be true or false", param=name)
    if given and scope not in PIN_SCOPES:
        raise MemoryRejected(
            f"a pinned fact belongs to the user's profile (scope user) or the workspace's environment "
            f"(scope workspace), not scope {scope}",
            param="scope",
        )
    return given


def _check_imported(fields: Mapping[str, Any], now: float) -> tuple[str | None, float | None]:
    """The fields only an import line brings: its session and time, and the exported ones it must not garble."""
    session = fields.get("session")
    if session is not None and (
        not isinstance(session, str) or not 0 < len(session) <= MAX_SESSION_CHARS or not session.isprintable()
    ):
        raise MemoryRejected(f"'session' must be 1-{MAX_SESSION_CHARS} printable characters", param="session")
    for key in ("id", "superseded_by"):
        if fields.get(key) is not None and not isinstance(fields[key], str):
            raise MemoryRejected(f"'{key}' must be a string", param=key)
    for count in ("use_count", "injected_count"):
        value = fields.get(count)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise MemoryRejected(f"'{count}' must be a whole number from 0", param=count)
    created = _imported_time(fields, "ts", now)
    for when in ("last_used", "last_injected"):  # checked only: an imported memory's uses start afresh
        _imported_time(fields, when, now)
    return session, created


def _imported_time(fields: Mapping[str, Any], key: str, now: float) -> float | None:
    if fields.get(key) is None:
        return None
    try:
        when = parse_ts(fields[key])
    except ValueError as exc:
        raise MemoryRejected(f"'{key}' is not an ISO-8601 time: {exc}", param=key) from exc
    if when > now + MAX_CLOCK_SKEW_S:  # a memory from the future would never be the oldest, never pruned
        raise MemoryRejected(f"'{key}' is in the future: {fields[key]}", param=key)
    return when


def _check_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, list | tuple) or not all(isinstance(tag, str) for tag in tags):
        raise MemoryRejected("'tags' must be a list of strings", param="tags")
    cleaned = tuple(dict.fromkeys(tag.strip() for tag in tags if tag.strip()))
    if len(cleaned) > MAX_TAGS:
        raise MemoryRejected(f"at most {MAX_TAGS} tags, got {len(cleaned)}", param="tags")
    if any(len(tag) > MAX_TAG_CHARS for tag in cleaned):
        raise MemoryRejected(f"a tag is at most {MAX_TAG_CHARS} characters", param="tags")
    return cleaned


def _one_of(fields: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = fields.get(key)
    if value is None:
        return default
    if value not in allowed:
        raise MemoryRejected(f"'{key}' must be one of {', '.join(allowed)}; got {value!r}", param=key)
    return str(value)


def _text(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def format_ts(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_LAST_SECOND = 253402300799  # 9999-12-31T23:59:59Z, the last second format_ts can write
_second: tuple[int, str] = (-1, "")  # the whole second stamped last, as format_ts writes it (lines come in bursts)


def stamp(epoch: float) -> tuple[str, float]:
    """``epoch`` as it is stored and as it reads back: ``format_ts(epoch)`` and ``parse_ts`` of that, without the
    parse. The milliseconds are worked out as ``datetime.fromtimestamp`` rounds (to the microsecond, half to even,
    then cut), the date and time once per second: a history line's write cost twice as much through datetime."""
    if not 0 <= epoch < _LAST_SECOND:  # before 1970 or at the very end: the long way
        text = format_ts(epoch)
        return text, parse_ts(text)
    fraction, whole = math.modf(epoch)
    second, micro = int(whole), round(fraction * 1e6)
    if micro >= 1_000_000:
        second, micro = second + 1, micro - 1_000_000
    global _second
    cached = _second
    if cached[0] != second:
        cached = _second = (second, dt.datetime.fromtimestamp(second, dt.UTC).isoformat()[:19])
    milli = micro // 1000
    return f"{cached[1]}.{milli:03d}Z", (second * 1_000_000 + milli * 1000) / 1_000_000


def parse_ts(value: Any) -> float:
    """An ISO-8601 time (or epoch seconds) as epoch seconds; ValueError for anything else or out of range.

    Only times :func:`format_ts` can write back are accepted: one that parses but cannot be written
    (year 1 at +14:00 is year 0 in UTC) would fail every export and rewrite of its owner's file.
    """
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"not a time: {value!r}")
    try:
        if isinstance(value, str):
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=dt.UTC)
        else:
            parsed = dt.datetime.fromtimestamp(value, dt.UTC)
    except (OverflowError, OSError) as exc:
        raise ValueError(f"time out of range: {value!r}") from exc
    epoch = parsed.timestamp()
    try:
        format_ts(epoch)
    except (OverflowError, OSError, ValueError) as exc:
        raise ValueError(f"time out of range: {value!r}") from exc
    return epoch
