"""How alike a new memory is to the most similar one already stored: the number merge on write decides by.

A :class:`Similarity` finds, among an owner's live memories (held ones are never candidates), the one most
like a text and says how alike they are as a number in [0, 1]: 1 for the same content, 0 for nothing shared.
The bands in :mod:`proxy.memory.merging` (0.3 and 0.7) read that number.

The default, :func:`lexical`, is :meth:`MemoryIndex.closest`: a weighted Jaccard over the two texts' distinct
stemmed words, each weighing its idf squared over the owner's memories (counted as at least 100): the weight of the
words they share over the weight of all the words either has. In a new user's store, a restatement ("The user's
billing service is deployed with Nomad" after "The billing service is deployed with Nomad") scores 0.72, a change
that keeps most words ("... is now deployed with Kubernetes on GKE") 0.42, one word of four apart ("User's beta
project uses Rust" after "User's alpha ...") 0.54, and a change told in other words ("We moved the deploy target to
GCP europe-west1" after "Deploy target is AWS us-east-1") 0.16: words cannot see that those two are about one
thing (``bench/merging/bands.py`` measures the bands on labelled pairs). An embedding model can: with
``memory.embeddings.model`` on, :func:`embedded` (the cosine of the two texts' embeddings, calibrated to the bands)
takes the lexical one's place. Any async callable of this shape may, given to ``MemoryService(similarity=...)``.
It runs on every write (API, CLI, the model's ``memory_store``, extraction), so it must be quick or do its heavy
work off the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .ranking import MemoryIndex
from .records import Memory

if TYPE_CHECKING:  # numpy and the model load only when memory.embeddings.model is set
    from .embeddings import Embeddings

# An embedding model's cosine runs on its own scale: all-MiniLM-L6-v2 puts restatements at 0.72-0.98 (most above
# 0.85), updates at 0.50-0.85 and different facts at 0.04-0.89 (bench/merging/bands.py). These two cosines are
# mapped onto the bands' 0.3 and 0.7, linearly between (and 0 and 1 at the ends), so the thresholds mean the same
# with embeddings on: below 0.4 different, 0.9 and above the same, the rest judged.
EMBEDDING_DIFFERENT_BELOW = 0.4
EMBEDDING_SAME_FROM = 0.9


class Similarity(Protocol):
    async def __call__(self, text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
        """The live memory of ``view`` most like ``text`` and how alike, in [0, 1]; None when none is at all."""
        ...


async def lexical(text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
    return view.closest(text, now=now)


def embedded(embeddings: Embeddings) -> Similarity:
    """With ``memory.embeddings.model`` on: the cosine of the text's embedding and the nearest embedded live
    memory's, on the bands' scale (:func:`calibrated`). The lexical similarity stands in when the text is not
    embedded within the embeddings' deadline or no memory of the owner has an embedding yet (they are backfilled
    in the background)."""

    async def similarity(text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
        vector = await embeddings.query(text)
        if vector is not None:
            nearest = embeddings.bind(vector).similar([view], limit=1, visible=_anywhere, whole=True)
            if nearest:
                return nearest[0].memory, calibrated(nearest[0].score)
        return await lexical(text, view, now=now)

    return similarity


def calibrated(cosine: float, *, low: float = EMBEDDING_DIFFERENT_BELOW, high: float = EMBEDDING_SAME_FROM) -> float:
    """An embedding cosine on the bands' scale: ``low`` to 0.3, ``high`` to 0.7, piecewise linear, within [0, 1]."""
    cosine = min(max(cosine, 0.0), 1.0)
    if cosine < low:
        return 0.3 * cosine / low
    if cosine < high:
        return 0.3 + 0.4 * (cosine - low) / (high - low)
    return 0.7 + 0.3 * (cosine - high) / (1.0 - high)


def _anywhere(memory: Memory) -> bool:
    return True
