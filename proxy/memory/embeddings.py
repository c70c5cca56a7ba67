"""Optional hybrid retrieval: a local embedding model, memories' vectors, and one request's query vector.

On with ``memory.embeddings.enabled`` or ``.model`` (``pip install -e '.[embeddings]'``), or by ``enabled:
auto`` where the model's weights are on the machine (:mod:`.embedding_model`); imported only then, so
the lexical path never loads numpy or the model. What runs where:

- a memory is embedded before it is written (``MemoryService.add``, an import in batches), in a worker
  thread, and stored with it (:class:`~.records.Embedding`, both backends);
- memories written before embeddings were on (or by another model) are embedded in the background, batched,
  when their owner is next read, and given their vectors on their current versions (``set_embeddings``);
- a request's query is embedded in another worker thread (cached by text), with a deadline
  (``memory.embeddings.deadline_ms``): when the model is slow the request is ranked lexically, never held up;
- each owner's vectors are a matrix kept per index version, so similarity over all of them is one product; a
  memory of several sentences has a row for each (:mod:`.embedding_pieces`), and its cosine is its whole text's
  lifted ``PIECE_SHARE`` of the way to its best sentence's.

The model runs with one BLAS thread per worker: on a small machine serving requests, more threads only wait
for each other.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import math
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .embedding_model import SHORT_NAMES, check_installed, resolve_model
from .embedding_pieces import pieces
from .fusion import cosine, fuse_scores, rare_word_score
from .ranking import MemoryIndex, Scored
from .records import Embedding, Memory
from .store import MemoryStore, Owner

if TYPE_CHECKING:
    from .encoder import SentenceEncoder

log = logging.getLogger("proxy.memory")

QUERY_CACHE = 2048
QUERY_CHARS = 2000  # the model reads 256 tokens at most: the start of a long message is what it sees
PAIRED = 4  # fusion scores this many times the memories a ranking keeps, the best of either side, by both
WRITE_BATCH = 64
PIECE_SHARE = 0.7  # how far a memory's best sentence lifts its cosine from the whole text's toward its own


@dataclass(slots=True)
class _Vectors:
    """One owner index's live memories with an embedding of this model: their pieces' vectors as rows of a matrix,
    a memory's rows together (``starts``: its first), so similarity over all of them is one product."""

    version: int
    memories: list[Memory]
    matrix: np.ndarray[Any, Any]
    missing: list[Memory] = field(default_factory=list)  # live, not embedded yet (or by another model)
    starts: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    rows: dict[str, int] = field(default_factory=dict)  # memory id -> its place in ``memories``

    def __post_init__(self) -> None:
        if not self.rows and self.memories:
            self.rows = {memory.id: row for row, memory in enumerate(self.memories)}
        if len(self.starts) != len(self.memories):
            self.starts = np.arange(len(self.memories), dtype=np.int64)

    def similarity(self, vector: np.ndarray[Any, Any], *, whole: bool = False) -> np.ndarray[Any, Any]:
        """Each memory's cosine to ``vector``: its whole text's lifted ``PIECE_SHARE`` of the way to its best
        piece's, or (``whole``) its whole text's alone."""
        product = self.matrix @ vector
        if len(product) == len(self.memories):
            return product
        texts = product[self.starts]
        if whole:
            return texts
        return texts + PIECE_SHARE * (np.maximum.reduceat(product, self.starts) - texts)


class Embeddings:
    def __init__(self, model: str, *, deadline_s: float = 0.25, directory: Path | None = None) -> None:
        """``deadline_s``: how long a request waits for its query's vector before it is ranked lexically."""
        check_installed()
        self.deadline_s = deadline_s
        self.model = SHORT_NAMES.get(model, model)
        self.directory = directory if directory is not None else resolve_model(model)
        self.encoder: SentenceEncoder | None = None
        self._queries = ThreadPoolExecutor(1, thread_name_prefix="embed-query")  # never behind a batch of writes
        self._writes = ThreadPoolExecutor(1, thread_name_prefix="embed-write")
        self._cache: OrderedDict[str, np.ndarray[Any, Any]] = OrderedDict()
        self._vectors: weakref.WeakKeyDictionary[MemoryIndex, _Vectors] = weakref.WeakKeyDictionary()
        self._filling: dict[Owner, asyncio.Task[None]] = {}
        self.width = 0  # the model's vector size, once it has encoded anything

    async def start(self) -> None:
        """Load the model (a second or so), in a thread."""
        if self.encoder is None:
            self.encoder = await asyncio.get_running_loop().run_in_executor(self._writes, self._load)

    def _load(self) -> SentenceEncoder:
        from .encoder import SentenceEncoder

        return SentenceEncoder(self.directory)

    # -- writing --------------------------------------------------------------------------------------------

    async def embed(self, texts: Sequence[str]) -> list[Embedding]:
        """Embeddings to store with memories, computed off the event loop."""
        await self.start()
        loop = asyncio.get_running_loop()
        out: list[Embedding] = []
        for start in range(0, len(texts), WRITE_BATCH):
            batch = list(texts[start : start + WRITE_BATCH])
            out += await loop.run_in_executor(self._writes, self._embed, batch)
        return out

    def _embed(self, texts: list[str]) -> list[Embedding]:
        """Each text's pieces (:func:`~.embedding_pieces.pieces`) encoded in one batch, a memory's rows stored
        one after another, its whole text first."""
        split = [pieces(text) for text in texts]
        rows = self._encode([piece for parts in split for piece in parts]).astype("<f2")
        out, start = [], 0
        for parts in split:
            out.append(Embedding(self.model, rows[start : start + len(parts)].tobytes()))
            start += len(parts)
        return out

    def _encode(self, texts: list[str]) -> np.ndarray[Any, Any]:
        assert self.encoder is not None
        rows = self.encoder.encode(texts)
        self.width = rows.shape[1]
        return rows

    async def similarity(self, text: str, memories: Sequence[Memory]) -> list[float | None]:
        """Cosine similarity of ``text`` to each memory's whole text (None: that memory has no embedding of this
        model yet).

        For write quality: how near a new fact is to the memories it might update or duplicate."""
        [mine] = await self.embed([text])
        width = 2 * self.width
        whole = [Embedding(m.embedding.model, m.embedding.vector[:width]) if m.embedding else None for m in memories]
        return [cosine(Embedding(mine.model, mine.vector[:width]), e) if e is not None else None for e in whole]

    def backfill(self, store: MemoryStore, owner: Owner, view: MemoryIndex) -> None:
        """Embed, in the background, the owner's live memories that have no embedding of this model."""
        if owner in self._filling or not self.vectors(view).missing:
            return
        task = asyncio.ensure_future(self._fill(store, owner, list(self.vectors(view).missing)))
        self._filling[owner] = task
        task.add_done_callback(lambda _: self._filling.pop(owner, None))

    async def _fill(self, store: MemoryStore, owner: Owner, memories: list[Memory]) -> None:
        try:
            for start in range(0, len(memories), WRITE_BATCH):
                batch = memories[start : start + WRITE_BATCH]
                embedded = await self.embed([m.text for m in batch])
                await store.set_embeddings(owner, {m.id: e for m, e in zip(batch, embedded, strict=True)})
            log.info("embedded %d memories of %s", len(memories), owner.label)
        except Exception as exc:  # noqa: BLE001 - tried again when the owner is next read
            log.warning("could not embed memories of %s: %s", owner.label, exc or type(exc).__name__)

    async def drain(self) -> None:
        """Wait for the background embedding started so far (tests, shutdown)."""
        while self._filling:
            await asyncio.gather(*self._filling.values(), return_exceptions=True)

    # -- reading --------------------------------------------------------------------------------------------

    async def query(self, text: str) -> np.ndarray[Any, Any] | None:
        """The query's vector, or None when the model did not answer within ``deadline_s``."""
        text = text[:QUERY_CHARS]
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        if self.encoder is None:
            return None
        future = asyncio.get_running_loop().run_in_executor(self._queries, self._encode_query, text)
        future.add_done_callback(lambda done: self._remember(text, done))  # late answers are cached too
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.deadline_s)
        except TimeoutError:
            log.warning("query embedding slower than %.0f ms: ranked lexically", self.deadline_s * 1000)
            return None

    def _encode_query(self, text: str) -> np.ndarray[Any, Any]:
        return self._encode([text])[0]

    def _remember(self, text: str, done: asyncio.Future[np.ndarray[Any, Any]]) -> None:
        if done.cancelled() or done.exception() is not None:
            return
        self._cache[text] = done.result()
        while len(self._cache) > QUERY_CACHE:
            self._cache.popitem(last=False)

    def bind(self, vector: np.ndarray[Any, Any]) -> Bound:
        """This request's query vector, ready to fuse with lexical rankings (:class:`~.fusion.Semantic`)."""
        return Bound(self, vector)

    def vectors(self, view: MemoryIndex) -> _Vectors:
        """The view's embedded memories as a matrix, brought up to date when the view changed: rows of memories
        that did not change are copied from the last matrix, only new ones decoded (10,000 memories: a few ms)."""
        known = self._vectors.get(view)
        if known is not None and known.version == view.version:
            return known
        before: dict[int, tuple[int, int]] = {}
        if known is not None and len(known.matrix):
            ends = [*known.starts[1:].tolist(), len(known.matrix)]
            before = {id(m): (s, e) for m, s, e in zip(known.memories, known.starts.tolist(), ends, strict=True)}
        memories, missing, fresh = [], [], []
        firsts: list[int] = []  # each memory's first row in the last matrix (-1: decoded anew)...
        counts: list[int] = []  # ...and how many rows it has there (decoded anew: its bytes, in rows below)
        for memory in view:
            embedding = memory.embedding
            if not view.is_live(memory.id):
                continue
            if embedding is None or embedding.model != self.model:
                missing.append(memory)
                continue
            memories.append(memory)
            span = before.get(id(memory))  # the very same (frozen) record: its rows are still right
            if span is None:
                fresh.append(embedding.vector)
                firsts.append(-1)
                counts.append(len(embedding.vector))
            else:
                firsts.append(span[0])
                counts.append(span[1] - span[0])
        width = self.width or (known.matrix.shape[1] if before and known is not None else 0)
        width = width or (math.gcd(*(len(v) for v in fresh)) // 2 if fresh else 0)
        if not memories or not width or any(len(vector) % (2 * width) for vector in fresh):  # none, or resized
            return self._remember_vectors(view, _Vectors(view.version, [], np.zeros((0, 0), np.float32), missing))
        decoded = np.frombuffer(b"".join(fresh), dtype="<f2").reshape(-1, width).astype(np.float32)
        old = known.matrix if before and known is not None else np.zeros((0, width), np.float32)
        first, count = np.asarray(firsts, dtype=np.int64), np.asarray(counts, dtype=np.int64)
        new = first < 0
        count[new] //= 2 * width
        first[new] = len(old) + np.cumsum(count[new]) - count[new]  # the new rows follow the old ones
        starts = np.cumsum(count) - count
        rows = np.repeat(first - starts, count) + np.arange(int(count.sum()))  # one gather, in the view's order
        matrix = np.concatenate([old, decoded]).take(rows, axis=0)
        return self._remember_vectors(view, _Vectors(view.version, memories, matrix, missing, starts))

    def _remember_vectors(self, view: MemoryIndex, vectors: _Vectors) -> _Vectors:
        self._vectors[view] = vectors
        return vectors

    def close(self) -> None:
        self._queries.shutdown(wait=False, cancel_futures=True)
        self._writes.shutdown(wait=False, cancel_futures=True)


class Bound:
    """A query vector and the owners' memory vectors: the semantic half of one request's ranking."""

    def __init__(self, embeddings: Embeddings, vector: np.ndarray[Any, Any]) -> None:
        self.embeddings = embeddings
        self.vector = vector

    def similar(
        self, views: Sequence[MemoryIndex], *, limit: int, visible: Callable[[Memory], bool], whole: bool = False
    ) -> list[Scored]:
        """The memories nearest the query, best first, scored by cosine similarity (``whole``: of their whole
        texts alone, as merge on write compares a new memory with the ones it might update)."""
        found: list[Scored] = []
        for view in views:
            vectors = self.embeddings.vectors(view)
            if not vectors.memories or vectors.matrix.shape[1] != self.vector.shape[0]:
                continue
            similarity = vectors.similarity(self.vector, whole=whole)
            take = min(len(similarity), 2 * limit)
            top = np.argpartition(-similarity, take - 1)[:take] if take < len(similarity) else range(len(similarity))
            hits = [Scored(vectors.memories[i], float(similarity[i])) for i in top]
            found += [s for s in hits if visible(s.memory)]
        found.sort(key=lambda s: s.score, reverse=True)
        return found[:limit]

    def add(self, index: MemoryIndex, scores: dict[str, float], *, keep: int) -> dict[str, float]:
        """The index's lexical ``scores`` fused with this vector's cosines (:func:`~.fusion.fuse_scores`)."""
        return fuse_scores(scores, self.cosines(index, scores, keep=keep), unit=rare_word_score(len(index)))

    def cosines(self, index: MemoryIndex, scores: dict[str, float], *, keep: int) -> dict[str, float]:
        """This vector's cosine to the ``PAIRED`` times ``keep`` memories of the index nearest it and to as many of
        the best by ``scores``, by memory id: every memory near the top on either side is scored by both."""
        vectors = self.embeddings.vectors(index)
        if not vectors.memories or vectors.matrix.shape[1] != self.vector.shape[0]:
            return {}
        similarity = vectors.similarity(self.vector)
        wide = PAIRED * keep
        take = min(len(similarity), wide)
        nearest = np.argpartition(-similarity, take - 1)[:take] if take < len(similarity) else range(len(similarity))
        memories, rows = vectors.memories, vectors.rows
        cosines = {memories[row].id: float(similarity[row]) for row in nearest}
        paired = scores if len(scores) <= wide else heapq.nlargest(wide, scores, key=scores.__getitem__)
        for memory_id in paired:
            row = rows.get(memory_id)
            if row is not None:
                cosines[memory_id] = float(similarity[row])
        return cosines
