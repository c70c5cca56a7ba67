"""What recall keeps of a session, and that state as JSON for the other replicas (:mod:`.session_state`).

A session's block and notes are chosen once and re-sent byte for byte (:mod:`.recall`); what was chosen, rendered
and why is a :class:`Chosen`. Its JSON carries the rendered texts, so a replica that adopts it sends exactly what
the one that chose it sent, and the reasons (:mod:`.given`), so any replica can say what the session was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .block import render_note
from .episodes import Episode
from .given import Given, Indexed, Why, describe, matched, why_from_json, why_to_json
from .pins import NO_PINS, Pinned
from .records import Memory


@dataclass(slots=True)
class Note:
    before: int  # index, in the client's messages, of the user message the note precedes
    digest: bytes  # of that message, so the note follows the conversation it was made for
    memories: list[Memory]
    why: dict[str, Why] = field(default_factory=dict)  # memory id -> why it was chosen (:mod:`.given`)
    query: tuple[str, ...] = ()  # the terms it was chosen for, until its reasons' matched terms are worked out
    text: str = ""  # rendered once, re-sent byte for byte

    def __post_init__(self) -> None:
        self.text = render_note(self.memories)


@dataclass(slots=True)
class Chosen:
    block: list[Memory]
    text: str | None  # rendered once, re-sent byte for byte
    # Tuples: most sessions have no notes and no episodes, and an empty tuple is no object of their own to collect.
    notes: tuple[Note, ...] = ()
    episodes: tuple[Episode, ...] = ()
    last_turn: bytes | None = None  # the user message last ranked, so a retry or tool follow-up is not ranked again
    tools: bool = False  # the block's text ends with the line on the memory tools
    pinned: Pinned = NO_PINS  # the pinned facts the block opens with, frozen with it
    why: dict[str, Why] = field(default_factory=dict)  # memory or episode id -> why the block shows it
    query: tuple[str, ...] = ()  # the terms its memories were chosen for (in memory only: never shared)
    excerpts: dict[str, str] = field(default_factory=dict)  # memory id -> what the block shows of one cut short

    def carried(self) -> set[str]:
        """The ids of the memories its block and notes carry."""
        ids = {m.id for m in (*self.pinned.memories, *self.block)}
        ids.update(m.id for note in self.notes for m in note.memories)
        return ids


def state_of(session: Chosen, indexed: Indexed | None = None) -> dict[str, Any]:
    """A session's state as JSON, its rendered texts included so another replica re-sends them byte for byte, and
    why each entry was chosen (the matched terms worked out now, never the query's; ``indexed``: :func:`matched`'s)."""
    return {
        "block": [m.to_json() for m in session.block],
        "why": why_to_json(matched(session.why, session.query, session.block, indexed)),
        "text": session.text,
        "excerpts": session.excerpts,
        "tools": session.tools,
        "episodes": [e.to_json() for e in session.episodes],
        "notes": [
            {
                "before": n.before,
                "digest": n.digest.hex(),
                "memories": [m.to_json() for m in n.memories],
                "why": why_to_json(matched(n.why, n.query, n.memories, indexed)),
                "text": n.text,
            }
            for n in session.notes
        ],
        "last_turn": session.last_turn.hex() if session.last_turn is not None else None,
        "pinned": {
            "profile": [m.to_json() for m in session.pinned.profile],
            "environment": [m.to_json() for m in session.pinned.environment],
        },
    }


def session_of(state: dict[str, Any]) -> Chosen:
    """A session's state as :func:`state_of` wrote it (ValueError, KeyError or TypeError: not such state)."""
    notes = []
    for n in state["notes"]:
        memories = [Memory.from_json(m) for m in n["memories"]]
        note = Note(n["before"], bytes.fromhex(n["digest"]), memories, why_from_json(n.get("why")))
        note.text = n["text"]
        notes.append(note)
    last = state.get("last_turn")
    pins = state.get("pinned") or {}  # absent in state written before pins
    pinned = Pinned(
        tuple(Memory.from_json(m) for m in pins.get("profile", ())),
        tuple(Memory.from_json(m) for m in pins.get("environment", ())),
    )
    return Chosen(
        [Memory.from_json(m) for m in state["block"]],
        state["text"],
        tuple(notes),
        tuple(Episode.from_json(e) for e in state["episodes"]),
        last_turn=bytes.fromhex(last) if last else None,
        tools=state["tools"],
        pinned=pinned,
        why=why_from_json(state.get("why")),  # absent in state written before reasons were kept
        excerpts=_excerpts(state.get("excerpts")),  # absent in state written before excerpts
    )


def _excerpts(obj: Any) -> dict[str, str]:
    if not isinstance(obj, dict):
        return {}
    return {key: value for key, value in obj.items() if isinstance(key, str) and isinstance(value, str)}


def given_of(state: dict[str, Any]) -> Given:
    """What a session's shared state (another replica's, or this one's after it ended here) says it was given."""
    return given_from(session_of(state))


def given_from(session: Chosen) -> Given:
    matched(session.why, session.query, session.block)
    notes = ((n.before, n.text, n.memories, matched(n.why, n.query, n.memories)) for n in session.notes)
    return describe(
        session.text, session.pinned, session.block, session.episodes, session.why, notes, excerpts=session.excerpts
    )
