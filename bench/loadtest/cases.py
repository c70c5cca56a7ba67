"""What the benchmark sends, and the cases it sends it in: one row of the table each."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .paths import RETRIEVAL

MODEL = "fake-model"
API_KEY = "sk-fake"
CHAT_BODY: dict[str, Any] = {
    "model": MODEL,
    "messages": [
        {
            "role": "system",
            "content": "You are a helpful coding assistant. Answer concisely and show code when it helps.",
        },
        {
            "role": "user",
            "content": "How do I read a large CSV file in Python without loading it all into memory at once?",
        },
    ],
    "temperature": 0.2,
    "max_tokens": 256,
}
# Every measured request asks one of these (with a serial number), so memproxy ranks its memories for each.
QUESTIONS = [json.loads(line)["query"] for line in (RETRIEVAL / "queries.jsonl").read_text().splitlines() if line]


@dataclass(frozen=True)
class Case:
    name: str
    stream: bool
    concurrency: int
    hops: int = 0  # memory hops memproxy makes per request (1: against the --memory-hop fake upstream)
    timed: bool = False  # runs for --extraction-window seconds per target instead of a request count
    extraction: bool = False  # the extraction driver ends sessions through memproxy meanwhile


CASES: tuple[Case, ...] = (
    Case("chat c=1", stream=False, concurrency=1),
    Case("chat c=16", stream=False, concurrency=16),
    Case("stream c=1", stream=True, concurrency=1),
    Case("stream c=16", stream=True, concurrency=16),
    Case("chat hop", stream=False, concurrency=1, hops=1),
    Case("stream hop", stream=True, concurrency=1, hops=1),
    Case("chat no-ex", stream=False, concurrency=1, timed=True),
    Case("chat +ex", stream=False, concurrency=1, timed=True, extraction=True),
)
HOP_CASES = frozenset(case.name for case in CASES if case.hops)
# The load requests see while the first extraction starts memproxy's extraction process.
FIRST_EXTRACTION_CASE = next(case for case in CASES if case.name == "chat c=1")


def selected_cases(extraction: bool) -> tuple[Case, ...]:
    """The cases a run measures: --no-extraction leaves out the timed ones, which exist for the extraction load."""
    return CASES if extraction else tuple(case for case in CASES if not case.timed)


def plain_case(case: Case) -> Case:
    """The case without hops that ``case`` is compared with: same kind, same concurrency."""
    return next(
        c for c in CASES if not c.hops and not c.timed and (c.stream, c.concurrency) == (case.stream, case.concurrency)
    )
