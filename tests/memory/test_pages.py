"""Pages of lists scrolled newest first, and their cursors."""

from __future__ import annotations

import pytest

from proxy.errors import InvalidRequest
from proxy.memory.pages import cursor, page, read_cursor

ITEMS = [(1.0, "a"), (3.0, "c"), (2.0, "b"), (3.0, "d")]


def key(item: tuple[float, str]) -> tuple[float, str]:
    return item


def test_pages_go_newest_first_and_the_cursor_picks_up_after_the_last_item() -> None:
    first = page(ITEMS, key, limit=2)
    assert first.items == [(3.0, "d"), (3.0, "c")] and first.next is not None
    second = page([*ITEMS, (9.0, "new")], key, limit=2, before=first.next)  # one added meanwhile goes to the front
    assert second.items == [(2.0, "b"), (1.0, "a")] and second.next is None
    assert page(ITEMS, key, limit=4).next is None
    assert page([], key, limit=4).items == []


def test_a_cursor_reads_back_and_anything_else_is_a_400() -> None:
    assert read_cursor(cursor((1.5, "s/1 é"))) == (1.5, "s/1 é")
    for bad in ("", "abc", cursor((1.0, "x"))[:-2] + "!!", "WzEsMl0"):  # the last one: [1,2]
        with pytest.raises(InvalidRequest) as refused:
            read_cursor(bad)
        assert refused.value.param == "before"
    with pytest.raises(InvalidRequest):
        page(ITEMS, key, limit=0)
