"""What the context step changes in a request, by view index: the one record every dialect applies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ContextEdits:
    """``replacements``: view index of a tool result -> the placeholder that goes in its place.

    ``cut``: the view index the kept conversation starts at; everything before it but instructions (system and
    developer messages) is left out, and ``overview`` goes where the leading instructions end. 0: nothing cut.
    """

    replacements: Mapping[int, str] = field(default_factory=dict)
    cut: int = 0
    overview: str | None = None

    @property
    def empty(self) -> bool:
        return not self.replacements and self.cut == 0
