"""Every change to a memory is a version: who made it, what it was, and the tags that name it on the wire.

A memory record carries its current version (``version``, ``change``, ``actor`` and when); the stores keep
the versions before it (and a tombstone for a deleted memory, so a delete can be undone) beside the
memories, written in the same write. :func:`history` settles what a store read into the list a person sees.
Use counts and embeddings are bookkeeping, not changes: they never make a version.

Bounds: a memory keeps its newest ``MAX_VERSIONS`` versions; an owner keeps the histories of its newest
``KEPT_DELETED`` deleted memories (older deletes can no longer be undone). A memory pruned past
``memory.max_total`` and everything forgotten take their versions with them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidRequest
from .caller import Identity

if TYPE_CHECKING:  # records imports this module: Memory is only named here
    from .records import Memory

CHANGES = ("created", "edited", "superseded", "approved", "pinned", "unpinned", "deleted", "restored")
ACTOR_KINDS = ("person", "model", "extraction", "import")
VIAS = ("api", "console", "cli", "mcp")  # how a person (or an import) came in
MAX_VERSIONS = 50  # per memory, the current one included
KEPT_DELETED = 100  # per owner: deleted memories whose history (and so an undo) is kept
_ETAG = re.compile(r"(m-[0-9]{1,20})\.v([0-9]{1,9})")
_IF_MATCH_ITEM = re.compile(r'\s*(?:(W/)?"([^"\x00-\x20\x7f]*)"|(\*))\s*(?:,|$)')


@dataclass(frozen=True, slots=True)
class Actor:
    """Who made a change: a person (by key, and through what), the model in a session, an episode's extraction,
    or an import. Stamped by the proxy from the way in, never from what a client or a model says."""

    kind: str  # person | model | extraction | import
    key_id: str | None = None  # auth.mode keys: the memproxy key behind the call
    session: str | None = None
    episode: str | None = None
    via: str | None = None  # a person's (or an import's) way in: api | console | cli | mcp

    @classmethod
    def person(cls, caller: Identity | None = None, *, via: str = "api") -> Actor:
        return cls("person", key_id=caller.key_id if caller else None, via=via)

    @classmethod
    def model(cls, session: str | None, caller: Identity | None = None) -> Actor:
        return cls("model", key_id=caller.key_id if caller else None, session=session)

    @classmethod
    def extraction(cls, episode: str | None, session: str | None = None) -> Actor:
        return cls("extraction", session=session, episode=episode)

    @classmethod
    def importer(cls, caller: Identity | None = None, *, via: str = "api") -> Actor:
        return cls("import", key_id=caller.key_id if caller else None, via=via)

    @classmethod
    def of_origin(cls, origin: str, caller: Identity | None = None, session: str | None = None) -> Actor:
        """The writer a memory's ``origin`` stands for: what callers that name no actor get, and what a record
        stored before versions reads back as."""
        if origin == "tool":
            return cls.model(session, caller)
        if origin == "extraction":
            return cls.extraction(None, session)
        if origin == "import":
            return cls.importer(caller)
        return cls.person(caller, via=origin if origin in VIAS else "api")

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"kind": self.kind}
        for key in ("key_id", "session", "episode", "via"):
            value = getattr(self, key)
            if value is not None:
                line[key] = value
        return line

    @classmethod
    def from_json(cls, obj: Any) -> Actor:
        if not isinstance(obj, Mapping) or obj.get("kind") not in ACTOR_KINDS:
            raise ValueError(f"actor.kind must be one of {', '.join(ACTOR_KINDS)}")
        fields = {key: obj.get(key) for key in ("key_id", "session", "episode", "via")}
        if not all(value is None or isinstance(value, str) for value in fields.values()):
            raise ValueError("actor fields must be strings")
        return cls(obj["kind"], **fields)


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a memory as a person reviews it: enough to see what changed and to restore it."""

    version: int
    text: str
    tags: tuple[str, ...]
    category: str
    pinned: bool
    held: bool
    superseded_by: str | None
    at: float
    change: str
    actor: Actor

    @classmethod
    def of(cls, memory: Memory) -> Version:
        return cls(
            memory.version,
            memory.text,
            memory.tags,
            memory.category,
            memory.pinned,
            memory.held,
            memory.superseded_by,
            memory.changed_at,
            memory.change,
            memory.changed_by,
        )

    def to_json(self) -> dict[str, Any]:
        from .records import format_ts  # records imports this module: looked up when it is surely loaded

        return {
            "version": self.version,
            "text": self.text,
            "tags": list(self.tags),
            "category": self.category,
            "pinned": self.pinned,
            "held": self.held,
            "superseded_by": self.superseded_by,
            "at": format_ts(self.at),
            "change": self.change,
            "actor": self.actor.to_json(),
        }


# -- tags on the wire ---------------------------------------------------------------------------------------


def etag(memory_id: str, version: int) -> str:
    """A strong entity tag naming the memory and its version: ``"m-12.v3"``."""
    return f'"{memory_id}.v{version}"'


@dataclass(frozen=True, slots=True)
class IfMatch:
    """A parsed ``If-Match`` header: ``*`` (any version of a memory that is there) or entity tags."""

    tags: tuple[str, ...] = ()  # strong tags' values; weak ones never match (strong comparison)
    any: bool = False

    def versions(self, memory_id: str) -> frozenset[int] | None:
        """The versions of ``memory_id`` it accepts; None for any. Tags naming another memory (or not ours)
        accept none: a request carrying only those is refused as stale."""
        if self.any:
            return None
        accepted = set()
        for tag in self.tags:
            match = _ETAG.fullmatch(tag)
            if match is not None and match.group(1) == memory_id:
                accepted.add(int(match.group(2)))
        return frozenset(accepted)


def parse_if_match(value: str | None) -> IfMatch | None:
    """RFC 9110's ``If-Match``: ``*`` or a list of entity tags; None when absent. Anything else is a 400."""
    if value is None:
        return None
    if not value.strip():
        raise InvalidRequest("If-Match is empty: send the ETag you read, or leave the header out", param="If-Match")
    tags: list[str] = []
    position, wildcard = 0, False
    while position < len(value):
        if value[position] in ", \t":  # empty list elements are allowed
            position += 1
            continue
        match = _IF_MATCH_ITEM.match(value, position)
        if match is None or match.end() == position:
            raise InvalidRequest(
                f'If-Match must be "*" or entity tags such as "m-12.v3", quotes included; got {value[:80]!r}',
                param="If-Match",
                code="invalid_if_match",
            )
        if match.group(3):
            wildcard = True
        elif not match.group(1):
            tags.append(match.group(2))
        position = match.end()
    if wildcard and tags:
        raise InvalidRequest('If-Match is "*" or a list of tags, not both', param="If-Match", code="invalid_if_match")
    return IfMatch(tuple(tags), any=wildcard)


def accepts(expect: Collection[int] | None, version: int) -> bool:
    return expect is None or version in expect


# -- histories ----------------------------------------------------------------------------------------------


def history(archived: Iterable[Memory], current: Memory | None, *, limit: int | None = None) -> list[Memory]:
    """A memory's versions, newest first, from its archived ones (in the order they were written: the last of a
    number wins) and the current record (None: deleted, or never there).

    A store writes a change's archived versions before the record that makes it current, so a crash in between
    leaves at most an archived copy of the current version, or a tombstone newer than it: both are left out.
    Without a current record the history ends at its newest tombstone; with none it is a pruned memory's
    leftover and empty.
    """
    by_number: dict[int, Memory] = {}
    for memory in archived:
        by_number[memory.version] = memory
    if current is not None:
        by_number = {n: m for n, m in by_number.items() if n < current.version}
        by_number[current.version] = current
    else:
        tombstones = [n for n, m in by_number.items() if m.change == "deleted"]
        if not tombstones:
            return []
        newest = max(tombstones)
        by_number = {n: m for n, m in by_number.items() if n <= newest}
    return [by_number[n] for n in sorted(by_number, reverse=True)[: limit or MAX_VERSIONS]]


def restorable(tombstones: Mapping[str, float], *, keep: int | None = None) -> set[str]:
    """Of the deleted memories (id -> when deleted), those whose histories are kept: the newest ``keep``
    (``KEPT_DELETED``)."""
    newest = sorted(tombstones, key=lambda memory_id: tombstones[memory_id], reverse=True)
    return set(newest[: keep or KEPT_DELETED])


def kept_archive(archived: Sequence[Memory], present: Mapping[str, int]) -> list[Memory]:
    """What an archive still needs, in its order: the versions :func:`history` can show of the memories there
    (``present``: id -> current version) and of the deleted ones still kept; nothing of pruned memories."""
    by_id: dict[str, list[Memory]] = {}
    for memory in archived:
        by_id.setdefault(memory.id, []).append(memory)
    tombstones = {}
    for memory_id, versions in by_id.items():
        if memory_id not in present:
            settled = history(versions, None)
            if settled:
                tombstones[memory_id] = settled[0].changed_at
    deleted = restorable(tombstones)
    kept: set[tuple[str, int]] = set()
    for memory_id, versions in by_id.items():
        if memory_id in present:
            floor = present[memory_id] - MAX_VERSIONS
            kept |= {(memory_id, m.version) for m in versions if floor < m.version < present[memory_id]}
        elif memory_id in deleted:
            kept |= {(memory_id, m.version) for m in history(versions, None)}
    last = {(m.id, m.version): index for index, m in enumerate(archived)}  # one copy of each: the last written
    return [m for index, m in enumerate(archived) if (m.id, m.version) in kept and last[(m.id, m.version)] == index]
