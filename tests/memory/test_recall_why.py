"""Why recall chose each entry of a session's block and notes, and which memories a session was newly given.

Pure: Recall over in-memory indexes, as tests/memory/test_recall.py drives it.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

import orjson

from proxy.config import MemorySettings
from proxy.memory.episodes import Episode, EpisodeIndex
from proxy.memory.given import Given
from proxy.memory.pins import Pinned
from proxy.memory.ranking import MemoryIndex, terms
from proxy.memory.recall import Recall
from proxy.memory.recall_state import given_of
from proxy.memory.records import Memory
from proxy.memory.service import _indexed_terms

NOW = 1_800_000_000.0
KEY = ("alice", "default", "s-1")

FACTS = [
    Memory(id="m-1", text="User prefers tabs over spaces for indentation", category="preference", created=NOW - 9e5),
    Memory(id="m-2", text="The staging database is Postgres 16 on port 6432", created=NOW - 8e5),
    Memory(id="m-3", text="Deploys go to Fly.io in the Amsterdam region", created=NOW - 7e5),
    Memory(id="m-4", text="Code reviews happen on Friday afternoons", created=NOW - 6e5),
    Memory(id="m-5", text="User's daughter Mia plays the violin", created=NOW - 5e5),
]
PIN = Memory(id="m-9", text="User's name is Alice", scope="user", pinned=True, created=NOW - 1e6)


def chat(*turns: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for n, text in enumerate(turns):
        if n:
            messages.append({"role": "assistant", "content": f"answer {n}"})
        messages.append({"role": "user", "content": text})
    return messages


def whys(given: Given) -> dict[str, Any]:
    return {entry.id: entry.why for entry in given.entries}


def test_a_ranked_block_entry_says_its_score_and_the_query_terms_it_matched() -> None:
    recall = Recall(MemorySettings())
    recall(KEY, chat("Which port does the staging database listen on?"), [MemoryIndex(FACTS)], now=NOW)
    given = recall.given(KEY)
    assert given is not None
    (entry,) = given.entries
    assert (entry.id, entry.kind, entry.text) == ("m-2", "memory", FACTS[1].text)
    assert entry.why is not None and entry.why["score"] > 0
    # the query's stems that the memory holds, in the query's order: "which", "does", "on" are stopwords
    assert entry.why["terms"] == ["port", "stage", "databas"]
    assert set(entry.why["terms"]) <= set(terms(FACTS[1].text))
    assert given.text is not None and "(m-2, fact)" in given.text


def test_a_pinned_fact_says_pinned_and_leads_the_entries() -> None:
    recall = Recall(MemorySettings())
    pins = Pinned(profile=(PIN,))
    views = [MemoryIndex(FACTS), MemoryIndex([PIN])]
    recall(KEY, chat("How should I indent this file?"), views, now=NOW, pinned=pins, visible=lambda m: not m.pinned)
    given = recall.given(KEY)
    assert given is not None
    assert [(e.id, e.kind) for e in given.entries] == [("m-9", "pinned"), ("m-1", "memory")]
    assert given.entries[0].why == {"pinned": True}
    assert given.entries[1].why is not None and "indent" in given.entries[1].why["terms"]


def test_the_newest_shown_when_nothing_is_relevant_say_recent() -> None:
    recall = Recall(MemorySettings())
    recall(KEY, chat("Hello there"), [MemoryIndex(FACTS)], now=NOW)
    given = recall.given(KEY)
    assert given is not None and len(given.entries) == 5
    assert all(why == {"recent": True} for why in whys(given).values())


def test_recent_only_entries_say_recent_whatever_they_match() -> None:
    recall = Recall(MemorySettings(inject_mode="recent_only", max_inject_count=2))
    recall(KEY, chat("How should I indent this file?"), [MemoryIndex(FACTS)], now=NOW)
    given = recall.given(KEY)
    assert given is not None and whys(given) == {"m-5": {"recent": True}, "m-4": {"recent": True}}


def test_a_note_entry_says_its_score_and_terms() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    recall(KEY, chat("How should I indent this file?"), views, now=NOW)
    recall(KEY, chat("How should I indent this file?", "Where does the staging database run?"), views, now=NOW)
    given = recall.given(KEY)
    assert given is not None
    (note,) = given.notes
    assert note.before == 3 and note.text.startswith("[Memories] More recalled")
    (entry,) = note.entries
    assert entry.id == "m-2" and entry.why is not None
    assert entry.why["terms"] == ["stage", "databas"] and entry.why["score"] > 0


def test_an_episode_in_the_block_says_why_too() -> None:
    episode = Episode("e-" + "1" * 16, "s-0", "alice", "default", 3, NOW - 100, "Moved staging to Postgres 16", ())
    recall = Recall(MemorySettings())
    recall(KEY, chat("Tell me about staging"), [MemoryIndex(FACTS)], now=NOW, episodes=EpisodeIndex([episode]))
    given = recall.given(KEY)
    assert given is not None
    shown = [e for e in given.entries if e.kind == "episode"]
    assert [(e.id, e.text) for e in shown] == [(episode.id, "Moved staging to Postgres 16")]
    assert shown[0].why is not None and shown[0].why["terms"] == ["stage"]

    other = Recall(MemorySettings())  # nothing relevant: the newest episode, as one of the newest
    other(KEY, chat("Hello there"), [MemoryIndex(FACTS)], now=NOW, episodes=EpisodeIndex([episode]))
    assert whys(other.given(KEY))[episode.id] == {"recent": True}  # type: ignore[arg-type]


def test_why_travels_with_the_exported_state_to_another_replica() -> None:
    first, second = Recall(MemorySettings()), Recall(MemorySettings())
    views = [MemoryIndex(FACTS), MemoryIndex([PIN])]
    pins = Pinned(profile=(PIN,))
    first(KEY, chat("How should I indent this file?"), views, now=NOW, pinned=pins)
    first(KEY, chat("How should I indent this file?", "Where does the staging database run?"), views, now=NOW)
    state = orjson.loads(orjson.dumps(first.export(KEY)))  # as the shared state stores it
    second.adopt(KEY, state)
    assert second.given(KEY) == first.given(KEY) == given_of(state)
    assert second.export(KEY) == state


def test_state_exported_with_the_index_terms_says_what_stemming_again_says() -> None:
    """The service exports a session with its request's indexes at hand (their terms, not the texts stemmed again):
    the state is the same; a memory the index holds another version of is stemmed from its own text."""
    views = [MemoryIndex(FACTS), MemoryIndex([PIN])]
    states = []
    for indexed in (None, partial(_indexed_terms, views)):
        recall = Recall(MemorySettings())
        recall(KEY, chat("How should I indent this file?"), views, now=NOW, pinned=Pinned(profile=(PIN,)))
        recall(KEY, chat("How should I indent this file?", "Where does the staging database run?"), views, now=NOW)
        states.append(recall.export(KEY, indexed))
    assert states[0] == states[1] and states[0] is not None and states[0]["notes"]
    edited = MemoryIndex([replace(FACTS[1], text="The staging cache is Redis 7")])  # m-2, another version
    assert edited.indexed_terms(FACTS[1]) is None
    assert views[0].indexed_terms(FACTS[1]) == {*terms(FACTS[1].text), *terms(FACTS[1].category)}


def test_state_written_before_reasons_were_kept_gives_entries_of_unknown_why() -> None:
    recall = Recall(MemorySettings())
    recall(KEY, chat("Which port does the staging database listen on?"), [MemoryIndex(FACTS)], now=NOW)
    state = recall.export(KEY)
    assert state is not None
    del state["why"]
    given = given_of(state)
    assert [(e.id, e.why) for e in given.entries] == [("m-2", None)]


def test_a_session_is_given_each_memory_once_whatever_is_re_sent() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS), MemoryIndex([PIN])]
    pins = Pinned(profile=(PIN,))
    first = chat("How should I indent this file?")
    recall(KEY, first, views, now=NOW, pinned=pins)
    assert [m.id for m in recall.take_injected(KEY)] == ["m-9", "m-1"]
    recall(KEY, first, views, now=NOW, pinned=pins)  # a retry: the same block re-sent
    assert recall.take_injected(KEY) == []
    recall(KEY, chat("How should I indent this file?", "Where does the staging database run?"), views, now=NOW)
    assert [m.id for m in recall.take_injected(KEY)] == ["m-2"]  # the note's


def test_a_block_chosen_again_counts_only_what_the_session_had_not_been_given() -> None:
    recall = Recall(MemorySettings(max_inject_count=2))
    index = MemoryIndex(FACTS)
    recall(KEY, chat("Where is the staging database and where do deploys go?"), [index], now=NOW)
    assert {m.id for m in recall.take_injected(KEY)} == {"m-2", "m-3"}
    index.drop("m-3")  # forgetting wins over caching: the block is chosen again
    extra = Memory(id="m-6", text="Deploys to staging happen from the main branch", created=NOW)
    index.put(extra)
    recall(KEY, chat("Where is the staging database and where do deploys go?", "ok"), [index], now=NOW)
    assert [m.id for m in recall.take_injected(KEY)] == ["m-6"]


def test_adopting_another_replicas_state_drops_what_this_one_chose_meanwhile() -> None:
    mine, theirs = Recall(MemorySettings()), Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    theirs(KEY, chat("How should I indent this file?"), views, now=NOW)
    mine(KEY, chat("How should I indent this file?"), views, now=NOW)
    state = theirs.export(KEY)
    assert state is not None
    mine.adopt(KEY, state)  # the other replica chose first: its block is the one sent, and it counted it
    assert mine.take_injected(KEY) == []
