"""Recall of each scorer on the multi-user conversations dataset (``conversations.py`` writes it).

    python bench/retrieval/conversations_run.py

For each question, only its user's memories are ranked. Scorers: the first keyword-overlap scorer (from ``run.py``),
a plain stemmed BM25 over the memory texts, today's ranker (``baseline_ranker.py``, frozen as it was before
issue 17), memproxy's ranker on the question alone (``message``), and memproxy's default lexical path: the
query built from the question and the turns of its session before it (``conversation``), as recall builds it.
The first four see only the question, as memproxy did before. recall@k is the share of a question's evidence
ids in the top k, averaged over questions; reported per question type and overall, for the test and dev
splits. Tune on dev only. Results also go to ``bench/results/retrieval_conversations.json``.
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

import baseline_ranker  # noqa: E402
from run import NOW, seed000_ranking  # noqa: E402

from bench.results_file import write_results  # noqa: E402
from proxy.memory.query import conversation_query  # noqa: E402
from proxy.memory.ranking import MemoryIndex, Query  # noqa: E402
from proxy.memory.records import Memory  # noqa: E402

Messages = list[dict[str, str]]
Ranker = Callable[[Messages, int], list[str]]

DATA = HERE / "conversations"
RESULTS = HERE.parent / "results" / "retrieval_conversations.json"
TYPES = ("single", "multi", "temporal", "followup")
GROUPS = {
    **{t: (t,) for t in TYPES},
    "no-follow": ("single", "multi", "temporal"),  # the questions the dataset had before follow-ups
    "all": TYPES,
}
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


def on_question(make: Callable[[Sequence[Memory]], Callable[[str, int], list[str]]]):
    """A scorer that sees only the newest user message, as memproxy did before issue 17."""

    def build(memories: Sequence[Memory]) -> Ranker:
        rank = make(memories)
        return lambda messages, k: rank(messages[-1]["content"], k)

    return build


def today_ranking(memories: Sequence[Memory]) -> Callable[[str, int], list[str]]:
    index = baseline_ranker.MemoryIndex(memories)
    return lambda message, k: [s.memory.id for s in index.rank(baseline_ranker.Query.of(message), now=NOW, limit=k)]


def message_ranking(memories: Sequence[Memory]) -> Callable[[str, int], list[str]]:
    index = MemoryIndex(memories)
    return lambda message, k: [s.memory.id for s in index.rank(Query.of(message), now=NOW, limit=k)]


def conversation_ranking(memories: Sequence[Memory]) -> Ranker:
    index = MemoryIndex(memories)

    def rank(messages: Messages, k: int) -> list[str]:
        query = conversation_query(messages, len(messages) - 1, NOW)
        return [s.memory.id for s in index.rank(query, now=NOW, limit=k)]

    return rank


SCORERS: dict[str, Callable[[Sequence[Memory]], Ranker]] = {
    "seed000": on_question(seed000_ranking),
    "bm25": on_question(bm25_ranking),
    "today": on_question(today_ranking),
    "message": on_question(message_ranking),
    "conversation": conversation_ranking,
}


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def messages_of(question: dict) -> Messages:
    return [*question["context"], {"role": "user", "content": question["question"]}]


def evaluate(memories: list[dict], questions: list[dict]) -> dict:
    by_user: dict[str, list[Memory]] = {}
    for m in memories:
        by_user.setdefault(m["user"], []).append(Memory.from_json(m))
    rankers = {name: {u: make(ms) for u, ms in by_user.items()} for name, make in SCORERS.items()}
    hits: dict[str, list[tuple[dict, float, float]]] = {name: [] for name in SCORERS}
    for q in questions:
        evidence = set(q["evidence"])
        for name in SCORERS:
            top = rankers[name][q["user"]](messages_of(q), 10)
            hits[name].append(
                (q, len(set(top[:5]) & evidence) / len(evidence), len(set(top) & evidence) / len(evidence))
            )
    table: dict = {}
    for split in ("test", "dev"):
        for group, types in GROUPS.items():
            row: dict[str, float] = {"n": sum(q["split"] == split and q["type"] in types for q in questions)}
            for name in SCORERS:
                chosen = [h for h in hits[name] if h[0]["split"] == split and h[0]["type"] in types]
                row[f"{name} @5"] = statistics.fmean(h[1] for h in chosen)
                row[f"{name} @10"] = statistics.fmean(h[2] for h in chosen)
            row["gain @10"] = row["conversation @10"] / row["today @10"] - 1
            table.setdefault(split, {})[group] = row
    return table


def print_table(table: dict) -> None:
    columns = [f"{name} @{k}" for k in (5, 10) for name in SCORERS]
    for split, rows in table.items():
        print(f"{split:<9} {'n':>4} " + " ".join(f"{c.split()[0][:8] + ' ' + c.split()[1]:>12}" for c in columns))
        for group, row in rows.items():
            print(
                f"{group:<9} {row['n']:>4} "
                + " ".join(f"{row[c]:>12.3f}" for c in columns)
                + f"   {row['gain @10']:+.1%} @10 vs today"
            )
        print()


def main() -> int:
    memories, questions = load("memories.jsonl"), load("questions.jsonl")
    users = {m["user"] for m in memories}
    print(
        f"{len(memories)} memories of {len(users)} users, {len(questions)} questions "
        f"({sum(q['split'] == 'test' for q in questions)} test)\n"
    )
    table = evaluate(memories, questions)
    print_table(table)
    write_results(RESULTS, table)
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
