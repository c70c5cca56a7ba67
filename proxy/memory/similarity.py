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
thing (``bench/merging/bands.py`` measures the bands on labelled pairs). An embedding model can, so this is the
seam where one plugs in: any async callable of this shape, given to ``MemoryService(similarity=...)``, e.g. the
cosine of the two texts' embeddings (clipped to [0, 1]). It runs on every write (API, CLI, the model's
``memory_store``, extraction), so it must be quick or do its heavy work off the event loop.
"""

from __future__ import annotations

from typing import Protocol

from .ranking import MemoryIndex
from .records import Memory


class Similarity(Protocol):
    async def __call__(self, text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
        """The live memory of ``view`` most like ``text`` and how alike, in [0, 1]; None when none is at all."""
        ...


async def lexical(text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
    return view.closest(text, now=now)
