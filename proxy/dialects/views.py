"""The chat-shaped view of a request in another format, and where each viewed message came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class View:
    """Recall places notes by view index; ``positions`` maps them back to the format's own list.

    One position per view message: the index of the item or message it came from, -1 for instructions
    that live outside that list (``instructions``, ``system``).
    """

    messages: list[dict[str, Any]]
    positions: list[int]
