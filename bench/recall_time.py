"""CPU time of a new session's recall, as a request pays it: ``MemoryService.prepare`` over a files store.

The workspace holds ``--memories`` memories (``bench/retrieval/run.py``'s synthetic ones), the user's own
scope a handful, global none: the shape most callers have. Each timed call is a new session (its block is
chosen), with the conversations dataset's questions and the turns before them as its messages. Also timed:
the parts (query building, ranking the three indexes, ``Recall`` without the service around it).

    python bench/recall_time.py                  # 500 memories
    python bench/recall_time.py --memories 5000
    python bench/recall_time.py --embeddings     # also with memory.embeddings on: CPU per request and RSS

``--embeddings`` loads all-MiniLM-L6-v2 (``memory.embeddings.enabled: true``; the store's memories are embedded
first, as an import would) and times ``prepare`` as a request pays it, in CPU time of the whole process (the
model runs in worker threads), for three kinds of request, beside the lexical service on the same store: a new
session's first (its block chosen), the next user message of a session (a note ranked) and the tool loop's next hop
or a retry (the same newest user message); and the process's RSS before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "retrieval"))
sys.path.insert(0, str(HERE.parent))

from run import NOW, synthetic  # noqa: E402

from proxy.config import load_settings  # noqa: E402
from proxy.memory.backends.files import owner_dir  # noqa: E402
from proxy.memory.caller import Identity  # noqa: E402
from proxy.memory.query import conversation_query  # noqa: E402
from proxy.memory.recall import Recall  # noqa: E402
from proxy.memory.records import Memory  # noqa: E402
from proxy.memory.service import MemoryService  # noqa: E402
from proxy.memory.store import owners_visible_to  # noqa: E402
from proxy.metrics import Metrics  # noqa: E402
from proxy.services import build_episode_store, build_store  # noqa: E402

DATA = HERE / "retrieval" / "conversations"
ROUNDS = 5
CALLER = Identity("ada", "w")
USER_WIDE = 5  # memories in the user's own scope


def load(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def best_p50(
    run: Callable[[int, list[dict[str, str]]], object], conversations: Sequence[list[dict[str, str]]]
) -> float:
    """Median over messages of each message's best of ``ROUNDS``, in µs (what it costs, not what else ran)."""
    for i, messages in enumerate(conversations[:50]):  # warm caches, as a running proxy has them
        run(-1 - i, messages)
    best = [float("inf")] * len(conversations)
    calls = 0
    for _ in range(ROUNDS):
        for i, messages in enumerate(conversations):
            calls += 1
            began = time.perf_counter()
            run(calls, messages)
            best[i] = min(best[i], (time.perf_counter() - began) * 1e6)
    return sorted(best)[len(best) // 2]


def write_store(root: Path, memories: list[Memory]) -> None:
    workspace, user, _ = owners_visible_to(CALLER.user, CALLER.workspace)
    for owner, held in ((workspace, memories[USER_WIDE:]), (user, memories[:USER_WIDE])):
        directory = root / owner_dir(owner)
        directory.mkdir(parents=True)
        lines = b"".join(orjson.dumps(m.to_json(stored=True)) + b"\n" for m in held)
        (directory / "memories.jsonl").write_bytes(lines)


async def main_async(size: int) -> None:
    templates = [Memory.from_json(m) for m in load("memories.jsonl")]
    conversations = [[*q["context"], {"role": "user", "content": q["question"]}] for q in load("questions.jsonl")]
    with tempfile.TemporaryDirectory() as root:
        write_store(Path(root), synthetic(templates, size + USER_WIDE, random.Random(size)))
        settings = load_settings(overrides={"store.path": root})
        metrics = Metrics()
        service = MemoryService(
            build_store(settings, metrics=metrics),
            settings.memory,
            metrics,
            tools=True,
            episodes=build_episode_store(settings),
        )
        views = await service.views(CALLER)
        await service.prepare(CALLER, conversations[0], "warm")

        def prepare(call: int, messages: list[dict[str, str]]) -> object:
            coroutine = service.prepare(CALLER, messages, f"s{call}")
            try:
                coroutine.send(None)  # nothing to wait for on the hot path: it returns at the first step
            except StopIteration as done:
                return done.value
            raise RuntimeError("prepare waited")

        recall = Recall(settings.memory, tools=True)

        def recall_only(call: int, messages: list[dict[str, str]]) -> object:
            return recall(("ada", "w", f"s{call}"), messages, views, now=NOW)

        def query(call: int, messages: list[dict[str, str]]) -> object:
            return conversation_query(messages, len(messages) - 1)

        def rank(call: int, messages: list[dict[str, str]]) -> object:
            built = conversation_query(messages, len(messages) - 1)
            return [view.rank(built, now=NOW, limit=10) for view in views]

        print(f"{size} memories (+{USER_WIDE} user-wide), {len(conversations)} new sessions x {ROUNDS} rounds")
        print("p50 µs, best of rounds per message:")
        for name, run in (("query", query), ("query+rank", rank), ("Recall", recall_only), ("prepare", prepare)):
            print(f"  {name:<11} {best_p50(run, conversations):8.1f}")
        await service.aclose()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# What a request can be, as --embeddings times it: a new session's first (its block chosen: its message embedded), the
# next user message of a session (a note ranked: embedded too), and the tool loop's next hop or a retry (the same newest
# user message: nothing ranked, nothing embedded). Each conversation's question is new to the process.
REQUESTS = {"new session": "new session", "new turn": "new turn", "tool hop": "tool hop"}


def request(
    kind: str, call: int, messages: list[dict[str, str]], conversations: Sequence[list[dict[str, str]]]
) -> list[dict[str, Any]]:
    """The messages of one timed request of ``kind``, for the ``call``-th conversation."""
    if kind == "new session":
        return messages
    if kind == "new turn":  # another conversation's question asked next in this one, a message new to the process
        following = f"{conversations[(call + 1) % len(conversations)][-1]['content']} (turn {call})"
        return [*messages, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": following}]
    hop = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {}}]}
    return [*messages, hop, {"role": "tool", "tool_call_id": "c1", "content": "42"}]


async def embeddings_async(size: int) -> None:
    from proxy.services import build_embeddings

    templates = [Memory.from_json(m) for m in load("memories.jsonl")]
    conversations = [[*q["context"], {"role": "user", "content": q["question"]}] for q in load("questions.jsonl")]
    with tempfile.TemporaryDirectory() as root:
        write_store(Path(root), synthetic(templates, size + USER_WIDE, random.Random(size)))
        results: dict[str, dict[str, float]] = {}
        for name, enabled in (("lexical", False), ("embeddings", True)):
            before = rss_mb()
            settings = load_settings(overrides={"store.path": root, "memory.embeddings": {"enabled": enabled}})
            embeddings = build_embeddings(settings)
            service = MemoryService(
                build_store(settings), settings.memory, Metrics(), tools=True, embeddings=embeddings
            )
            await service.prepare(CALLER, conversations[0], "warm")
            if embeddings is not None:
                await embeddings.drain()  # the store's memories embedded (the backfill), as after an import
                await service.prepare(CALLER, conversations[0], "warm-2")
            row: dict[str, float] = {"rss_before_mb": before}
            for label, kind in REQUESTS.items():
                cpu = []
                for call, messages in enumerate(conversations):
                    sent = request(kind, call, messages, conversations)
                    if kind != "new session":  # the session's first request, untimed
                        await service.prepare(CALLER, messages, f"{label}-{call}")
                    began = time.process_time()
                    await service.prepare(CALLER, sent, f"{label}-{call}")
                    cpu.append((time.process_time() - began) * 1000)
                cpu.sort()
                row[f"{label} cpu p50 ms"] = cpu[len(cpu) // 2]
                row[f"{label} cpu p95 ms"] = cpu[int(len(cpu) * 0.95)]
            row["rss_after_mb"] = rss_mb()
            results[name] = row
            await service.aclose()
        print(f"{size} memories, {len(conversations)} new sessions each; CPU ms per prepare (whole process)")
        for name, row in results.items():
            print(f"  {name:<11} " + "  ".join(f"{key} {value:.1f}" for key, value in row.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=500)
    parser.add_argument("--embeddings", action="store_true", help="CPU per request and RSS with the model on")
    args = parser.parse_args(argv)
    asyncio.run(embeddings_async(args.memories) if args.embeddings else main_async(args.memories))
    return 0


if __name__ == "__main__":
    sys.exit(main())
