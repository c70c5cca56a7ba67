"""Pinned facts: the user's profile and the workspace's environment as memories that always open the block.

A pin lives in the user's profile (scope ``user``: it follows the user across workspaces) or in the workspace's
environment (scope ``workspace``), each within its own cap of characters of memory text
(``memory.pinned_user_chars``, ``memory.pinned_env_chars``), outside the ranked budgets. A pin that would pass
its cap, or one already pinned there, is refused with an error that says what to do: the model reads it as a
tool result, a person as a 409. Pure: the caller hands in what is pinned already.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..config import MemorySettings
from ..errors import PinRefused
from .records import Memory


@dataclass(frozen=True, slots=True)
class Pinned:
    """What a block opens with: the user's profile, then the workspace's environment, each oldest first."""

    profile: tuple[Memory, ...] = ()
    environment: tuple[Memory, ...] = ()

    @property
    def memories(self) -> tuple[Memory, ...]:
        return (*self.profile, *self.environment)

    @property
    def empty(self) -> bool:
        return not self.profile and not self.environment


NO_PINS = Pinned()


@dataclass(frozen=True, slots=True)
class PinCap:
    """One place's cap: how many characters of text its pins may hold, and the setting that says so."""

    chars: int
    setting: str
    place: str


def cap_for(scope: str, settings: MemorySettings) -> PinCap:
    if scope == "user":
        return PinCap(settings.pinned_user_chars, "memory.pinned_user_chars", "the user's profile")
    return PinCap(settings.pinned_env_chars, "memory.pinned_env_chars", "the workspace's environment")


def fit(pins: Iterable[Memory], chars: int) -> tuple[Memory, ...]:
    """The pins a block shows: oldest first while they fit ``chars``; one too long is skipped, not a stop.

    Writes keep every place within its cap; this holds the block to it too when the cap was lowered since, or two
    replicas pinned at once."""
    chosen = []
    for memory in pins:
        if len(memory.text) <= chars:
            chosen.append(memory)
            chars -= len(memory.text)
    return tuple(chosen)


def same_text(a: str, b: str) -> bool:
    """A duplicate pin: the same words, whatever their case and spacing."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def check_pin(pins: Sequence[Memory], text: str, cap: PinCap, *, replacing: str | None = None) -> None:
    """Refuse (:class:`PinRefused`) pinning ``text`` beside one place's ``pins``: a duplicate, or past the cap.

    ``replacing``: a pin about to go (superseded or edited), neither a duplicate nor counted. The message names the
    cap and how to make room."""
    kept = [m for m in pins if m.id != replacing]
    for memory in kept:
        if same_text(memory.text, text):
            raise PinRefused(
                f"already pinned as {memory.id} in {cap.place}: duplicates are refused",
                param="text",
                code="duplicate_pin",
            )
    used = sum(len(m.text) for m in kept)
    if used + len(text) <= cap.chars:
        return
    taken = ", ".join(f"{m.id}: {len(m.text)}" for m in kept) or "none"
    raise PinRefused(
        f"not pinned: pinned facts in {cap.place} may hold {cap.chars} characters ({cap.setting}); {used} are taken "
        f"({taken}) and this one has {len(text)}. Replace or remove a pinned fact first (memory_delete removes one), "
        "or pin a shorter text.",
        param="text",
        code="pinned_cap_exceeded",
    )
