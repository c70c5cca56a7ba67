"""Recall on public long-conversation memory benchmarks, through memproxy's injection path and beside plain rankers.

    python bench/retrieval/public.py --locomo PATH/locomo10.json [--realtalk PATH/REALTALK/data]
        [--longmemeval PATH/longmemeval_s.json] [--split tune|held|all] [--limit N] [--embeddings] [--cache DIR]
        [--approve-held]

The data is read from where you downloaded it, never from this repository (``public_data.py`` says how each set
becomes memories and questions, and names the splits: tune on ``tune``, report ``held``). Each user's memories
are imported through ``MemoryService.import_lines`` into a real files store in a temporary directory (scanned and
embedded as any import is), then every question is asked as the first request of a new session through
``MemoryService.prepare``, the call every chat request makes, and the memories of the block it returns are read.
Two budgets: memproxy's default (``memory.max_inject_count`` 10 within ``max_inject_chars`` 2000) and ``count10``,
ten entries with no cap on characters. ``memory.max_total`` is raised so that a conversation fits (LoCoMo's have
up to 689 turns; the default keeps 500 per user).

Reported per split and question category: recall@5 and @10 (the share of a question's evidence turns among the
first 5 / 10 memories injected, or ranked for the offline rankers of ``public_baselines.py``), hit@10 (at least
one of them) and, for LongMemEval, the share of evidence sessions reached (any piece of any of their turns).
``--embeddings`` adds the fused rankers and memproxy with ``memory.embeddings.model: all-MiniLM-L6-v2``; vectors
are kept in ``--cache`` so a second run embeds nothing (a run embeds LoCoMo's 5,900 turns in a few minutes, and
LongMemEval's ~115,000 pieces in an hour or more on a small machine: ``--limit`` asks the first N questions of
the split). The write scanner holds some imported memories for a person's review (text its instruction model reads
as an order to the assistant: about a tenth of LoCoMo's chat turns); a held memory is never injected, and the run
says how many. ``--approve-held`` approves them before the questions, as a person clearing the review queue would:
what the ranking finds among every memory. Results go to ``bench/results/retrieval_public.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import public_baselines as baselines  # noqa: E402
from public_data import Benchmark, Item, Question, load  # noqa: E402

from bench.results_file import write_results  # noqa: E402
from proxy.config import load_settings  # noqa: E402
from proxy.memory.caller import Identity  # noqa: E402
from proxy.memory.service import MemoryService  # noqa: E402
from proxy.services import build_store  # noqa: E402

RESULTS = HERE.parent / "results" / "retrieval_public.json"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BUDGETS = {"default": {}, "count10": {"memory.max_inject_chars": 10**9, "memory.max_inject_count": 10}}
_ENTRY = re.compile(r"^- \((m-\d+), [^)]*\) ")

Ranked = dict[str, list[Item]]  # question id -> what it got, best first


def ask_offline(bench: Benchmark, make: Callable[[Sequence[Item]], baselines.Ranking]) -> Ranked:
    by_user: dict[str, list[Item]] = {}
    for item in bench.items:
        by_user.setdefault(item.user, []).append(item)
    rankers: dict[str, baselines.Ranking] = {}
    out: Ranked = {}
    for question in bench.questions:
        if question.user not in rankers:
            rankers[question.user] = make(by_user[question.user])
        out[question.id] = rankers[question.user](question.text, 10)
    return out


def import_body(items: Sequence[Item]) -> bytes:
    return b"\n".join(
        orjson.dumps({"text": i.text, "ts": i.ts, "session": i.session, "category": "fact", "scope": "user"})
        for i in items
    )


def cached_embeddings(cache: baselines.VectorCache) -> Any:
    """memproxy's :class:`~proxy.memory.embeddings.Embeddings`, its model's answers read from ``cache``."""
    from proxy.memory.embeddings import Embeddings

    class Cached(Embeddings):
        def _load(self) -> Any:
            return cache

        def _encode(self, texts: list[str]) -> np.ndarray[Any, Any]:
            rows = cache.encode(texts)
            self.width = rows.shape[1]
            return rows

    return Cached(MODEL, deadline_s=60.0, directory=Path("."))


async def ask_memproxy(
    bench: Benchmark, overrides: dict[str, Any], cache: baselines.VectorCache | None, approve: bool = False
) -> Ranked:
    by_user: dict[str, list[Item]] = {}
    for item in bench.items:
        by_user.setdefault(item.user, []).append(item)
    out: Ranked = {}
    with tempfile.TemporaryDirectory(prefix="memproxy-public-") as root:
        settings = load_settings(
            environ={},
            overrides={"store.path": root, "memory.max_total": 1_000_000, "extraction.enabled": False, **overrides},
        )
        service = MemoryService(
            build_store(settings), settings.memory, embeddings=cached_embeddings(cache) if cache else None
        )
        try:
            found: dict[tuple[str, str], Item] = {}
            refused = held = 0
            for user, items in by_user.items():
                report = await service.import_lines(Identity(user), import_body(items), bounded=False)
                refused += len(report.errors)
                errored = {int(e["line"]) for e in report.errors}
                kept = [item for n, item in enumerate(items, 1) if n not in errored]
                for item, memory_id in zip(kept, report.imported, strict=True):
                    found[(user, memory_id)] = item
                waiting = [m for view in await service.views(Identity(user)) for m in view.held()]
                held += len(waiting)
                if approve:  # a person vouches for them, as the review queue lets one
                    for memory in waiting:
                        await service.approve(Identity(user), memory.id)
            if refused:
                print(f"  {refused} of {len(bench.items)} memories refused on import (the scanner)", file=sys.stderr)
            if held:
                done = "approved before asking" if approve else "never injected"
                print(f"  {held} of {len(bench.items)} memories held for review on import ({done})", file=sys.stderr)
            for question in bench.questions:
                messages = [{"role": "user", "content": question.text}]
                prepared = await service.prepare(Identity(question.user), messages, f"public-{question.id}")
                block = prepared.placement.block or ""
                ids = [m.group(1) for line in block.splitlines() if (m := _ENTRY.match(line))]
                out[question.id] = [found[(question.user, i)] for i in ids if (question.user, i) in found]
        finally:
            await service.aclose()
    return out


def scores(questions: Iterable[Question], ranked: Ranked) -> dict[str, dict[str, float]]:
    """Per category and ``all``: n, recall@5, recall@10, hit@10 (and session recall@10 when sessions are known)."""
    rows: dict[str, list[dict[str, float]]] = {}
    for q in questions:
        got = ranked.get(q.id, [])
        turns5 = {i.turn for i in got[:5]}
        turns10 = {i.turn for i in got[:10]}
        row = {
            "recall@5": len(q.evidence & turns5) / len(q.evidence),
            "recall@10": len(q.evidence & turns10) / len(q.evidence),
            "hit@10": float(bool(q.evidence & turns10)),
        }
        if q.sessions:
            row["sessions@10"] = len(q.sessions & {i.session for i in got[:10]}) / len(q.sessions)
        rows.setdefault(q.category, []).append(row)
        rows.setdefault("all", []).append(row)
    table: dict[str, dict[str, float]] = {}
    for group, found in sorted(rows.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        table[group] = {"n": len(found)} | {k: statistics.fmean(r[k] for r in found) for k in found[0]}
    return table


def offline_rankers(
    bench: Benchmark, cache: baselines.VectorCache | None
) -> dict[str, Callable[[Sequence[Item]], baselines.Ranking]]:
    rankers: dict[str, Callable[[Sequence[Item]], baselines.Ranking]] = {
        "keyword": baselines.keyword,
        "bm25": lambda items: baselines.BM25(items, stem=False, b=0.75),
        "bm25-stem": lambda items: baselines.BM25(items, stem=True, b=0.3),
    }
    if cache is not None:
        vectors = {
            item.id: row for item, row in zip(bench.items, cache.encode([i.text for i in bench.items]), strict=True)
        }

        def encode(text: str) -> np.ndarray[Any, Any]:
            return cache.encode([text])[0]

        def matrix(items: Sequence[Item]) -> np.ndarray[Any, Any]:
            return np.stack([vectors[i.id] for i in items])

        rankers["fusion"] = lambda items: baselines.fusion(items, matrix(items), encode)
        rankers["rrf"] = lambda items: baselines.reciprocal(items, matrix(items), encode)
    return rankers


def run(
    bench: Benchmark, cache: baselines.VectorCache | None, only: Sequence[str] | None = None, approve: bool = False
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    splits = sorted({q.split for q in bench.questions})
    variants: list[tuple[str, Callable[[], Ranked]]] = []
    for name, make in offline_rankers(bench, cache).items():
        variants.append((name, lambda make=make: ask_offline(bench, make)))
    for budget, overrides in BUDGETS.items():
        for suffix, vectors in (("", None), ("+emb", cache)):
            if suffix and vectors is None:
                continue
            asked = lambda o=overrides, v=vectors: asyncio.run(ask_memproxy(bench, o, v, approve))  # noqa: E731
            variants.append((f"memproxy-{budget}{suffix}", asked))
    for name, ask in variants:
        if only and name not in only:
            continue
        started = time.perf_counter()
        ranked = ask()
        elapsed = time.perf_counter() - started
        results[name] = {split: scores([q for q in bench.questions if q.split == split], ranked) for split in splits}
        results[name]["seconds"] = elapsed
        line = "  ".join(f"{split} {results[name][split]['all']['recall@10']:.3f}" for split in splits)
        print(f"  {name:<22} recall@10  {line}   ({elapsed:.0f}s)", file=sys.stderr)
    return results


def print_tables(name: str, results: dict[str, Any]) -> None:
    for split in ("tune", "held"):
        rankers = [r for r in results if split in results[r]]
        if not rankers:
            continue
        groups = list(results[rankers[0]][split])
        print(f"\n{name}, {split} split: recall@10 (recall@5, hit@10) per category")
        print(f"{'':<22}" + "".join(f"{g[:18]:>20}" for g in groups))
        for ranker in rankers:
            cells = []
            for group in groups:
                row = results[ranker][split][group]
                cells.append(f"{row['recall@10']:.3f} ({row['recall@5']:.2f},{row['hit@10']:.2f})")
            print(f"{ranker:<22}" + "".join(f"{c:>20}" for c in cells))
        print(f"{'n':<22}" + "".join(f"{results[rankers[0]][split][g]['n']:>20.0f}" for g in groups))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("--realtalk", type=Path, help="REALTALK's data directory (its Chat_*.json files)")
    parser.add_argument("--longmemeval", type=Path, help="LongMemEval's longmemeval_s.json (or _oracle)")
    parser.add_argument("--split", choices=("tune", "held", "all"), default="all")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions of each benchmark's split")
    parser.add_argument("--embeddings", action="store_true", help="also the fused rankers and memproxy with the model")
    parser.add_argument(
        "--approve-held",
        action="store_true",
        help="approve the memories the scanner holds on import before asking: what the ranking finds among all",
    )
    parser.add_argument("--only", nargs="*", help="only these rankers (e.g. bm25-stem memproxy-default)")
    parser.add_argument(
        "--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "memproxy-bench"
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    args = parser.parse_args(argv)
    if not (args.locomo or args.realtalk or args.longmemeval):
        parser.error("give --locomo, --realtalk and/or --longmemeval")
    cache = baselines.VectorCache(args.cache, MODEL) if args.embeddings else None
    results: dict[str, Any] = {}
    try:
        for path in (args.locomo, args.realtalk, args.longmemeval):
            if path is None:
                continue
            if args.limit and args.split == "all":
                parser.error("--limit needs --split tune or held")
            bench = load(path).only(None if args.split == "all" else args.split, args.limit)
            print(f"{bench.name}: {len(bench.questions)} questions, {len(bench.items)} memories", file=sys.stderr)
            results[bench.name] = run(bench, cache, args.only, args.approve_held)
            print_tables(bench.name, results[bench.name])
    finally:
        if cache is not None:
            cache.save()
    write_results(args.output, results)
    print(f"\nresults: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
