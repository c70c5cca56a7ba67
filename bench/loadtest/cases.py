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
SYSTEM_PROMPT: str = CHAT_BODY["messages"][0]["content"]
# The same request in the other two formats memproxy serves: OpenAI's Responses API (the system prompt as
# ``instructions``, the user turn as an input item) and Anthropic's Messages API (``system`` apart).
RESPONSES_BODY: dict[str, Any] = {
    "model": MODEL,
    "instructions": SYSTEM_PROMPT,
    "input": [{"role": "user", "content": CHAT_BODY["messages"][1]["content"]}],
    "temperature": 0.2,
    "max_output_tokens": 256,
}
MESSAGES_BODY: dict[str, Any] = {
    "model": MODEL,
    "system": SYSTEM_PROMPT,
    "messages": [{"role": "user", "content": CHAT_BODY["messages"][1]["content"]}],
    "temperature": 0.2,
    "max_tokens": 256,
}
# By API: the path under the base URL, the request body, and the event a finished stream ends with.
APIS: dict[str, tuple[str, dict[str, Any], bytes]] = {
    "chat": ("/chat/completions", CHAT_BODY, b"data: [DONE]"),
    "responses": ("/responses", RESPONSES_BODY, b"event: response.completed\n"),
    "messages": ("/messages", MESSAGES_BODY, b"event: message_stop\n"),
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
    api: str = "chat"  # chat (/chat/completions), responses (/responses) or messages (Anthropic's /messages)


CASES: tuple[Case, ...] = (
    Case("chat c=1", stream=False, concurrency=1),
    Case("chat c=16", stream=False, concurrency=16),
    Case("stream c=1", stream=True, concurrency=1),
    Case("stream c=16", stream=True, concurrency=16),
    Case("chat hop", stream=False, concurrency=1, hops=1),
    Case("stream hop", stream=True, concurrency=1, hops=1),
    Case("responses stream c=1", stream=True, concurrency=1, api="responses"),
    Case("responses stream c=16", stream=True, concurrency=16, api="responses"),
    Case("messages stream c=1", stream=True, concurrency=1, api="messages"),
    Case("messages stream c=16", stream=True, concurrency=16, api="messages"),
    Case("chat no-ex", stream=False, concurrency=1, timed=True),
    Case("chat +ex", stream=False, concurrency=1, timed=True, extraction=True),
)
HOP_CASES = frozenset(case.name for case in CASES if case.hops)
# The load requests see while the first extraction starts memproxy's extraction process.
FIRST_EXTRACTION_CASE = next(case for case in CASES if case.name == "chat c=1")


def selected_cases(extraction: bool, names: list[str] | None = None) -> tuple[Case, ...]:
    """The cases a run measures: --no-extraction leaves out the timed ones, which exist for the extraction load;
    ``names`` (--cases) keeps only those named, and the plain case each hop case is compared with."""
    cases = CASES if extraction else tuple(case for case in CASES if not case.timed)
    if names is None:
        return cases
    unknown = set(names) - {case.name for case in CASES}
    if unknown:
        raise ValueError(f"unknown case(s): {', '.join(sorted(unknown))}")
    wanted = set(names) | {plain_case(case).name for case in cases if case.name in names and case.hops}
    return tuple(case for case in cases if case.name in wanted)


def plain_case(case: Case) -> Case:
    """The case without hops that ``case`` is compared with: same kind, same concurrency."""
    return next(
        c
        for c in CASES
        if not c.hops and not c.timed and (c.api, c.stream, c.concurrency) == (case.api, case.stream, case.concurrency)
    )
