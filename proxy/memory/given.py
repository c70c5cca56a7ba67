"""What a session was given and why: its block's and notes' entries as sent, each with why recall chose it.

Recall keeps, for each entry of a block or a note, why it was chosen (:data:`Why`): its score and the query's terms
it matched, or that it was one of the newest (``inject_mode: recent_only``, or nothing relevant was found). That is
worked out once, when the block or the note is chosen, never per request, and travels with the session's state to
the other replicas (:meth:`~.recall.Recall.export`). A pinned fact needs none: it opens every block. A person reads
it back here (``GET /memory/sessions/{id}``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .block import episode_summary
from .episodes import Episode
from .pins import Pinned
from .records import Memory

Why = tuple[float, tuple[str, ...]] | None  # (score, the query's terms it matched); None: one of the newest
SCORE_DIGITS = 4  # a score kept to this many decimals: enough to compare entries, compact to share


def ranked_why(score: float, terms: Iterable[str]) -> Why:
    return round(score, SCORE_DIGITS), tuple(terms)


def why_to_json(why: Mapping[str, Why]) -> dict[str, Any]:
    """Compact, for the shared state: ``{id: [score, [terms]] or null}``."""
    return {entry: None if reason is None else [reason[0], list(reason[1])] for entry, reason in why.items()}


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
    text: str
    why: dict[str, Any] | None  # {pinned: true} | {score, terms} | {recent: true}; None: not known

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, "why": self.why}


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

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in (*self.entries, *(e for n in self.notes for e in n.entries)))

    def block_json(self) -> dict[str, Any]:
        return {"text": self.text, "entries": [e.to_json() for e in self.entries]}


def describe(
    text: str | None,
    pinned: Pinned,
    block: Sequence[Memory],
    episodes: Sequence[Episode],
    why: Mapping[str, Why],
    notes: Iterable[tuple[int, str, Sequence[Memory], Mapping[str, Why]]],
) -> Given:
    """The entries in the order the block lists them: pinned facts, memories, then episodes' summaries."""
    pins = [GivenEntry(m.id, "pinned", m.text, {"pinned": True}) for m in pinned.memories]
    memories = [GivenEntry(m.id, "memory", m.text, _reason(why, m.id)) for m in block]
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
    return {"score": reason[0], "terms": list(reason[1])}
