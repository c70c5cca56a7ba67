"""Retrieval quality and speed of memproxy's ranking, next to the first keyword-overlap scoring and today's ranker.

    python bench/retrieval/run.py            # recall@5/@10 per split, and ranking time at 500 / 10k / 100k memories
    python bench/retrieval/run.py --quick    # recall only, timing at 500 and 10k

Two datasets. The first (``memories.jsonl``: 336 memories of one user from 59 conversations; ``queries.jsonl``:
206 messages that paraphrase what they need, with the ids a good assistant would want) was written for this
benchmark without sight of either ranker. The second is ``conversations_run.py``'s: 12 users, 1,032 memories,
718 questions asked in new sessions after the turns before them, recall per question type for that first scoring, plain
BM25, today's ranker (``baseline_ranker.py``, frozen before issue 17), memproxy on the question alone and
memproxy's default lexical path (the query built from the conversation). Parameters were tuned on the ``dev``
splits; ``test`` is the check. Results also go to ``bench/results/retrieval.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from proxy.memory.ranking import MemoryIndex, Query  # noqa: E402
from proxy.memory.records import Memory, parse_ts  # noqa: E402

RESULTS = HERE.parent / "results" / "retrieval.json"
NOW = parse_ts("2026-10-01T09:00:00Z")

# The first scorer, verbatim: unique words of the memory found in the message, plus a recency bonus.
_SEED_STOPWORD_TEXT = """the and for are but not you all can has her was one our out its use how may who did get had him
    his let say she too own way about could from have into just like make many some than that them then this very when
    what with will would been each more most much must only also back being come every first here know made need
    over such take where which while work project please help want using thing file should"""
SEED_STOPWORDS = frozenset(_SEED_STOPWORD_TEXT.split())
_SEED_WORD = re.compile(r"[^a-z0-9]+")


def seed_words(text: str) -> set[str]:
    return {w for w in _SEED_WORD.split(text.lower()) if len(w) >= 3 and w not in SEED_STOPWORDS}


def seed000_ranking(memories: Sequence[Memory]) -> Callable[[str, int], list[str]]:
    words = [(m, seed_words(m.text)) for m in memories]

    def rank(message: str, k: int) -> list[str]:
        query = seed_words(message)
        scored = []
        for memory, memory_words in words:
            age_hours = max((NOW - memory.created) / 3600, 0.1)
            scored.append((len(memory_words & query) + min(1.0, 0.1 / age_hours), memory.created, memory.id))
        scored.sort(reverse=True)
        return [memory_id for _, _, memory_id in scored[:k]]

    return rank


def memproxy_ranking(memories: Sequence[Memory]) -> Callable[[str, int], list[str]]:
    index = MemoryIndex(memories)

    def rank(message: str, k: int) -> list[str]:
        return [s.memory.id for s in index.rank(Query.of(message), now=NOW, limit=k)]

    return rank


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


def recall_at(rank: Callable[[str, int], list[str]], queries: Sequence[dict], k: int) -> float:
    hits = [len(set(rank(q["query"], k)) & set(q["expected"])) / len(q["expected"]) for q in queries]
    return statistics.fmean(hits)


def today_ranking(memories: Sequence[Memory]) -> Callable[[str, int], list[str]]:
    import baseline_ranker

    index = baseline_ranker.MemoryIndex(memories)
    return lambda message, k: [s.memory.id for s in index.rank(baseline_ranker.Query.of(message), now=NOW, limit=k)]


def quality(memories: list[Memory], queries: list[dict]) -> dict[str, dict[str, float]]:
    rankers = {
        "seed000": seed000_ranking(memories),
        "today": today_ranking(memories),
        "memproxy": memproxy_ranking(memories),
    }
    table: dict[str, dict[str, float]] = {}
    for split in ("dev", "test", "all"):
        chosen = [q for q in queries if split == "all" or q["split"] == split]
        for name, rank in rankers.items():
            for k in (5, 10):
                table.setdefault(split, {})[f"{name} recall@{k}"] = recall_at(rank, chosen, k)
        for k in (5, 10):
            base = table[split][f"seed000 recall@{k}"]
            table[split][f"relative gain @{k}"] = table[split][f"memproxy recall@{k}"] / base - 1
    return table


def synthetic(memories: list[Memory], n: int, rng: random.Random) -> list[Memory]:
    """``n`` memories shaped like the dataset's: its texts with a third of their words swapped for others
    and for new names and numbers, so the vocabulary grows with ``n`` as real text does (Heaps' law)."""
    vocabulary = sorted({w for m in memories for w in re.findall(r"[A-Za-z]+", m.text)})
    out = []
    for i in range(n):
        template = rng.choice(memories)
        words = template.text.split()
        for position in rng.sample(range(len(words)), k=max(1, len(words) // 3)):
            roll = rng.random()
            words[position] = (
                rng.choice(vocabulary)
                if roll < 0.7
                else f"svc{rng.randrange(n)}"
                if roll < 0.85
                else str(rng.randrange(10_000))
            )
        out.append(
            Memory(
                id=f"m-{i + 1}",
                text=" ".join(words),
                tags=template.tags,
                category=template.category,
                created=NOW - rng.uniform(0, 365 * 86400),
                session=f"s-{i // 6}",
            )
        )
    return out


def speed(memories: list[Memory], queries: list[dict], sizes: Sequence[int]) -> dict[str, dict[str, float]]:
    rng = random.Random(42)
    messages = [q["query"] for q in queries]
    out = {}
    for size in sizes:
        corpus = memories if size == len(memories) else synthetic(memories, size, rng)
        began = time.perf_counter()
        index = MemoryIndex(corpus)
        build_s = time.perf_counter() - began
        for message in messages[:20]:  # warm the stemmer cache, as a running proxy has
            index.rank(Query.of(message), now=NOW, limit=20)
        timings = []
        for _ in range(3):
            for message in messages:
                began = time.perf_counter()
                index.rank(Query.of(message), now=NOW, limit=20)
                timings.append((time.perf_counter() - began) * 1000)
        timings.sort()
        out[str(size)] = {
            "build_s": build_s,
            "mean_ms": statistics.fmean(timings),
            "p50_ms": timings[len(timings) // 2],
            "p99_ms": timings[int(len(timings) * 0.99)],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the 100,000-memory timing")
    args = parser.parse_args(argv)
    memories = [Memory.from_json(line) for line in load("memories.jsonl")]
    queries = load("queries.jsonl")
    table = quality(memories, queries)
    print(f"{len(memories)} memories, {len(queries)} queries ({sum(q['split'] == 'dev' for q in queries)} dev)\n")
    columns = [f"{name} recall@{k}" for k in (5, 10) for name in ("seed000", "today", "memproxy")]
    print(f"{'split':<6} " + " ".join(f"{c.replace(' recall', ''):>12}" for c in columns) + f" {'vs seed000 @10':>15}")
    for split, row in table.items():
        print(f"{split:<6} " + " ".join(f"{row[c]:>12.3f}" for c in columns) + f" {row['relative gain @10']:>+15.1%}")
    import conversations_run

    print("\nconversations (conversations_run.py): the default lexical path is 'conversation'\n")
    conversations = conversations_run.evaluate(
        conversations_run.load("memories.jsonl"), conversations_run.load("questions.jsonl")
    )
    conversations_run.print_table(conversations)
    sizes = [500, 10_000] if args.quick else [500, 10_000, 100_000]
    timing = speed(memories, queries, sizes)
    print(
        f"\n{'memories':>9} {'build s':>8} {'mean ms':>8} {'p50 ms':>7} {'p99 ms':>7}   (ranking one message, limit 20)"
    )
    for size, row in timing.items():
        print(
            f"{int(size):>9,} {row['build_s']:>8.2f} {row['mean_ms']:>8.3f} {row['p50_ms']:>7.3f} {row['p99_ms']:>7.3f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"quality": table, "conversations": conversations, "speed": timing}, indent=2) + "\n")
    print(f"\nresults: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
