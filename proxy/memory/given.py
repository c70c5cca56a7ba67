"""What a session was given and why: its block's and notes' entries as sent, each with why recall chose it.

Recall keeps, for each entry of a block or a note, why it was chosen (:data:`Why`): its score and the query's terms
it matched, or that it was one of the newest (``inject_mode: recent_only``, or nothing relevant was found). The score
is noted when the block or the note is chosen, never per request; the matched terms only when someone asks: when the
session's state is shared with the other replicas (:meth:`~.recall.Recall.export`), or a person reads it back here
(``GET /memory/sessions/{id}``). Until then the block keeps its query's terms, in memory only: only the terms a
memory holds are ever written (memories were scanned for secrets; the rest of what the user said was not). A pinned
fact needs no reason: it opens every block. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .block import episode_summary
from .episodes import Episode
from .pins import Pinned
from .ranking import terms
from .records import Memory

# (score, the query's terms it matched; None: not worked out yet); None: one of the newest
Why = tuple[float, tuple[str, ...] | None] | None
# A memory's terms from an index holding that version of it (else None): stemming its text again was most of what
# exporting a session's state cost
Indexed = Callable[[Memory], set[str] | None]
SCORE_DIGITS = 4  # a score is shown and shared to this many decimals: enough to compare entries, compact


def matched(
    why: dict[str, Why], query: Sequence[str], memories: Iterable[Memory], indexed: Indexed | None = None
) -> dict[str, Why]:
    """Work out, in place, the matched terms of ``memories``' reasons that have none yet: the terms of ``query``
    (in its order) that the memory's indexed terms hold (its text's, its tags' and category's, as ranking indexes
    them; ``indexed`` has them when the index at hand holds that version). Returns ``why``."""
    positions: dict[str, int] | None = None
    for memory in memories:
        reason = why.get(memory.id)
        if reason is None or reason[1] is not None:
            continue
        if positions is None:
            positions = {term: place for place, term in enumerate(query)}
        held = indexed(memory) if indexed is not None else None
        if held is None:
            held = {*terms(memory.text), *terms(" ".join((*memory.tags, memory.category)))}
        found = sorted((term for term in held if term in positions), key=positions.__getitem__)
        why[memory.id] = (reason[0], tuple(found))
    return why


def why_to_json(why: Mapping[str, Why]) -> dict[str, Any]:
    """Compact, for the shared state: ``{id: [score, [terms]] or null}`` (terms worked out: :func:`matched`)."""
    shared: dict[str, Any] = {}
    for entry, reason in why.items():
        shared[entry] = None if reason is None else [round(reason[0], SCORE_DIGITS), list(reason[1] or ())]
    return shared


def why_from_json(obj: Any) -> dict[str, Why]:
    """Lenient: state written before reasons were kept, or a malformed entry, leaves the entry's reason unknown."""
    why: dict[str, Why] = {}
    if not isinstance(obj, Mapping):
        return why
    for entry, reason in obj.items():
        if reason is None:
            why[entry] = None
        elif (
            isinstance(reason, list)
            and len(reason) == 2
            and isinstance(reason[0], int | float)
            and not isinstance(reason[0], bool)
            and isinstance(reason[1], list)
            and all(isinstance(term, str) for term in reason[1])
        ):
            why[entry] = (float(reason[0]), tuple(reason[1]))
    return why


@dataclass(frozen=True, slots=True)
class GivenEntry:
    """One entry as the model read it: a memory, an episode's summary or a pinned fact, and why it was there."""

    id: str
    kind: str  # memory | episode | pinned
    text: str  # as the model read it: a memory cut short (an excerpt, :mod:`.excerpts`) as it was shown
    why: dict[str, Any] | None  # {pinned: true} | {score, terms} | {recent: true}; None: not known
    excerpt: bool = False  # the text is part of the memory's, cut where it shows an ellipsis

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, "why": self.why, "excerpt": self.excerpt}


@dataclass(frozen=True, slots=True)
class GivenNote:
    before: int  # the position, in the chat-shaped conversation, of the user message the note precedes
    text: str
    entries: tuple[GivenEntry, ...]

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before, "text": self.text, "entries": [e.to_json() for e in self.entries]}


@dataclass(frozen=True, slots=True)
class Given:
    """A session's block (its text exactly as sent; None: nothing qualified) and notes, entry by entry."""

    text: str | None
    entries: tuple[GivenEntry, ...]
    notes: tuple[GivenNote, ...]

    def block_json(self) -> dict[str, Any]:
        return {"text": self.text, "entries": [e.to_json() for e in self.entries]}


def describe(
    text: str | None,
    pinned: Pinned,
    block: Sequence[Memory],
    episodes: Sequence[Episode],
    why: Mapping[str, Why],
    notes: Iterable[tuple[int, str, Sequence[Memory], Mapping[str, Why]]],
    *,
    excerpts: Mapping[str, str] | None = None,
) -> Given:
    """The entries in the order the block lists them: pinned facts, memories, then episodes' summaries; a memory the
    block cut short (``excerpts``, by id) as it was shown."""
    excerpts = excerpts or {}
    pins = [GivenEntry(m.id, "pinned", m.text, {"pinned": True}) for m in pinned.memories]
    memories = [
        GivenEntry(m.id, "memory", excerpts.get(m.id, m.text), _reason(why, m.id), m.id in excerpts) for m in block
    ]
    shown = [GivenEntry(e.id, "episode", episode_summary(e), _reason(why, e.id)) for e in episodes]
    given_notes = tuple(
        GivenNote(before, note_text, tuple(GivenEntry(m.id, "memory", m.text, _reason(reasons, m.id)) for m in kept))
        for before, note_text, kept, reasons in notes
    )
    return Given(text, (*pins, *memories, *shown), given_notes)


def _reason(why: Mapping[str, Why], entry: str) -> dict[str, Any] | None:
    if entry not in why:
        return None
    reason = why[entry]
    if reason is None:
        return {"recent": True}
    return {"score": round(reason[0], SCORE_DIGITS), "terms": list(reason[1] or ())}
