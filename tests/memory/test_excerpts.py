"""A long memory in the block: shown as its most relevant excerpt, so the best entries all fit the block's budget.

Pure: the excerpt rules alone, then Recall over in-memory indexes (as tests/memory/test_recall.py drives it), the
session's state shared with another replica, and what the session says it was given.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.config import MemorySettings
from proxy.memory.block import EXCERPTS_NOTE, TOOLS_NOTE
from proxy.memory.excerpts import ELLIPSIS, EXCERPT_MIN, excerpt, fit
from proxy.memory.ranking import MemoryIndex, terms
from proxy.memory.recall import Recall
from proxy.memory.recall_state import given_of
from proxy.memory.records import Memory

NOW = 1_800_000_000.0
KEY = ("alice", "default", "s-1")
GARDEN = (
    "I've been enjoying the harvest immensely this summer, and the weather has been kind to the whole garden. "
    "I planted 5 tomato plants initially, and they've been producing like crazy since July. "
    "My neighbour keeps asking for tips, so I've started writing down what worked and what did not, "
    "from the compost to the watering schedule, in a notebook I keep by the back door."
)


def weights(question: str) -> dict[str, float]:
    return dict.fromkeys(terms(question), 1.0)


def chat(*turns: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for n, text in enumerate(turns):
        if n:
            messages.append({"role": "assistant", "content": f"answer {n}"})
        messages.append({"role": "user", "content": text})
    return messages


def entries(block: str | None) -> list[str]:
    return [line for line in (block or "").splitlines() if line.startswith("- (m-")]


# -- how the characters are shared ------------------------------------------------------------------------------


def test_entries_that_fit_whole_are_never_cut() -> None:
    assert fit([120, 300, 450], 2000) == (3, None)


def test_the_longest_entries_are_cut_to_one_length_and_the_short_ones_give_them_what_they_leave() -> None:
    assert fit([500] * 10, 2000) == (10, 200)
    assert fit([100, 500, 500], 500) == (3, 200)  # 100 whole, then 200 each


def test_entries_that_would_keep_too_little_leave_the_block_the_lowest_ranked_first() -> None:
    count, cut = fit([500] * 30, 2000)
    assert (count, cut) == (2000 // EXCERPT_MIN, EXCERPT_MIN)
    assert fit([400, 30], 100) == (1, 100)  # the best one, cut, rather than two each saying too little


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 500), max_size=30), st.integers(0, 5000))
def test_what_the_block_shows_always_holds_within_its_characters(lengths: list[int], chars: int) -> None:
    count, cut = fit(lengths, chars)
    shown = [length if cut is None else min(length, cut) for length in lengths[:count]]
    assert sum(shown) <= chars
    assert cut is None or cut >= min(EXCERPT_MIN, chars)
    if count < len(lengths):  # as many as fit: one more would not, even cut to the minimum
        more = lengths[: count + 1]
        assert sum(min(length, min(EXCERPT_MIN, chars)) for length in more) > chars


# -- the excerpt ------------------------------------------------------------------------------------------------


def test_an_excerpt_shows_the_words_the_question_asks_about_and_marks_its_cuts() -> None:
    shown = excerpt(GARDEN, weights("How many tomato plants did I plant initially?"), 120)
    assert len(shown) <= 120
    assert "I planted 5 tomato plants initially" in shown
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS)
    assert shown.strip(ELLIPSIS) in GARDEN  # whole words of the memory, as it says them


def test_an_excerpt_of_a_text_the_question_does_not_match_keeps_its_start() -> None:
    shown = excerpt(GARDEN, weights("Which database does staging use?"), 100)
    assert GARDEN.startswith(shown.removesuffix(ELLIPSIS)) and shown.endswith(ELLIPSIS) and len(shown) <= 100


def test_a_text_that_fits_is_shown_whole_on_one_line() -> None:
    assert excerpt("tomatoes\n\nand  cucumbers", weights("tomatoes"), 100) == "tomatoes and cucumbers"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab cd.é\n?1"), max_size=500), st.integers(1, 500))
def test_an_excerpt_is_never_longer_than_its_room(text: str, size: int) -> None:
    assert len(excerpt(text, weights("ab cd é 1"), size)) <= size


# -- in the block -----------------------------------------------------------------------------------------------


def long_memories() -> list[Memory]:
    """Twelve long memories about the garden, each also naming one vegetable, the rest of it filler."""
    vegetables = ["tomato", "cucumber", "pepper", "lettuce", "carrot", "onion", "garlic", "bean", "pea", "squash"]
    vegetables += ["kale", "leek"]
    filler = "The raised beds by the fence get the afternoon sun and the soil there stays warm into October. " * 4
    return [
        Memory(id=f"m-{n}", text=f"{filler}My {vegetable} harvest in the garden was the best yet."[-480:])
        for n, vegetable in enumerate(vegetables, 1)
    ]


def test_the_block_shows_the_best_entries_as_excerpts_within_its_budget_with_their_ids() -> None:
    memories = long_memories()
    recall = Recall(MemorySettings(), tools=True)
    out = recall(KEY, chat("What did I say about the garden harvest?"), [MemoryIndex(memories)], now=NOW)
    lines = entries(out.placement.block)
    assert len(lines) == 10  # ten entries of 480 characters in 2,000: before, four
    shown = [line.split(") ", 1)[1] for line in lines]
    assert sum(map(len, shown)) <= 2000 and all(text.startswith(ELLIPSIS) for text in shown)
    assert all("harvest in the garden" in text for text in shown)  # the part that matched, not the filler's start
    assert out.placement.block is not None and out.placement.block.endswith(f"{TOOLS_NOTE} {EXCERPTS_NOTE}")
    assert set(out.ids) <= {m.id for m in memories}


def test_a_block_whose_entries_fit_whole_cuts_nothing_and_says_nothing_of_excerpts() -> None:
    memories = [
        Memory(id="m-1", text="My tomato harvest was the best yet"),
        Memory(id="m-2", text="Garden: raised beds"),
    ]
    out = Recall(MemorySettings(), tools=True)(
        KEY, chat("How was the tomato harvest?"), [MemoryIndex(memories)], now=NOW
    )
    assert entries(out.placement.block) == ["- (m-1, fact) My tomato harvest was the best yet"]
    assert out.placement.block is not None and out.placement.block.endswith(TOOLS_NOTE)


def test_the_excerpts_are_resent_byte_for_byte_and_kept_when_the_tools_line_changes() -> None:
    recall = Recall(MemorySettings(), tools=True)
    views = [MemoryIndex(long_memories())]
    first = recall(KEY, chat("What did I say about the garden harvest?"), views, now=NOW)
    later = recall(KEY, chat("What did I say about the garden harvest?", "And the tomatoes?"), views, now=NOW)
    assert later.placement.block == first.placement.block
    without = recall(KEY, chat("What did I say about the garden harvest?", "ok"), views, now=NOW, tools=False)
    assert without.placement.block is not None and first.placement.block is not None
    assert entries(without.placement.block) == entries(first.placement.block)
    assert EXCERPTS_NOTE not in without.placement.block  # no tool to read them whole: the ellipses say they are cut


def test_another_replica_resends_the_excerpts_and_says_they_were_cut() -> None:
    recall = Recall(MemorySettings(), tools=True)
    views = [MemoryIndex(long_memories())]
    first = recall(KEY, chat("What did I say about the garden harvest?"), views, now=NOW)
    state = orjson.loads(orjson.dumps(recall.export(KEY)))  # as the shared state stores it
    other = Recall(MemorySettings(), tools=True)
    other.adopt(KEY, state)
    again = other(KEY, chat("What did I say about the garden harvest?", "ok"), views, now=NOW, tools=False)
    assert entries(again.placement.block) == entries(first.placement.block)  # re-rendered from the shared excerpts
    told = given_of(state)
    assert [e.text for e in told.entries] == [line.split(") ", 1)[1] for line in entries(first.placement.block)]
    assert all(e.excerpt and e.to_json()["excerpt"] is True for e in told.entries)


def test_an_entry_shown_whole_is_not_called_an_excerpt() -> None:
    recall = Recall(MemorySettings())
    memory = Memory(id="m-1", text="My tomato harvest was the best yet")
    recall(KEY, chat("How was the tomato harvest?"), [MemoryIndex([memory])], now=NOW)
    told = recall.given(KEY)
    assert told is not None and [(e.text, e.excerpt) for e in told.entries] == [(memory.text, False)]
