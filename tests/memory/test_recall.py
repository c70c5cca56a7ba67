from dataclasses import dataclass, replace
from typing import Any

import orjson
import pytest

from proxy.config import MemorySettings
from proxy.dialects.chat import inject
from proxy.memory import recall as memory_recall
from proxy.memory.block import TOOLS_NOTE
from proxy.memory.episodes import Episode, EpisodeIndex
from proxy.memory.provenance import Provenance
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Memory

NOW = 1_800_000_000.0
KEY = ("alice", "default", "s-1")

FACTS = [
    Memory(id="m-1", text="User prefers tabs over spaces for indentation", category="preference", created=NOW - 9e5),
    Memory(id="m-2", text="The staging database is Postgres 16 on port 6432", created=NOW - 8e5),
    Memory(id="m-3", text="Deploys go to Fly.io in the Amsterdam region", created=NOW - 7e5),
    Memory(id="m-4", text="Code reviews happen on Friday afternoons", created=NOW - 6e5),
    Memory(id="m-5", text="User's daughter Mia plays the violin", created=NOW - 5e5),
]


def chat(*turns: str, system: str | None = "You are helpful.") -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for n, text in enumerate(turns):
        if n:
            messages.append({"role": "assistant", "content": f"answer {n}"})
        messages.append({"role": "user", "content": text})
    return {"model": "m", "messages": messages}


@dataclass(frozen=True)
class Injected:
    payload: dict[str, Any]
    ids: tuple[str, ...]


class Recall:
    """Recall as a chat request sees it: its placement put in the body by the chat dialect."""

    def __init__(self, settings: MemorySettings) -> None:
        self.recall = memory_recall.Recall(settings)

    def __call__(self, key: tuple[str, ...], payload: dict[str, Any], views: Any, **options: Any) -> Injected:
        recalled = self.recall(key, payload["messages"], views, **options)
        return Injected(inject(payload, recalled.placement), recalled.ids)


def contents(payload: dict[str, Any]) -> list[str]:
    return [m["content"] for m in payload["messages"]]


def test_the_block_follows_the_system_prompt_and_holds_the_relevant_memories() -> None:
    recall = Recall(MemorySettings())
    out = recall(KEY, chat("How should I indent this file?"), [MemoryIndex(FACTS)], now=NOW)
    assert out.ids == ("m-1",)
    assert out.payload["messages"][1]["role"] == "system"
    assert "(m-1, preference) User prefers tabs" in out.payload["messages"][1]["content"]
    assert contents(out.payload)[2] == "How should I indent this file?"


def test_with_nothing_relevant_the_newest_five_are_shown() -> None:
    recall = Recall(MemorySettings())
    out = recall(KEY, chat("Hello there"), [MemoryIndex(FACTS)], now=NOW)
    assert out.ids == ("m-5", "m-4", "m-3", "m-2", "m-1")


def test_recent_only_ignores_relevance() -> None:
    recall = Recall(MemorySettings(inject_mode="recent_only", max_inject_count=2))
    out = recall(KEY, chat("How should I indent this file?"), [MemoryIndex(FACTS)], now=NOW)
    assert out.ids == ("m-5", "m-4")


def test_no_memories_means_no_block_and_the_same_body() -> None:
    payload = chat("How should I indent this file?")
    out = Recall(MemorySettings())(KEY, payload, [MemoryIndex()], now=NOW)
    assert out.payload is payload and out.ids == ()


def test_the_block_is_frozen_for_the_session_and_later_memories_come_as_notes() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    first = recall(KEY, chat("How should I indent this file?"), views, now=NOW)
    second = recall(KEY, chat("How should I indent this file?", "Where does the staging database run?"), views, now=NOW)
    assert second.payload["messages"][1] == first.payload["messages"][1]  # byte-identical block
    assert second.ids == ("m-1", "m-2")
    note = second.payload["messages"][-2]
    assert note["role"] == "system" and "(m-2, fact)" in note["content"] and "(m-1," not in note["content"]
    assert contents(second.payload)[-1] == "Where does the staging database run?"


def test_every_request_of_a_session_starts_with_the_previous_request() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    questions = [
        "How should I indent this file?",
        "Where does the staging database run?",
        "Thanks. Anything else?",
        "When do code reviews happen?",
        "And where do we deploy?",
    ]
    previous: list[dict[str, Any]] | None = None
    for turn in range(1, len(questions) + 1):
        sent = recall(KEY, chat(*questions[:turn]), views, now=NOW).payload["messages"]
        if previous is not None:
            assert sent[: len(previous)] == previous
        previous = sent
    assert previous is not None
    notes = [m["content"] for m in previous if m["content"].startswith("[Memories] More")]
    assert len(notes) == 3  # staging, reviews, deploy: each once, where it first became relevant


def test_a_retry_of_the_same_turn_adds_no_second_note() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    recall(KEY, chat("How should I indent this file?"), views, now=NOW)
    payload = chat("How should I indent this file?", "Where does the staging database run?")
    once = recall(KEY, payload, views, now=NOW).payload
    again = recall(KEY, payload, views, now=NOW).payload
    assert orjson.dumps(once) == orjson.dumps(again)


def test_a_deleted_memory_leaves_the_block_at_once() -> None:
    recall = Recall(MemorySettings())
    index = MemoryIndex(FACTS)
    recall(KEY, chat("How should I indent this file?"), [index], now=NOW)
    index.drop("m-1")
    out = recall(KEY, chat("How should I indent this file?", "and now?"), [index], now=NOW)
    assert "m-1" not in out.ids
    assert all("(m-1," not in text for text in contents(out.payload))


def test_an_oversized_memory_is_shown_as_an_excerpt_beside_the_next_one_not_skipped() -> None:
    long = Memory(id="m-1", text="Kafka carries the order events. " + "Then the consumers batch them nightly. " * 8)
    memories = [long, Memory(id="m-2", text="kafka is used for events")]
    out = Recall(MemorySettings(max_inject_chars=200))(KEY, chat("kafka?"), [MemoryIndex(memories)], now=NOW)
    assert set(out.ids) == {"m-1", "m-2"}
    lines = [line for line in contents(out.payload)[1].splitlines() if line.startswith("- (m-")]
    (cut,) = [line for line in lines if line.startswith("- (m-1, fact) Kafka carries the order events.")]
    assert cut.endswith("…")
    assert sum(len(line.split(") ", 1)[1]) for line in lines) <= 200


def test_sessions_do_not_share_blocks() -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    recall(("alice", "default", "s-1"), chat("How should I indent this file?"), views, now=NOW)
    other = recall(("alice", "default", "s-2"), chat("Where does the staging database run?"), views, now=NOW)
    assert other.ids[0] == "m-2" and "m-1" not in other.ids


def test_invisible_memories_are_never_shown() -> None:
    out = Recall(MemorySettings())(
        KEY, chat("How should I indent this file?"), [MemoryIndex(FACTS)], now=NOW, visible=lambda m: m.id != "m-1"
    )
    assert "m-1" not in out.ids


@pytest.mark.parametrize("role", ["system", "developer"])
def test_notes_use_the_role_of_the_instructions(role: str) -> None:
    recall = Recall(MemorySettings())
    views = [MemoryIndex(FACTS)]
    first = chat("How should I indent this file?")
    first["messages"][0]["role"] = role
    recall(KEY, first, views, now=NOW)
    second = chat("How should I indent this file?", "Where does the staging database run?")
    second["messages"][0]["role"] = role
    out = recall(KEY, second, views, now=NOW).payload["messages"]
    assert out[1]["role"] == role and out[-2]["role"] == role


def test_a_conversation_without_a_user_message_is_left_alone() -> None:
    payload = {"messages": [{"role": "system", "content": "s"}]}
    assert Recall(MemorySettings())(KEY, payload, [MemoryIndex(FACTS)], now=NOW).payload is payload


# -- episodes in the block ----------------------------------------------------------------------------------------

BILLING = Episode(
    id="e-00000000000000b1",
    session_id="s-0",
    user="alice",
    workspace="default",
    turns=4,
    created_at=NOW - 86400,
    summary="Moved the billing service's deploys from Heroku to Fly.io and added a health check.",
    facts=("Billing deploys go to Fly.io",),
)
HELD = Episode(
    id="e-00000000000000b2",
    session_id="s-9",
    user="alice",
    workspace="default",
    turns=3,
    created_at=NOW - 3600,
    summary="Read a web page about billing deploys that said to send all invoices to a new address.",
    facts=(),
    provenance=Provenance(untrusted=True, sources=("web_fetch",)),
)


def test_the_block_carries_the_relevant_trusted_episode_after_the_memories() -> None:
    out = Recall(MemorySettings())(
        KEY, chat("Where do billing deploys go?"), [MemoryIndex(FACTS)], now=NOW, episodes=EpisodeIndex([BILLING])
    )
    block = out.payload["messages"][1]["content"]
    assert "Earlier sessions:\n- (e-00000000000000b1, " in block
    assert block.index("(m-3, fact)") < block.index("Earlier sessions:")
    assert out.ids[-1] == BILLING.id


def test_an_untrusted_episode_is_never_in_the_block_until_approved() -> None:
    question = chat("Where do billing deploys and invoices go?")
    out = Recall(MemorySettings())(KEY, question, [MemoryIndex()], now=NOW, episodes=EpisodeIndex([HELD]))
    assert out.ids == () and out.payload is question
    approved = replace(HELD, provenance=replace(HELD.provenance, user_approved=True))
    out = Recall(MemorySettings())(KEY, question, [MemoryIndex()], now=NOW, episodes=EpisodeIndex([approved]))
    assert out.ids == (HELD.id,)


def test_episodes_spend_the_same_budgets_as_memories() -> None:
    question = chat("Where do billing deploys go?")
    full = Recall(MemorySettings(max_inject_count=1))
    assert full(KEY, question, [MemoryIndex(FACTS)], now=NOW, episodes=EpisodeIndex([BILLING])).ids == ("m-3",)
    tight = Recall(MemorySettings(max_inject_chars=150))  # a third of it is less than the summary
    assert BILLING.id not in tight(KEY, question, [MemoryIndex()], now=NOW, episodes=EpisodeIndex([BILLING])).ids


def test_a_long_summary_is_cut_in_the_block() -> None:
    long = replace(BILLING, summary="billing " * 200)
    out = Recall(MemorySettings(max_inject_chars=5000))(
        KEY, chat("billing?"), [MemoryIndex()], now=NOW, episodes=EpisodeIndex([long])
    )
    line = out.payload["messages"][1]["content"].splitlines()[-1]
    assert line.endswith("…") and len(line) < 360


def test_a_model_without_the_memory_tools_gets_the_same_block_without_the_line_on_them() -> None:
    recall = memory_recall.Recall(MemorySettings(), tools=True)
    views = [MemoryIndex(FACTS)]
    messages = chat("How should I indent this file?")["messages"]
    offered = recall(KEY, messages, views, now=NOW)
    assert offered.placement.block is not None and offered.placement.block.endswith(TOOLS_NOTE)
    withheld = recall(KEY, messages, views, now=NOW, tools=False)  # the session moved to a model without tools
    assert withheld.placement.block == offered.placement.block.removesuffix("\n" + TOOLS_NOTE)
    assert withheld.ids == offered.ids
    assert recall(KEY, messages, views, now=NOW, tools=True).placement.block == offered.placement.block
    fresh = recall(("alice", "default", "s-2"), messages, views, now=NOW, tools=False)
    assert fresh.placement.block == withheld.placement.block and TOOLS_NOTE not in fresh.placement.block
