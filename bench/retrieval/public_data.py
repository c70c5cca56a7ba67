"""Public long-conversation memory benchmarks as memories and questions: LoCoMo and LongMemEval.

Read from files the user downloaded (never committed here):

- LoCoMo (github:snap-research/LoCoMo, ``data/locomo10.json``): ten conversations between two people over up to
  35 sessions. Each dialog turn is one memory of one user per conversation: ``"<speaker>: <text>"``, with the
  caption of a photo the speaker shared, saved at its session's date (turns a second apart), in a memproxy session
  per dialog session. Questions of categories 1-4 (multi-hop, temporal, open-domain, single-hop; category 5, the
  adversarial one, has no evidence to find), each with the dialog turns holding its answer as evidence.
- LongMemEval_S (github:xiaowu0162/LongMemEval, ``longmemeval_s.json``; a list of 500 questions, each with its
  own haystack of ~50 user-assistant sessions): each question is its own user, and each *user* turn of its
  haystack is stored, cut at sentence ends into pieces of at most ``MAX_TEXT_CHARS`` (a memory's limit). Evidence
  is the user turns marked ``has_answer``; a turn is found when any of its pieces is. Abstention questions and
  those whose evidence is only in assistant turns are left out (no stored memory holds it).

Splits: LoCoMo conversations 0-4 are ``tune``, 5-9 ``held``; LongMemEval questions alternate in file order, even
positions ``tune``, odd ``held``. Tune on ``tune``, report ``held``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from proxy.memory.records import MAX_TEXT_CHARS

LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
LOCOMO_TUNE = range(5)  # conversations 0-4; 5-9 are held out
_EVIDENCE = re.compile(r"D(\d+):(\d+)")


@dataclass(frozen=True, slots=True)
class Item:
    """One memory to store: ``turn`` is the dataset's unit of evidence it comes from (a dialog turn)."""

    id: str
    user: str
    text: str
    ts: float
    session: str
    turn: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    user: str
    text: str
    category: str
    split: str
    evidence: frozenset[str]  # turn ids
    sessions: frozenset[str] = frozenset()  # the sessions holding the evidence


@dataclass(frozen=True, slots=True)
class Benchmark:
    name: str
    items: list[Item]
    questions: list[Question]

    def only(self, split: str | None, limit: int | None = None) -> Benchmark:
        """The questions of one split (None: all), at most ``limit`` of them, and only their users' memories."""
        questions = [q for q in self.questions if split in (None, q.split)][:limit]
        users = {q.user for q in questions}
        return Benchmark(self.name, [i for i in self.items if i.user in users], questions)


def load_locomo(data: list[dict[str, Any]]) -> Benchmark:
    items: list[Item] = []
    questions: list[Question] = []
    for number, sample in enumerate(data):
        user = str(sample.get("sample_id") or f"conv-{number}")
        conversation = sample["conversation"]
        turns: set[str] = set()
        for key, value in conversation.items():
            if not (key.startswith("session_") and isinstance(value, list)):
                continue
            started = _locomo_date(conversation[f"{key}_date_time"])
            for position, turn in enumerate(value):
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                turn_id = f"{user}/{_dia_id(turn['dia_id'])}"
                turns.add(turn_id)
                for piece, part in enumerate(pieces(text)):
                    items.append(Item(f"{turn_id}#{piece}", user, part, started + position, f"{user}/{key}", turn_id))
        split = "tune" if number in LOCOMO_TUNE else "held"
        for index, qa in enumerate(sample["qa"]):
            category = LOCOMO_CATEGORIES.get(qa.get("category"))
            if category is None:
                continue
            found = {f"{user}/D{a}:{int(b)}" for text in qa.get("evidence", []) for a, b in _EVIDENCE.findall(text)}
            evidence = frozenset(found & turns)
            if evidence:
                questions.append(Question(f"{user}/q{index}", user, str(qa["question"]), category, split, evidence))
    return Benchmark("locomo", items, questions)


def _locomo_date(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).timestamp()


def _dia_id(text: str) -> str:
    match = _EVIDENCE.fullmatch(text.strip())
    return f"D{match.group(1)}:{int(match.group(2))}" if match else text.strip()


def load_longmemeval(data: list[dict[str, Any]]) -> Benchmark:
    items: list[Item] = []
    questions: list[Question] = []
    for position, entry in enumerate(data):
        qid = str(entry["question_id"])
        if qid.endswith("_abs"):
            continue
        user = f"lme-{qid}"
        evidence: set[str] = set()
        sessions: set[str] = set()
        for session_id, date, turns in zip(
            entry["haystack_session_ids"], entry["haystack_dates"], entry["haystack_sessions"], strict=True
        ):
            started = _longmemeval_date(date)
            for number, turn in enumerate(turns):
                if turn.get("role") != "user":
                    continue
                turn_id = f"{user}/{session_id}/{number}"
                if turn.get("has_answer"):
                    evidence.add(turn_id)
                    sessions.add(f"{user}/{session_id}")
                for piece, part in enumerate(pieces(str(turn.get("content", "")))):
                    items.append(
                        Item(f"{turn_id}#{piece}", user, part, started + number, f"{user}/{session_id}", turn_id)
                    )
        if evidence:
            split = "tune" if position % 2 == 0 else "held"
            category = str(entry["question_type"])
            questions.append(
                Question(qid, user, str(entry["question"]), category, split, frozenset(evidence), frozenset(sessions))
            )
    users = {q.user for q in questions}
    return Benchmark("longmemeval", [i for i in items if i.user in users], questions)


def _longmemeval_date(text: str) -> float:
    """``2023/05/20 (Sat) 02:21``."""
    return (
        datetime.strptime(re.sub(r"\s*\(\w+\)\s*", " ", text.strip()), "%Y/%m/%d %H:%M").replace(tzinfo=UTC).timestamp()
    )


def pieces(text: str, size: int = MAX_TEXT_CHARS) -> Iterator[str]:
    """``text`` on one line, in pieces of at most ``size`` characters cut after a sentence's end where there is
    one in the second half of a piece, else at a space."""
    text = " ".join(text.split())
    while len(text) > size:
        cut = max(text.rfind(mark, 0, size) for mark in (". ", "? ", "! ", "\u3002"))
        if cut < size // 2:
            cut = text.rfind(" ", 0, size)
        cut = cut + 1 if cut > 0 else size
        head, text = text[:cut].strip(), text[cut:].strip()
        if head:
            yield head
    if text:
        yield text


def load(path: Path) -> Benchmark:
    """Either benchmark, told apart by its shape."""
    data: Any = orjson.loads(path.read_bytes())
    if isinstance(data, list) and data and "conversation" in data[0]:
        return load_locomo(data)
    if isinstance(data, list) and data and "haystack_sessions" in data[0]:
        return load_longmemeval(data)
    raise SystemExit(f"{path}: neither LoCoMo's locomo10.json nor a LongMemEval file")
