"""How recall splits its budgets: the block may fill max_inject_* on a session's first request; notes have their own
(max_note_*, over the whole session).

Pure: recall driven with in-memory indexes, no server.
"""

from __future__ import annotations

from typing import Any

from proxy.config import MemorySettings
from proxy.memory import recall as memory_recall
from proxy.memory.block import NOTE_TITLE
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Memory

from .test_recall import KEY, NOW, Recall, chat

TEAMS = ["otters", "herons", "lynxes", "badgers", "falcons", "walruses", "ibises", "okapis", "tapirs", "geckos"]
TOPICS = [  # a first question finds all of these: more than the default budget of ten
    Memory(id=f"m-{n}", text=f"Kafka topic orders-{n} belongs to the {team} team", created=NOW - 9e5 + n)
    for n, team in enumerate([*TEAMS, "quokkas", "marmots"], 1)
]
CLUSTERS = ["zephyr", "quasar", "nimbus", "obsidian", "saffron", "tundra", "vortex", "juniper", "cobalt", "ember"]
PLACES = [  # each found by one later question, by its own rare name
    Memory(id=f"m-{n}", text=f"The {name} cluster runs in rack {n}", created=NOW - 5e5 + n)
    for n, name in enumerate([*CLUSTERS, "pebble", "mistral"], 20)
]
DASHBOARDS = [  # one later question finds all five
    Memory(id=f"m-{n}", text=f"Grafana dashboard {n} charts the {team} team's error budget", created=NOW - 3e5 + n)
    for n, team in enumerate(TEAMS[:5], 40)
]
VIEWS = [MemoryIndex([*TOPICS, *PLACES, *DASHBOARDS])]
FIRST = "Which kafka topic belongs to which team?"


def notes(payload: dict[str, Any]) -> list[str]:
    return [m["content"] for m in payload["messages"] if m["content"].startswith(NOTE_TITLE)]


def chars(ids: tuple[str, ...]) -> int:
    texts = {m.id: m.text for m in [*TOPICS, *PLACES, *DASHBOARDS]}
    return sum(len(texts[i]) for i in ids)


def test_a_first_request_carries_the_top_max_inject_count_memories() -> None:
    out = Recall(MemorySettings())(KEY, chat(FIRST), VIEWS, now=NOW)
    assert len(out.ids) == 10 and set(out.ids) <= {m.id for m in TOPICS}


def test_a_first_request_holds_within_max_inject_chars() -> None:
    out = Recall(MemorySettings(max_inject_chars=200))(KEY, chat(FIRST), VIEWS, now=NOW)
    assert 0 < chars(out.ids) <= 200
    assert len(out.ids) == 200 // len(TOPICS[0].text)  # as many as fit: none of the budget held back


def test_a_full_block_still_leaves_room_for_a_note_on_a_later_turn() -> None:
    recall = Recall(MemorySettings())
    first = recall(KEY, chat(FIRST), VIEWS, now=NOW)
    later = recall(KEY, chat(FIRST, "Where does the zephyr cluster run?"), VIEWS, now=NOW)
    assert later.ids[:10] == first.ids and later.ids[10:] == ("m-20",)
    assert later.payload["messages"][1] == first.payload["messages"][1]  # the block, byte for byte
    assert len(notes(later.payload)) == 1 and "The zephyr cluster runs in rack 20" in notes(later.payload)[0]


def test_one_note_adds_at_most_note_max_memories() -> None:
    recall = Recall(MemorySettings())
    recall(KEY, chat(FIRST), VIEWS, now=NOW)
    later = recall(KEY, chat(FIRST, "Which grafana dashboards chart an error budget?"), VIEWS, now=NOW)
    assert len(later.ids) == 10 + memory_recall.NOTE_MAX
    assert set(later.ids[10:]) <= {m.id for m in DASHBOARDS}


def test_one_note_holds_within_its_share_of_the_characters() -> None:
    settings = MemorySettings(max_note_chars=800)  # a note: 15% of it, room for two dashboards, not three
    recall = Recall(settings)
    recall(KEY, chat(FIRST), VIEWS, now=NOW)
    later = recall(KEY, chat(FIRST, "Which grafana dashboards chart an error budget?"), VIEWS, now=NOW)
    noted = [i for i in later.ids if i in {m.id for m in DASHBOARDS}]
    assert len(noted) == 2 and chars(tuple(noted)) <= round(memory_recall.NOTE_SHARE * 800)


def test_a_long_sessions_notes_stop_at_their_budget_and_every_request_starts_with_the_previous_one() -> None:
    recall = Recall(MemorySettings(max_note_count=10))
    turns = [FIRST]
    previous = recall(KEY, chat(FIRST), VIEWS, now=NOW).payload["messages"]
    noted: list[int] = []
    for name in [*CLUSTERS, "pebble", "mistral"]:
        turns.append(f"Where does the {name} cluster run?")
        out = recall(KEY, chat(*turns), VIEWS, now=NOW)
        sent = out.payload["messages"]
        assert sent[: len(previous)] == previous  # the block and every earlier note, byte for byte
        previous = sent
        noted.append(len(out.ids) - 10)
    assert noted == list(range(1, 11)) + [10, 10]  # one note a turn, until the notes hold max_note_count memories
    assert out.ids[10:] == tuple(m.id for m in PLACES[:10])


def test_a_sessions_notes_stop_at_max_note_chars() -> None:
    recall = Recall(MemorySettings(max_note_chars=240))  # a note: 36 characters, room for one place
    turns = [FIRST]
    recall(KEY, chat(FIRST), VIEWS, now=NOW)
    for name in CLUSTERS:
        turns.append(f"Where does the {name} cluster run?")
        out = recall(KEY, chat(*turns), VIEWS, now=NOW)
    noted = out.ids[10:]
    assert noted[:6] == tuple(m.id for m in PLACES[:6])  # then the seventh, at 34 characters, does not fit...
    assert "m-26" not in noted and noted[6:] == ("m-29",)  # ...but a shorter one later still does
    assert chars(noted) <= 240


def test_without_a_note_budget_later_turns_get_no_notes_and_the_block_is_the_same() -> None:
    recall = Recall(MemorySettings(max_note_count=0))
    first = recall(KEY, chat(FIRST), VIEWS, now=NOW)
    later = recall(KEY, chat(FIRST, "Where does the zephyr cluster run?"), VIEWS, now=NOW)
    assert later.ids == first.ids and notes(later.payload) == []


def test_a_notes_budget_is_its_own_within_what_the_sessions_notes_have_left() -> None:
    settings = MemorySettings(max_inject_count=1, max_inject_chars=10, max_note_count=10, max_note_chars=2000)
    fresh = memory_recall.note_budget(settings, [])  # the block's budgets play no part
    assert (fresh.count, fresh.chars) == (memory_recall.NOTE_MAX, 300)
    assert memory_recall.note_budget(settings, PLACES[:9]).count == 1
    long = [Memory(id=f"m-{n}", text="x" * 490) for n in range(4)]
    assert memory_recall.note_budget(settings, long).chars == 2000 - 4 * 490
    spent = memory_recall.note_budget(settings, [*long, Memory(id="m-9", text="y" * 100)])
    assert spent.chars == 0
    assert memory_recall.note_budget(MemorySettings(max_note_count=0), []).count == 0
