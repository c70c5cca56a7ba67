"""Pages of the lists a person scrolls newest first (sessions, the review queue), and the cursor to the next page.

A cursor names the last item of a page by its time and id, so the next page starts right after it whatever was
added meanwhile (new items go to the front, not into the page being read). It is opaque to clients: base64url of
``[time, id]``. Pure.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

import orjson

from ..errors import InvalidRequest

T = TypeVar("T")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
Key = tuple[float, str]  # (time, id): newest first, a larger id first on a tie


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    next: str | None  # the cursor of the next page; None: this is the last one


def cursor(key: Key) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([key[0], key[1]])).decode("ascii").rstrip("=")


def read_cursor(text: str) -> Key:
    """A cursor this module wrote; anything else is a 400."""
    try:
        at, ident = orjson.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        if isinstance(at, bool) or not isinstance(at, int | float) or not isinstance(ident, str):
            raise ValueError("not a cursor")
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
        raise InvalidRequest("'before' is not a cursor this API gave (a page's 'next')", param="before") from None
    return float(at), ident


def check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"'limit' must be from 1 to {MAX_LIMIT}, got {limit}", param="limit")
    return limit


def page(items: Iterable[T], key: Callable[[T], Key], *, limit: int, before: str | None = None) -> Page[T]:
    """The ``limit`` newest of ``items`` (by ``key``, descending) after the cursor ``before``."""
    ordered = sorted(items, key=key, reverse=True)
    if before is not None:
        after = read_cursor(before)
        ordered = [item for item in ordered if key(item) < after]
    chosen = ordered[: check_limit(limit)]
    return Page(chosen, cursor(key(chosen[-1])) if len(ordered) > len(chosen) else None)
