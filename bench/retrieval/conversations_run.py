"""Recall of three scorers on the multi-user conversations dataset (``conversations.py`` writes it).

    python bench/retrieval/conversations_run.py

For each question, only its user's memories are ranked. Scorers: seed 000's keyword overlap (from ``run.py``),
a plain stemmed BM25 over the memory texts, and memproxy's ranker. recall@k is the share of a question's evidence
ids in the top k, averaged over questions; reported per question type and overall, for the test and dev splits.
Results also go to ``bench/results/retrieval_conversations.json``.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import snowballstemmer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import memproxy_ranking, seed000_ranking  # noqa: E402

from proxy.memory.records import Memory  # noqa: E402

DATA = HERE / "conversations"
RESULTS = HERE.parent / "results" / "retrieval_conversations.json"
TYPES = ("single", "multi", "temporal")
_STEMMER = snowballstemmer.stemmer("english")
_TOKEN = re.compile(r"[a-z0-9]+")


def bm25_terms(text: str) -> list[str]:
    return _STEMMER.stemWords(_TOKEN.findall(text.lower()))


def bm25_ranking(memories: Sequence[Memory], k1: float = 1.2, b: float = 0.75) -> Callable[[str, int], list[str]]:
    docs = [Counter(bm25_terms(m.text)) for m in memories]
    lengths = [sum(d.values()) for d in docs]
    avgdl = statistics.fmean(lengths)
    df = Counter(term for d in docs for term in d)
    n = len(docs)
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(message: str, k: int) -> list[str]:
        query = set(bm25_terms(message))
        scored = []
        for memory, doc, length in zip(memories, docs, lengths, strict=True):
            score = sum(
                idf[t] * doc[t] * (k1 + 1) / (doc[t] + k1 * (1 - b + b * length / avgdl)) for t in query if t in doc
            )
            scored.append((score, memory.created, memory.id))
        scored.sort(reverse=True)
        return [memory_id for _, _, memory_id in scored[:k]]

    return rank


SCORERS = {"seed000": seed000_ranking, "bm25": bm25_ranking, "memproxy": memproxy_ranking}


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def evaluate(memories: list[dict], questions: list[dict]) -> dict:
    by_user: dict[str, list[Memory]] = {}
    for m in memories:
        by_user.setdefault(m["user"], []).append(Memory.from_json(m))
    rankers = {name: {u: make(ms) for u, ms in by_user.items()} for name, make in SCORERS.items()}
    hits: dict[str, list[tuple[dict, float, float]]] = {name: [] for name in SCORERS}
    for q in questions:
        evidence = set(q["evidence"])
        for name in SCORERS:
            top = rankers[name][q["user"]](q["question"], 10)
            hits[name].append(
                (q, len(set(top[:5]) & evidence) / len(evidence), len(set(top) & evidence) / len(evidence))
            )
    table: dict = {}
    for split in ("test", "dev"):
        for group in (*TYPES, "all"):
            row = {"n": sum(q["split"] == split and group in ("all", q["type"]) for q in questions)}
            for name in SCORERS:
                chosen = [h for h in hits[name] if h[0]["split"] == split and group in ("all", h[0]["type"])]
                row[f"{name} @5"] = statistics.fmean(h[1] for h in chosen)
                row[f"{name} @10"] = statistics.fmean(h[2] for h in chosen)
            table.setdefault(split, {})[group] = row
    return table


def main() -> int:
    memories, questions = load("memories.jsonl"), load("questions.jsonl")
    users = {m["user"] for m in memories}
    print(
        f"{len(memories)} memories of {len(users)} users, {len(questions)} questions "
        f"({sum(q['split'] == 'test' for q in questions)} test)\n"
    )
    table = evaluate(memories, questions)
    columns = [f"{name} @{k}" for k in (5, 10) for name in SCORERS]
    for split, rows in table.items():
        print(f"{split:<9} {'n':>4} " + " ".join(f"{c:>12}" for c in columns))
        for group, row in rows.items():
            print(f"{group:<9} {row['n']:>4} " + " ".join(f"{row[c]:>12.3f}" for c in columns))
        print()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(table, indent=2) + "\n")
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
