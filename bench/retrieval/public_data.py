"""Public long-conversation memory benchmarks as memories and questions: LoCoMo, REALTALK and LongMemEval.

Read from files the user downloaded (never committed here):

- LoCoMo (github:snap-research/LoCoMo, ``data/locomo10.json``): ten conversations between two people over up to
  35 sessions. Each dialog turn is one memory of one user per conversation: ``"<speaker>: <text>"``, with the
  caption of a photo the speaker shared, saved at its session's date (turns a second apart), in a memproxy session
  per dialog session. Questions of categories 1-4 (multi-hop, temporal, open-domain, single-hop; category 5, the
  adversarial one, has no evidence to find), each with the dialog turns holding its answer as evidence.
- REALTALK (github:danny911kr/REALTALK, the ``data/Chat_*.json`` files; LoCoMo's authors' sequel): ten real
  messaging-app chats between two people over 21 days (18-25 sessions, 410-1,548 messages each), in LoCoMo's shape
  with each message's own time. A message is a memory as a LoCoMo turn is (``"<speaker>: <text>"``, a photo's
  caption appended), saved at its time. Questions of categories 1-3, named as LoCoMo's (the paper's multi-hop,
  temporal and commonsense ones), each with the messages holding its answer as evidence: their ids as
  ``D<s>:<n>``, ranges (``D18:2-D18:6``) spelled out, ids of no message (deleted ones) dropped, and a question
  left with none left out.
- LongMemEval_S (github:xiaowu0162/LongMemEval, ``longmemeval_s.json``; a list of 500 questions, each with its
  own haystack of ~50 user-assistant sessions): each question is its own user, and each *user* turn of its
  haystack is stored, cut at sentence ends into pieces of at most ``MAX_TEXT_CHARS`` (a memory's limit). Evidence
  is the user turns marked ``has_answer``; a turn is found when any of its pieces is. Abstention questions and
  those whose evidence is only in assistant turns are left out (no stored memory holds it).

Splits: LoCoMo conversations 0-4 are ``tune``, 5-9 ``held``; REALTALK chats alternate by their number, odd
(``Chat_1``, 3, 5, 7, 9) ``tune`` and even ``held``, so that each split has two short chats and three long ones;
LongMemEval questions alternate in file order, even positions ``tune``, odd ``held``. Tune on ``tune``, report
``held``.
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


def load_realtalk(chats: dict[str, dict[str, Any]]) -> Benchmark:
    """``chats``: each file's stem (``Chat_1_Emi_Elise``) and its contents."""
    items: list[Item] = []
    questions: list[Question] = []
    for user, chat in sorted(chats.items(), key=lambda kv: _chat_number(kv[0])):
        turns: set[str] = set()
        for key, value in chat.items():
            if not (key.startswith("session_") and isinstance(value, list)):
                continue
            last = 0.0
            for turn in value:
                text = f"{turn['speaker']}: {turn.get('clean_text') or turn.get('text') or ''}"
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                last = max(_realtalk_date(str(turn["date_time"])), last + 0.001)  # saved order is the chat's
                turn_id = f"{user}/{_dia_id(turn['dia_id'])}"
                turns.add(turn_id)
                for piece, part in enumerate(pieces(text)):
                    items.append(Item(f"{turn_id}#{piece}", user, part, last, f"{user}/{key}", turn_id))
        split = "tune" if _chat_number(user) % 2 else "held"
        for index, qa in enumerate(chat.get("qa", [])):
            category = LOCOMO_CATEGORIES.get(qa.get("category"))
            if category is None:
                continue
            found = {f"{user}/{turn}" for text in qa.get("evidence", []) for turn in _evidence_span(str(text))}
            evidence = frozenset(found & turns)
            if evidence:
                questions.append(Question(f"{user}/q{index}", user, str(qa["question"]), category, split, evidence))
    return Benchmark("realtalk", items, questions)


_SPAN = re.compile(r"D(\d+):(\d+)(?:\s*-\s*D?(\d+):(\d+))?")


def _evidence_span(text: str) -> Iterator[str]:
    """``D3:4``, ``D18:2-D18:6`` (every message between, in one session) or several of them in one string."""
    for session, first, other, last in _SPAN.findall(text):
        yield f"D{session}:{int(first)}"
        if not last:
            continue
        if other == session:
            yield from (f"D{session}:{n}" for n in range(int(first) + 1, int(last) + 1))
        else:
            yield f"D{other}:{int(last)}"


def _chat_number(stem: str) -> int:
    match = re.search(r"(\d+)", stem)
    return int(match.group(1)) if match else 0


def _realtalk_date(text: str) -> float:
    """``29.12.2023, 00:51:12``."""
    return datetime.strptime(text.strip(), "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC).timestamp()


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
    """Any of the three, told apart by its shape (REALTALK: its ``data`` directory, or one of its chats)."""
    if path.is_dir():
        return load_realtalk({p.stem: orjson.loads(p.read_bytes()) for p in sorted(path.glob("Chat_*.json"))})
    data: Any = orjson.loads(path.read_bytes())
    if isinstance(data, dict) and "qa" in data and "session_1" in data:
        return load_realtalk({path.stem: data})
    if isinstance(data, list) and data and "conversation" in data[0]:
        return load_locomo(data)
    if isinstance(data, list) and data and "haystack_sessions" in data[0]:
        return load_longmemeval(data)
    raise SystemExit(f"{path}: not LoCoMo's locomo10.json, REALTALK's data directory nor a LongMemEval file")
