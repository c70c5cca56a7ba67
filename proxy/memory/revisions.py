"""How a change becomes a version inside a store's write: the pieces every backend shares.

A :class:`Revision` says what a writer wants changed and which versions it saw (``If-Match``); the store applies
it to the record it holds under its lock (in its transaction), so the compare of compare-and-set
(:func:`check_expected`) sees what is really stored, and numbers the new version itself.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from ..errors import VersionMismatch
from .records import Memory
from .versions import Actor, accepts, etag


@dataclass(frozen=True, slots=True)
class Revision:
    """One change to a stored memory, made a version by the store inside its write (under its lock, in its
    transaction): ``apply`` turns the stored record into the new one, and ``expect`` (the versions the writer
    saw; None: any) is compared with the stored version right there, so of two writers only one can win."""

    id: str
    change: str  # edited | superseded | approved | pinned | unpinned | restored (versions.CHANGES)
    actor: Actor
    apply: Callable[[Memory], Memory]
    expect: Collection[int] | None = None


def check_expected(memory: Memory, expect: Collection[int] | None) -> None:
    """The compare of compare-and-set: a stale version is a :class:`VersionMismatch` and nothing is written."""
    if not accepts(expect, memory.version):
        raise VersionMismatch(
            f"{memory.id} is at version {memory.version} ({etag(memory.id, memory.version)}), not the one If-Match "
            f"names: nothing was changed; read it again and retry",
            param="If-Match",
            headers={"etag": etag(memory.id, memory.version)},
        )


def revised(stored: Memory, revision: Revision, now: float, *, force: bool = False) -> Memory | None:
    """The new version of ``stored`` (checked against ``revision.expect``), or None when ``apply`` changed none of
    what a version holds (nothing to record) and it is not ``force``d (a deleted memory brought back)."""
    check_expected(stored, revision.expect)
    new = revision.apply(stored)
    if not force and _content(new) == _content(stored):
        return None
    return replace(
        new,
        version=stored.version + 1,
        change=revision.change,
        changed=round(now, 3),
        actor=revision.actor,
        use_count=stored.use_count,  # bookkeeping stays as stored: never undone by a change
        last_used=stored.last_used,
    )


def superseded(stored: Memory, by: str, actor: Actor, now: float) -> Memory:
    """The version a near-duplicate ``by`` makes of the memory it replaces, in the same write, by its writer."""
    new = revised(stored, Revision(stored.id, "superseded", actor, lambda m: replace(m, superseded_by=by)), now)
    assert new is not None
    return new


def deleted(stored: Memory, actor: Actor, now: float) -> Memory:
    """The tombstone a delete leaves in a memory's history: its last state, as a version of its own."""
    return replace(stored, version=stored.version + 1, change="deleted", changed=round(now, 3), actor=actor)


def archived(memory: Memory) -> dict[str, object]:
    """A past version as the stores keep it: the record's line without its embedding (a restore embeds again)."""
    line = memory.to_json(stored=True)
    line.pop("embedding", None)
    return line


def _content(memory: Memory) -> tuple[object, ...]:
    return (
        memory.text,
        memory.tags,
        memory.category,
        memory.pinned,
        memory.superseded_by,
        memory.provenance,
        memory.scope,
    )
