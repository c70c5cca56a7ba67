"""Do merge on write's bands mean something for memproxy's similarity? Run: python bench/merging/bands.py

``pairs.jsonl`` holds 48 pairs of an existing memory and a new fact, labelled ``same`` (15 restatements),
``update`` (15: the same subject, a changed value) or ``different`` (18, three of them one word apart). Each new
fact is written against the existing memory alone (a new user's store) and against it among the first 10, 30 and
all 336 memories of ``bench/retrieval/memories.jsonl`` (a user with history), and the similarity the write path
computes (:mod:`proxy.memory.similarity`) puts it in a band: below 0.3 added, 0.3-0.7 judged by the extraction
model, 0.7 and above the same memory. Printed: per label, how many land in each band (and how many matched another
memory than their pair's), and what that costs: judgement calls, updates missed (below the band: both kept, the
old one still shown), and different facts merged away (lost).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from proxy.memory.merging import band  # noqa: E402
from proxy.memory.ranking import MemoryIndex  # noqa: E402
from proxy.memory.records import Memory  # noqa: E402
from proxy.memory.similarity import Similarity, embedded, lexical  # noqa: E402

HERE = Path(__file__).resolve().parent
BACKGROUND = HERE.parent / "retrieval" / "memories.jsonl"
LABELS = ("same", "update", "different")
BANDS = ("different", "judge", "same")


def load(path: Path) -> list[dict[str, str]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


async def measure(
    similarity: Similarity, background: list[Memory], embed: Callable[[Memory], Awaitable[Memory]] | None = None
) -> dict[str, Counter[str]]:
    found: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    for number, pair in enumerate(load(HERE / "pairs.jsonl")):
        existing = Memory(f"m-{100_000 + number}", pair["existing"], created=1.0)
        if embed is not None:
            existing = await embed(existing)
        view = MemoryIndex([*background, existing])
        match = await similarity(pair["new"], view, now=2.0)
        score = match[1] if match is not None else 0.0
        found[pair["label"]][band(score)] += 1
        if match is not None and match[0].id != existing.id and band(score) != "different":
            found[pair["label"]]["other memory"] += 1
    return found


def report(title: str, found: dict[str, Counter[str]]) -> None:
    print(f"\n{title}")  # noqa: T201
    print(f"  {'label':10} {'<0.3 add':>9} {'judged':>7} {'>=0.7':>6} {'other':>6}")  # noqa: T201
    for label in LABELS:
        row = found[label]
        print(f"  {label:10} {row['different']:9d} {row['judge']:7d} {row['same']:6d} {row['other memory']:6d}")  # noqa: T201
    total = {label: sum(found[label][b] for b in BANDS) for label in LABELS}
    missed, merged = found["update"]["different"], found["different"]["same"]
    calls = sum(found[label]["judge"] for label in LABELS)
    print(  # noqa: T201
        f"  judgement calls {calls}/{sum(total.values())}; updates missed (below 0.3: both kept) "
        f"{missed}/{total['update']}; different facts merged away (0.7 and above) {merged}/{total['different']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--embeddings",
        metavar="MODEL",
        help="also with this embedding model's cosine (sentence-transformers/all-MiniLM-L6-v2; "
        "pip install -e '.[embeddings]' in memproxy's checkout)",
    )
    args = parser.parse_args()
    history = [Memory.from_json(line) for line in load(BACKGROUND)]
    report("a new user's store (the pair's memory alone)", asyncio.run(measure(lexical, [])))
    for size in (10, 30, len(history)):
        report(f"among {size} memories of history", asyncio.run(measure(lexical, history[:size])))
    if args.embeddings:
        asyncio.run(with_embeddings(args.embeddings, history))


async def with_embeddings(model: str, history: list[Memory]) -> None:
    from proxy.memory.embeddings import Embeddings

    embeddings = Embeddings(model, deadline_s=60.0)

    async def embed(memory: Memory) -> Memory:
        [vector] = await embeddings.embed([memory.text])
        return replace(memory, embedding=vector)

    vectors = await embeddings.embed([m.text for m in history])
    history = [replace(m, embedding=v) for m, v in zip(history, vectors, strict=True)]
    similarity = embedded(embeddings)
    report(f"{model}: a new user's store", await measure(similarity, [], embed))
    report(f"{model}: among {len(history)} memories of history", await measure(similarity, history, embed))
    embeddings.close()


if __name__ == "__main__":
    main()
