"""Merge on write (docs/merging.md): what a new memory does to the one most like it.

Pure: a similarity in [0, 1] and, in the middle band, a model's verdict go in; what to write comes out.

- at or above ``merge_threshold`` (0.7) the two are the same memory: the very same text is left as it is, a
  new wording supersedes the old one, except that an extracted fact never replaces a *stated* one (below);
- below ``add_threshold`` (0.3) they are different: the new one is added beside the old;
- in between, a writer that can ask (the background extraction job, never a request) asks the extraction model
  for a :data:`Verdict`: ``same`` merges, ``update`` supersedes, ``different`` adds; a writer that cannot ask,
  or an answer that could not be read, adds: keeping both loses nothing.

A stated memory (written through the API, the CLI, an import or the model's ``memory_store``: anything but
extraction) is never superseded by an extracted fact, whatever the band or the verdict: what a person or the
model said on purpose outranks what a summariser read into a conversation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, get_args

from .records import Memory

MERGE_THRESHOLD = 0.7  # at or above, the same memory
ADD_THRESHOLD = 0.3  # below, a different one; between the two, a model's judgement

Band = Literal["same", "judge", "different"]
Verdict = Literal["same", "update", "different"]
Action = Literal["merge", "supersede", "add"]  # merge: write nothing, the old one stands
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

# Asks the extraction model whether a new fact (the text) is the same as, updates, or differs from a memory.
Judge = Callable[[str, Memory], Awaitable[Verdict]]


def band(similarity: float, *, add_threshold: float = ADD_THRESHOLD, merge_threshold: float = MERGE_THRESHOLD) -> Band:
    if similarity >= merge_threshold:
        return "same"
    if similarity < add_threshold:
        return "different"
    return "judge"


def stated(memory: Memory) -> bool:
    """Written on purpose (API, CLI, import, ``memory_store``), not read into a conversation by extraction."""
    return memory.origin != "extraction"


def protects(old: Memory, *, extracted: bool, source: str, confidence: float) -> bool:
    """Whether ``old`` must outlive a new memory like it: an extracted fact never supersedes a stated memory,
    nor a more confident one (an extracted line imported, a correction)."""
    return extracted and stated(old) or (source == "extracted" and old.confidence > confidence)


def settle(found: Band, verdict: Verdict | None = None, *, protected: bool = False) -> Action:
    """What a write does to the memory most like it, from the similarity's band and, in the middle band, the
    model's ``verdict`` (None: nobody could be asked, or the answer was unreadable).

    ``protected`` (see :func:`protects`): the old memory is never superseded; the same fact merges into it, an
    update is added beside it (both are kept, and the newer ranks higher on recency).
    """
    if found == "same":  # a new wording of the same memory replaces it (the very same text the caller keeps)
        return "merge" if protected else "supersede"
    if found == "different" or verdict is None or verdict == "different":
        return "add"
    if verdict == "same":
        return "merge"
    return "add" if protected else "supersede"
