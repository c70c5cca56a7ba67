"""Browsing memories for a person (memory/browse.py): filters, pages, and search that says why a memory matched."""

from __future__ import annotations

from dataclasses import replace

from proxy.memory.browse import Filters, browse, find, matched_words, superseded_by
from proxy.memory.provenance import Provenance
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Memory

NOW = 1_750_000_000.0


def memory(n: int, text: str, **fields: object) -> Memory:
    return Memory(id=f"m-{n}", text=text, created=NOW - 1000 + n, **fields)  # type: ignore[arg-type]


HELD = Provenance(True, ("web_fetch",))


def views() -> list[MemoryIndex]:
    workspace = MemoryIndex(
        [
            memory(1, "The staging database is Postgres 16", tags=("infra",), origin="tool", session="s1"),
            memory(2, "User prefers tabs over spaces", category="preference", pinned=True),
            memory(3, "Invoices are emailed to billing@evil.example", provenance=HELD, origin="tool"),
            memory(4, "The staging database was MySQL", superseded_by="m-1"),
            memory(5, "Deploys go out on Tuesdays", session="s1", origin="extraction"),
        ]
    )
    user_wide = MemoryIndex([memory(6, "User writes Python and Go", scope="user", tags=("languages",))])
    return [workspace, user_wide, MemoryIndex()]


def ids(page: object) -> list[str]:
    return [item.memory.id for item in page.items]  # type: ignore[attr-defined]


def test_without_a_query_the_live_memories_come_newest_first_held_and_superseded_left_out() -> None:
    page = browse(views(), None, Filters(), now=NOW)
    assert ids(page) == ["m-6", "m-5", "m-2", "m-1"]
    assert page.total == 4 and page.next_offset is None


def test_each_filter_narrows_the_list() -> None:
    assert ids(browse(views(), None, Filters(tag="infra"), now=NOW)) == ["m-1"]
    assert ids(browse(views(), None, Filters(category="preference"), now=NOW)) == ["m-2"]
    assert ids(browse(views(), None, Filters(origin="tool"), now=NOW)) == ["m-1"]
    assert ids(browse(views(), None, Filters(scope="user"), now=NOW)) == ["m-6"]
    assert ids(browse(views(), None, Filters(pinned=True), now=NOW)) == ["m-2"]
    assert ids(browse(views(), None, Filters(pinned=False), now=NOW)) == ["m-6", "m-5", "m-1"]
    assert ids(browse(views(), None, Filters(session="s1"), now=NOW)) == ["m-5", "m-1"]


def test_held_lists_only_the_held_ones_and_a_query_matches_them_as_a_substring() -> None:
    assert ids(browse(views(), None, Filters(held=True), now=NOW)) == ["m-3"]
    assert ids(browse(views(), "billing@", Filters(held=True), now=NOW)) == ["m-3"]
    assert ids(browse(views(), "tabs", Filters(held=True), now=NOW)) == []
    assert "m-3" not in ids(browse(views(), "invoices emailed", Filters(), now=NOW))  # never found by search


def test_pages_count_every_match_and_say_where_the_next_one_starts() -> None:
    first = browse(views(), None, Filters(), now=NOW, offset=0, limit=3)
    second = browse(views(), None, Filters(), now=NOW, offset=3, limit=3)
    assert (ids(first), first.total, first.next_offset) == (["m-6", "m-5", "m-2"], 4, 3)
    assert (ids(second), second.total, second.next_offset) == (["m-1"], 4, None)
    assert browse(views(), None, Filters(), now=NOW, offset=40, limit=3).items == []


def test_a_search_ranks_with_scores_and_the_words_each_memory_matched() -> None:
    page = browse(views(), "Which staging database?", Filters(), now=NOW)
    best, related = page.items  # the block's ranking: a memory saved beside a match borrows part of its score
    assert best.memory.id == "m-1" and best.score is not None and best.score > 0
    assert best.matched == ("staging", "database")
    assert related.memory.id == "m-5" and 0 < related.score < best.score and related.matched == ()  # type: ignore[operator]


def test_a_substring_hit_that_shares_no_ranked_word_follows_unscored() -> None:
    page = browse(views(), "gres", Filters(), now=NOW)  # in "Postgres", not a word of it
    assert [(item.memory.id, item.score, item.matched) for item in page.items] == [("m-1", None, ())]


def test_a_filter_after_ranking_sees_every_match_in_the_window_not_just_the_top_few() -> None:
    many = [memory(n, f"Note {n} about the deploy pipeline", origin="api") for n in range(1, 150)]
    many.append(memory(150, "A rare note about the deploy pipeline written by a tool", origin="tool"))
    views = [MemoryIndex(many), MemoryIndex(), MemoryIndex()]
    page = browse(views, "pipeline deploy", Filters(origin="tool"), now=NOW)  # not a substring: ranking alone
    assert ids(page) == ["m-150"]
    everything = browse(views, "pipeline deploy", Filters(), now=NOW)
    assert (everything.total, everything.capped) == (150, False)


def test_matched_words_follow_stems_and_tags() -> None:
    tagged = memory(9, "Deploys happen weekly", tags=("release",), category="convention")
    found = matched_words("deploying releases conventions? weekly!", tagged)
    assert found == ("deploying", "releases", "conventions", "weekly")
    assert matched_words("nothing here", tagged) == ()


def test_find_sees_held_and_superseded_memories_and_what_a_memory_replaced() -> None:
    found = views()
    assert find(found, "m-3") is not None and find(found, "m-4") is not None and find(found, "m-99") is None
    assert [m.id for m in superseded_by(found, "m-1")] == ["m-4"]
    assert superseded_by(found, "m-2") == []
    assert replace(find(found, "m-4"), superseded_by=None).live  # type: ignore[type-var]


def test_a_substring_never_matches_across_two_memories_and_follows_changes() -> None:
    index = MemoryIndex([memory(1, "ends with x-"), memory(2, "-y starts the next"), memory(3, "nul\x00inside")])
    views = [index, MemoryIndex(), MemoryIndex()]
    assert ids(browse(views, "x--y", Filters(), now=NOW)) == []  # the end of one and the start of the next: no match
    assert ids(browse(views, "\x00", Filters(), now=NOW)) == []
    index.put(memory(4, "a x--y b"))
    assert ids(browse(views, "x--y", Filters(), now=NOW)) == ["m-4"]  # the index changed: searched anew


def test_a_search_ranks_a_window_of_the_best_matches_and_says_when_more_matched(monkeypatch: object) -> None:
    import proxy.memory.browse as browsing

    many = [memory(n, f"Note {n} about the deploy pipeline") for n in range(1, 31)]
    views = [MemoryIndex(many), MemoryIndex(), MemoryIndex()]
    monkeypatch.setattr(browsing, "RANK_WINDOW", 10)  # type: ignore[attr-defined]
    first = browse(views, "pipeline deploy", Filters(), now=NOW, limit=5)
    assert (first.total, first.capped) == (10, True)
    deep = browse(views, "pipeline deploy", Filters(), now=NOW, offset=20, limit=5)  # a page past the window
    assert len(deep.items) == 5 and deep.capped
    whole = browse(views, "pipeline deploy", Filters(), now=NOW, limit=50)
    assert (whole.total, whole.capped) == (30, False)
