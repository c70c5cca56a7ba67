"""The plain rankers memproxy is measured against on public benchmarks, and a cache of the model's vectors.

Each ranks one user's memories for a question's text alone, all of them, nothing else (no recency, no sessions):

- ``keyword``: the first ranker's count of shared words (three letters or more, its stopwords out), newest first on
  ties;
- ``bm25``: Okapi BM25 over lower-cased words, k1 1.2, b 0.75, no stemming;
- ``bm25-stem``: the same over Snowball stems with b 0.3 (memories are short and alike in length);
- ``fusion``: ``bm25-stem``'s scores over the best one's, plus the cosine of all-MiniLM-L6-v2's vectors, half
  and half (the light fusion published memory baselines use);
- ``rrf``: reciprocal-rank fusion of ``bm25-stem`` and cosine, k 60.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import snowballstemmer
from public_data import Item
from run import seed_words

Ranking = Callable[[str, int], list[Item]]
_TOKEN = re.compile(r"[a-z0-9]+")
_STEM = snowballstemmer.stemmer("english").stemWords
FUSION_ALPHA = 0.5
RRF_K = 60


def keyword(items: Sequence[Item]) -> Ranking:
    words = [seed_words(item.text) for item in items]

    def rank(question: str, k: int) -> list[Item]:
        asked = seed_words(question)
        scored = sorted(
            ((len(mine & asked), item.ts, n) for n, (item, mine) in enumerate(zip(items, words, strict=True))),
            reverse=True,
        )
        return [items[n] for _, _, n in scored[:k]]

    return rank


class BM25:
    def __init__(self, items: Sequence[Item], *, stem: bool, b: float, k1: float = 1.2) -> None:
        self.items, self.stem, self.b, self.k1 = items, stem, b, k1
        docs = [Counter(self.terms(item.text)) for item in items]
        lengths = [sum(doc.values()) for doc in docs]
        average = sum(lengths) / max(len(lengths), 1)
        count = len(docs)
        df = Counter(term for doc in docs for term in doc)
        self.idf = {t: math.log(1 + (count - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for n, (doc, length) in enumerate(zip(docs, lengths, strict=True)):
            norm = k1 * (1 - b + b * length / max(average, 1e-9))
            for term, tf in doc.items():
                self.postings.setdefault(term, []).append((n, tf * (k1 + 1) / (tf + norm)))

    def terms(self, text: str) -> list[str]:
        words = _TOKEN.findall(text.lower())
        return _STEM(words) if self.stem else words

    def scores(self, question: str) -> np.ndarray[Any, Any]:
        out = np.zeros(len(self.items))
        for term in set(self.terms(question)):
            idf = self.idf.get(term)
            if idf is not None:
                for n, weight in self.postings[term]:
                    out[n] += idf * weight
        return out

    def __call__(self, question: str, k: int) -> list[Item]:
        return _top(self.items, self.scores(question), k)


def _top(items: Sequence[Item], scores: np.ndarray[Any, Any], k: int) -> list[Item]:
    """The ``k`` best, ties to the newest (as the first ranker broke them)."""
    ts = np.array([item.ts for item in items])
    order = np.lexsort((-ts, -scores))[:k]
    return [items[n] for n in order]


def fusion(
    items: Sequence[Item], vectors: np.ndarray[Any, Any], encode: Callable[[str], np.ndarray[Any, Any]]
) -> Ranking:
    lexical = BM25(items, stem=True, b=0.3)

    def rank(question: str, k: int) -> list[Item]:
        bm25 = lexical.scores(question)
        best = bm25.max()
        cosine = vectors @ encode(question)
        return _top(items, FUSION_ALPHA * (bm25 / best if best > 0 else bm25) + (1 - FUSION_ALPHA) * cosine, k)

    return rank


def reciprocal(
    items: Sequence[Item], vectors: np.ndarray[Any, Any], encode: Callable[[str], np.ndarray[Any, Any]]
) -> Ranking:
    lexical = BM25(items, stem=True, b=0.3)

    def rank(question: str, k: int) -> list[Item]:
        total = np.zeros(len(items))
        for scores in (lexical.scores(question), vectors @ encode(question)):
            ranks = np.empty(len(items))
            ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(items) + 1)
            total += 1 / (RRF_K + ranks)
        return _top(items, total, k)

    return rank


class VectorCache:
    """all-MiniLM-L6-v2's vectors by text, kept on disk (``--cache``) so that a run embeds each text once.

    Vectors are kept as float16, as memproxy stores them; queries too (their cosines move by about 1e-4)."""

    def __init__(self, directory: Path, model: str) -> None:
        self.path = directory / (re.sub(r"[^A-Za-z0-9]+", "-", model) + ".npz")
        self.model = model
        self.vectors: dict[bytes, np.ndarray[Any, Any]] = {}
        self.encoder: Any = None
        self.fresh = 0
        if self.path.exists():
            with np.load(self.path) as stored:
                keys, rows = stored["keys"], stored["rows"]
            self.vectors = {bytes(key): row for key, row in zip(keys, rows, strict=True)}

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.blake2b(text.encode(), digest_size=16).digest()

    def encode(
        self, texts: Sequence[str], *, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray[Any, Any]:
        """Unit vectors, one row per text (float32 rows of the float16 kept)."""
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.vectors))
        if missing:
            if self.encoder is None:
                from proxy.memory.embedding_model import resolve_model
                from proxy.memory.encoder import SentenceEncoder

                self.encoder = SentenceEncoder(resolve_model(self.model))
            for start in range(0, len(missing), 256):
                batch = missing[start : start + 256]
                for text, row in zip(batch, self.encoder.encode(batch).astype(np.float16), strict=True):
                    self.vectors[self.key(text)] = row
                self.fresh += len(batch)
                if progress is not None:
                    progress(start + len(batch), len(missing))
                if self.fresh >= 4096:
                    self.save()
        return np.stack([self.vectors[self.key(t)] for t in texts]).astype(np.float32) if texts else np.zeros((0, 384))

    def save(self) -> None:
        if not self.fresh:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.vectors), dtype="S16")
        rows = np.stack(list(self.vectors.values()))
        partial = self.path.with_suffix(".partial.npz")
        np.savez(partial, keys=keys, rows=rows)
        partial.replace(self.path)
        self.fresh = 0
