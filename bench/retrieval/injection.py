"""Recall of what memproxy injects, measured end to end: the conversations dataset through a real proxy.

    python bench/retrieval/injection.py                # every question, test and dev split
    python bench/retrieval/injection.py --limit 100    # the first 100 questions: a quick look
    python bench/retrieval/injection.py --mode session # replay each question's conversation turn by turn

``conversations_run.py`` scores the ranker alone; this scores what a model actually receives. It starts the fake
upstream and a real memproxy in front of it (default settings, a fresh data dir), imports each user's memories
through the management API (``POST /memory/import``, one request per user, so ``ts`` and ``session`` are kept as
the dataset has them), then asks every question in a new session through ``/v1/chat/completions`` and reads the
``[Memories]`` block and any notes off the request the fake upstream received (``GET /_fake/requests``). A
question's record may carry the turns of its session before it (``context``: chat messages). Three modes:

- ``first``: the question is its session's first request, its context sent before it in the same request: what
  the block chosen for a conversation finds;
- ``session``: the context's user turns are sent one request each first, the question last, as a client would:
  the block was chosen on the first turn, so evidence the question needs arrives in a note (within the notes'
  budget). Questions without context are asked as in ``first``;
- ``long``: eight questions of one user in one session, each after its context, each turn its own request: how
  block and notes serve a long session (the notes' budget over the session binds here).

Recall is the share of a question's evidence among the memories injected, averaged per question type and split;
``all`` is the share of questions that got every piece of their evidence. Also: memories and characters of memory
text injected per request, and how often nothing was. Results go to ``bench/results/retrieval_injection.json``.

Settings are memproxy's defaults except ``extraction.enabled: false``: no session ends during the run, and
extraction is not on the injection path; ``--embeddings`` turns on ``memory.embeddings.enabled`` (the model must be
on the machine: docs/embeddings.md). A long memory may be shown as an excerpt (docs/recall.md): it counts as
injected. Categories the API does not know (the dataset's ``decision``) are
imported as ``fact``, the API's default; the count is printed.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from bench.results_file import write_results  # noqa: E402
from proxy.memory.block import BLOCK_TITLE, NOTE_TITLE  # noqa: E402
from proxy.memory.excerpts import ELLIPSIS  # noqa: E402
from proxy.memory.records import CATEGORIES  # noqa: E402
from proxy.testing import run_fake_upstream  # noqa: E402
from proxy.testing.runner import run_memproxy  # noqa: E402

DATA = HERE / "conversations"
RESULTS = HERE.parent / "results" / "retrieval_injection.json"
SETTINGS = {"extraction.enabled": False}
MODES = ("first", "session", "long")
LONG_QUESTIONS = 8  # questions per session in ``long`` mode
IMPORTED_FIELDS = ("text", "tags", "category", "scope", "source", "ts", "session")
_ENTRY = re.compile(r"^- \((m-\d+), [^)]*\) (.*)$")


@dataclass(frozen=True, slots=True)
class Asked:
    question: dict[str, Any]
    injected: tuple[str, ...]  # dataset ids of the memories the upstream received, block then notes
    chars: int  # of their text

    @property
    def recall(self) -> float:
        evidence = set(self.question["evidence"])
        return len(evidence & set(self.injected)) / len(evidence)


def load(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def conversation(question: dict[str, Any]) -> list[dict[str, str]]:
    """The chat messages of the question's request: the turns of its session before it, then the question."""
    context = [{"role": m["role"], "content": m["content"]} for m in question.get("context") or []]
    return [*context, {"role": "user", "content": question["question"]}]


@dataclass(frozen=True, slots=True)
class Step:
    """One request of a session: its messages, and the question it asks when it is one that is measured."""

    messages: list[dict[str, str]]
    question: dict[str, Any] | None


def sessions(questions: Sequence[dict[str, Any]], mode: str) -> Iterator[tuple[str, str, list[Step]]]:
    """(user, session id, its requests in order) for each session the mode asks the questions in."""
    if mode == "long":
        by_user: dict[str, list[dict[str, Any]]] = {}
        for question in questions:
            by_user.setdefault(question["user"], []).append(question)
        for user, theirs in by_user.items():
            for start in range(0, len(theirs), LONG_QUESTIONS):
                steps, history = [], []
                for question in theirs[start : start + LONG_QUESTIONS]:
                    messages = [*history, *conversation(question)]
                    steps += [
                        Step(messages[: n + 1], question if n == len(messages) - 1 else None)
                        for n in range(len(history), len(messages))
                        if messages[n]["role"] == "user"
                    ]
                    history = [*messages, {"role": "assistant", "content": "Noted."}]
                yield user, f"injection-long-{user}-{start}", steps
        return
    for question in questions:
        messages = conversation(question)
        if mode == "first":
            steps = [Step(messages, question)]
        else:
            users = [n for n, m in enumerate(messages) if m["role"] == "user"]
            steps = [Step(messages[: n + 1], question if n == users[-1] else None) for n in users]
        yield question["user"], f"injection-{mode}-{question['id']}", steps


def import_lines(memories: Sequence[dict[str, Any]]) -> tuple[bytes, int]:
    """The JSONL body of one user's import, and how many categories were mapped to ``fact``."""
    lines, mapped = [], 0
    for memory in memories:
        line = {k: memory[k] for k in IMPORTED_FIELDS if k in memory}
        if line.get("category") not in CATEGORIES:
            line["category"], mapped = "fact", mapped + 1
        lines.append(orjson.dumps(line))
    return b"\n".join(lines), mapped


def injected_entries(received: dict[str, Any]) -> list[tuple[str, str]]:
    """(proxy id, text) of every memory in the block and notes of one request the upstream received."""
    found = []
    for message in received.get("messages", []):
        content = message.get("content")
        if isinstance(content, str) and content.startswith((BLOCK_TITLE + "\n", NOTE_TITLE)):
            found += [m.groups() for line in content.splitlines() if (m := _ENTRY.match(line))]
    return found


def run(
    memories: list[dict[str, Any]], questions: list[dict[str, Any]], mode: str, settings: dict[str, Any]
) -> Iterator[Asked]:
    by_user: dict[str, list[dict[str, Any]]] = {}
    for memory in memories:
        by_user.setdefault(memory["user"], []).append(memory)
    with run_fake_upstream() as fake, run_memproxy(fake.base_url, settings) as proxy_url:
        root, fake_root = proxy_url.removesuffix("/v1"), fake.base_url.removesuffix("/v1")
        with httpx.Client(timeout=30, trust_env=False) as client:
            dataset_id: dict[tuple[str, str], str] = {}  # (user, proxy id) -> the dataset's id
            texts: dict[str, str] = {}
            mapped = 0
            for user, theirs in by_user.items():
                body, n = import_lines(theirs)
                mapped += n
                answer = client.post(f"{root}/memory/import", content=body, headers={"X-Memory-User": user})
                answer.raise_for_status()
                report = answer.json()
                if report["errors"] or len(report["imported"]) != len(theirs):
                    raise SystemExit(f"import of {user}'s memories failed: {report['errors'][:3]}")
                for memory, proxy_id in zip(theirs, report["imported"], strict=True):
                    dataset_id[(user, proxy_id)] = memory["id"]
                    texts[memory["id"]] = " ".join(memory["text"].split())
            print(f"imported {len(memories)} memories of {len(by_user)} users ({mapped} categories as fact)")
            for user, session, steps in sessions(questions, mode):
                headers = {"X-Memory-User": user, "X-Memory-Session": session}
                for step in steps:
                    body = {"model": "fake-model", "messages": step.messages}
                    answer = client.post(f"{root}/v1/chat/completions", json=body, headers=headers)
                    answer.raise_for_status()
                    if step.question is None:
                        continue
                    last = client.get(f"{fake_root}/_fake/requests", params={"last": 1}).json()["requests"][0]
                    entries = injected_entries(last["json"])
                    injected = tuple(dataset_id[(user, proxy_id)] for proxy_id, _ in entries)
                    for (_, text), memory_id in zip(entries, injected, strict=True):
                        shown = text.strip(ELLIPSIS) if text != texts[memory_id] else text  # a long one's excerpt
                        assert shown in texts[memory_id], f"{memory_id}: the block shows {text!r}"
                    header = answer.headers.get("x-memproxy-injected", "")
                    assert [i for i in header.split(",") if i.startswith("m-")] == [i for i, _ in entries], header
                    yield Asked(step.question, injected, sum(len(text) for _, text in entries))


def table(asked: Sequence[Asked]) -> dict[str, dict[str, dict[str, float]]]:
    rows: dict[str, dict[str, dict[str, float]]] = {}
    types = list(dict.fromkeys(a.question["type"] for a in asked))
    for split in ("test", "dev"):
        for group in (*types, "all"):
            chosen = [a for a in asked if a.question["split"] == split and group in ("all", a.question["type"])]
            if not chosen:
                continue
            rows.setdefault(split, {})[group] = {
                "n": len(chosen),
                "recall": statistics.fmean(a.recall for a in chosen),
                "all evidence": statistics.fmean(a.recall == 1.0 for a in chosen),
                "memories": statistics.fmean(len(a.injected) for a in chosen),
                "chars": statistics.fmean(a.chars for a in chosen),
                "none": statistics.fmean(not a.injected for a in chosen),
            }
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="ask only the first N questions")
    parser.add_argument("--mode", choices=(*MODES, "all"), default="all", help="see above (default: all)")
    parser.add_argument("--memories", type=Path, default=DATA / "memories.jsonl")
    parser.add_argument("--questions", type=Path, default=DATA / "questions.jsonl")
    parser.add_argument("--embeddings", action="store_true", help="memory.embeddings.enabled: true (the model)")
    args = parser.parse_args(argv)
    settings = {**SETTINGS, "memory.embeddings": {"enabled": True}} if args.embeddings else SETTINGS
    memories, questions = load(args.memories), load(args.questions)[: args.limit]
    with_context = sum(bool(q.get("context")) for q in questions)
    print(f"{len(questions)} questions ({with_context} with context), asked through a real memproxy")
    results: dict[str, Any] = {"settings": settings, "questions": len(questions), "modes": {}}
    for mode in MODES if args.mode == "all" else (args.mode,):
        started = time.perf_counter()
        asked = list(run(memories, questions, mode, settings))
        print(f"mode {mode}: asked in {time.perf_counter() - started:.1f}s\n")
        results["modes"][mode] = rows = table(asked)
        columns = ("n", "recall", "all evidence", "memories", "chars", "none")
        for split, groups in rows.items():
            print(f"{mode + ' ' + split:<14} " + " ".join(f"{c:>12}" for c in columns))
            for group, row in groups.items():
                cells = [f"{row[c]:>12.0f}" if c in ("n", "chars") else f"{row[c]:>12.3f}" for c in columns]
                print(f"{group:<14} " + " ".join(cells))
            print()
    write_results(RESULTS, results)
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
