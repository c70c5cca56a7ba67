"""History lines and their search: BM25 over turns, a snippet around the words that matched, citations."""

from __future__ import annotations

import pytest

from proxy.memory.history import HistoryIndex, HistoryLine, snippet

NOW = 1_750_000_000.0


def line(
    text: str, *, session: str = "s1", turn: int = 1, role: str = "user", ts: float = NOW, **kw: object
) -> HistoryLine:
    return HistoryLine(session, turn, role, ts, text, **kw)  # type: ignore[arg-type]


def test_the_line_that_says_most_about_the_query_comes_first() -> None:
    index = HistoryIndex(
        [
            line("We talked about the weather today.", turn=1),
            line("My cat is called Pixel and she hates the vacuum cleaner.", turn=2),
            line("The deploy uses Nomad on three nodes.", turn=3, role="assistant"),
            line("Pixel, Pixel, Pixel: the cat's name again.", turn=4),
        ]
    )
    found = index.search("what is my cat called?", limit=5)
    assert [f.line.turn for f in found] == [2, 4]  # both mention the cat; the first says "called" as asked
    assert index.search("nomad nodes", limit=5)[0].citation() == {
        "session": "s1",
        "turn": 3,
        "role": "assistant",
        "ts": "2025-06-15T15:06:40.000Z",
        "text": "The deploy uses Nomad on three nodes.",
    }


def test_rare_words_outweigh_common_ones_and_stems_match() -> None:
    index = HistoryIndex([line(f"the service restarted again on day {n}", turn=n) for n in range(1, 20)])
    index.add(line("the service was migrated to Kubernetes", turn=20))
    assert index.search("service migrating", limit=1)[0].line.turn == 20  # "migrating" finds "migrated"


def test_nothing_matches_nothing_and_empty_queries_find_nothing() -> None:
    index = HistoryIndex([line("hello there")])
    assert index.search("zebra", limit=5) == []
    assert index.search("the and of", limit=5) == []  # only stopwords
    assert HistoryIndex().search("hello", limit=5) == []


def test_a_tie_goes_to_the_newer_line_and_limit_holds() -> None:
    index = HistoryIndex([line("deploy friday", turn=n, ts=NOW + n) for n in range(1, 6)])
    found = index.search("deploy", limit=2)
    assert [f.line.turn for f in found] == [5, 4]


def test_old_lines_and_untrusted_sessions_are_left_out_unless_a_person_asks() -> None:
    index = HistoryIndex(
        [
            line("the secret plan is bananas", session="old", ts=NOW - 100),
            line("bananas are on the list", session="clean"),
            line("what does the page say", session="tainted", turn=1),
            line(
                "the page says bananas", session="tainted", turn=2, role="tool", untrusted=True, sources=("web_fetch",)
            ),
        ]
    )
    assert {f.line.session for f in index.search("bananas", limit=10, since=NOW - 10)} == {"clean"}
    # the model never sees a tainted session, not even what was said there before the taint
    assert index.search("page", limit=10) == []
    assert {f.line.session for f in index.search("bananas", limit=10, untrusted=True)} == {"old", "clean", "tainted"}


def test_a_line_is_kept_once_by_session_turn_role_and_text() -> None:
    index = HistoryIndex()
    assert index.add(line("ok", turn=1))
    assert not index.add(line("ok", turn=1, ts=NOW + 5))  # seen again later: the same line
    assert index.add(line("ok", turn=2)) and index.add(line("ok", turn=1, role="assistant"))
    assert index.add(line("ok", session="s2"))
    assert len(index) == 4


def test_the_snippet_is_a_window_around_the_matches_cut_at_words() -> None:
    text = (
        " ".join(f"filler{n}" for n in range(200))
        + " my cat Pixel likes tuna "
        + " ".join(f"more{n}" for n in range(200))
    )
    cut = snippet(text, ["pixel", "tuna"], chars=120)
    assert "Pixel likes tuna" in cut
    assert cut.startswith("…") and cut.endswith("…") and len(cut) <= 122
    assert set(cut.strip("…").split()) <= set(text.split())  # whole words only


def test_the_snippet_prefers_the_window_with_the_most_distinct_matches() -> None:
    text = "cat " + "x " * 300 + "cat dog bird " + "y " * 300
    cut = snippet(text, ["cat", "dog", "bird"], chars=60)
    assert "cat dog bird" in cut


@pytest.mark.parametrize("text", ["short text", ""])
def test_a_short_line_is_its_own_snippet(text: str) -> None:
    assert snippet(text, ["short"]) == text


def test_a_line_reads_back_from_its_json_and_bad_ones_are_refused() -> None:
    original = line("hi", untrusted=True, sources=("bash",))
    assert HistoryLine.from_json(original.to_json()) == HistoryLine("s1", 1, "user", NOW, "hi", True, ("bash",))
    for bad in ({}, {"kind": "history"}, {**original.to_json(), "role": "system"}, {**original.to_json(), "turn": -1}):
        with pytest.raises(ValueError):
            HistoryLine.from_json(bad)


def test_the_asking_sessions_newest_turn_is_left_out_its_earlier_turns_are_not() -> None:
    index = HistoryIndex(
        [
            line("my sister lives in Porto", session="now", turn=1),
            line("where does my sister live?", session="now", turn=2),
            line("my sister visited Rome", session="before", turn=1),
        ]
    )
    found = index.search("sister", limit=5, current="now")
    assert {(f.line.session, f.line.turn) for f in found} == {("now", 1), ("before", 1)}
    assert len(index.search("sister", limit=5)) == 3


def test_lines_added_after_a_search_are_found_and_ranked_as_if_indexed_all_along() -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    said = [line(f"deploy {word} on node {n % 3}", turn=n, ts=NOW + n) for n, word in enumerate(words, 1)]
    growing = HistoryIndex(said[:4])
    assert [f.line.turn for f in growing.search("deploy node", limit=3)]  # indexes the first four
    for more in said[4:]:
        growing.add(more)
    whole = HistoryIndex(said)
    for query in ("deploy node", "golf on node 1", "juliet"):
        assert growing.search(query, limit=10) == whole.search(query, limit=10)
    assert [f.line.turn for f in growing.search("juliet", limit=10)] == [10]


def test_sessions_are_summarised_from_their_lines_when_asked_for() -> None:
    index = HistoryIndex(
        [
            line("Read the docs", session="s1", turn=1, ts=NOW),
            line(
                'called web_fetch({"url": "x"})',
                session="s1",
                turn=1,
                role="assistant",
                ts=NOW + 1,
                untrusted=True,
                sources=("web_fetch",),
            ),  # fmt: skip
            line("Hello", session="s2", turn=1, ts=NOW + 2),
        ]
    )
    first = {s.session: s for s in index.sessions()}
    assert (first["s1"].first, first["s1"].last, first["s1"].turns) == (NOW, NOW + 1, 1)
    assert (first["s1"].untrusted, first["s1"].sources, first["s1"].tools) == (True, ("web_fetch",), ("web_fetch",))
    assert (first["s2"].untrusted, first["s2"].tools) == (False, ())
    index.add(line("And now?", session="s1", turn=2, ts=NOW + 5))  # added since: caught up on the next call
    later = {s.session: s for s in index.sessions()}
    assert (later["s1"].turns, later["s1"].last) == (2, NOW + 5)
    assert [(x.turn, x.text) for x in index.session_lines("s1")] == [
        (1, "Read the docs"), (1, 'called web_fetch({"url": "x"})'), (2, "And now?")
    ]  # fmt: skip
    assert index.session_lines("nope") == []
