"""History keeps each message of a session once, numbered by turn, without what the proxy added, secrets masked."""

from __future__ import annotations

from typing import Any

from proxy.config import HistorySettings
from proxy.episodes.history_turns import HistoryTurns, Said, new_lines
from proxy.episodes.sessions import Session
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.block import BLOCK_TITLE
from proxy.memory.history_service import HistoryService
from proxy.memory.provenance import TRUSTED, untrusted_by

PROXY_TOOLS = frozenset({"memory_search", "memory_store"})
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
KEY = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9xZ"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str | None, *calls: tuple[str, str, str]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
        ]
    return message


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def kept(said: Said, messages: list[dict[str, Any]], now: float = 1.0, provenance: Any = TRUSTED) -> list[tuple]:
    return [(x.turn, x.role, x.text) for x in new_lines(said, "s", messages, provenance, now, PROXY_TOOLS)]


def test_each_request_adds_only_what_is_new_and_a_retry_adds_nothing() -> None:
    said = Said()
    first = [SYSTEM, user("I live in Lisbon.")]
    assert kept(said, first) == [(1, "user", "I live in Lisbon.")]  # instructions are not history
    assert kept(said, list(first)) == []  # a retry: the same conversation again
    second = [*first, assistant("Nice city."), user("And I code in Go.")]
    assert kept(said, second) == [(1, "assistant", "Nice city."), (2, "user", "And I code in Go.")]
    third = [*second, assistant("Go is great."), user("Bye.")]
    assert kept(said, third) == [(2, "assistant", "Go is great."), (3, "user", "Bye.")]


def test_total_size_is_linear_in_the_conversation() -> None:
    said, conversation, total = Said(), [SYSTEM], 0
    for turn in range(1, 51):
        conversation = [*conversation, user(f"message {turn}")]
        total += len(kept(said, conversation))
        conversation = [*conversation, assistant(f"answer {turn}")]
    assert total == 50 + 49  # every message once (the last answer comes with the session's end)


def test_the_proxys_own_tool_turns_and_block_are_left_out_and_client_tools_kept() -> None:
    said = Said()
    messages = [
        {"role": "system", "content": f"{BLOCK_TITLE}\n- (m-1, fact) a memory"},
        user("What's the weather, and what do you remember?"),
        assistant(None, ("c1", "memory_search", '{"query": "weather"}'), ("c2", "get_weather", '{"city": "Oslo"}')),
        result("c1", '{"count": 0, "memories": []}'),
        result("c2", "Rain, 8 degrees"),
        assistant("It rains in Oslo."),
    ]
    assert kept(said, messages) == [
        (1, "user", "What's the weather, and what do you remember?"),
        (1, "assistant", 'called get_weather({"city": "Oslo"})'),
        (1, "tool", "get_weather: Rain, 8 degrees"),
        (1, "assistant", "It rains in Oslo."),
    ]


def test_secrets_are_masked_before_anything_is_kept() -> None:
    (line,) = kept(Said(), [user(f"my key is {KEY} ok")])
    assert KEY not in line[2] and "my key is" in line[2]


def test_a_trimmed_conversation_keeps_its_turn_numbers_and_adds_only_what_is_new() -> None:
    said = Said()
    long = [SYSTEM]
    for n in range(1, 5):
        long += [user(f"question {n}"), assistant(f"answer {n}")]
    kept(said, [*long, user("question 5")])
    trimmed = [SYSTEM, user("question 4"), assistant("answer 4"), user("question 5"), assistant("answer 5"), user("q6")]
    lines = kept(said, trimmed)
    # the store leaves out lines it holds (same turn, role, text): only these are new
    assert (5, "assistant", "answer 5") in lines and (6, "user", "q6") in lines
    assert (4, "user", "question 4") in lines  # re-rendered with its own turn number, so the store dedupes it


def test_a_chained_request_carrying_only_new_items_continues_the_numbering() -> None:
    said = Said()
    kept(said, [user("first")])
    assert kept(said, [result("c9", "output of a call"), user("second")]) == [
        (1, "tool", "output of a call"),  # the previous turn's call's result
        (2, "user", "second"),
    ]
    assert kept(said, [user("third")]) == [(3, "user", "third")]


def test_lines_carry_the_sessions_provenance() -> None:
    said = Said()
    tainted = untrusted_by(("web_fetch",))
    (line,) = new_lines(said, "s", [user("read this page")], tainted, 1.0, PROXY_TOOLS)
    assert line.untrusted and line.sources == ("web_fetch",)


def test_a_sessions_end_renders_only_its_answer_however_many_sessions_came_between(tmp_path) -> None:
    """What history rendered of a session lives as long as the session: a one-shot request's question is redacted
    once, not again when the session ends thousands of sessions later and its answer is kept."""
    turns = HistoryTurns(HistoryService(FilesHistory(tmp_path), HistorySettings()), PROXY_TOOLS)

    def session(n: int) -> Session:
        return Session(f"s{n}", "u", "w", 1.0, 1.0, messages=[SYSTEM, user(f"question {n}")])

    first = session(0)
    assert [x.text for x in turns.render(first, first.messages, TRUSTED, 1.0)] == ["question 0"]
    for n in range(1, 6_001):  # more sessions than history once remembered
        later = session(n)
        turns.render(later, later.messages, TRUSTED, 2.0)
    first.answer = lambda: [{"role": "assistant", "content": "answer 0"}]
    ended = turns.render(first, first.conversation(), TRUSTED, 3.0)
    assert [(x.turn, x.role, x.text) for x in ended] == [(1, "assistant", "answer 0")]


# Kinds that passed redaction before issue 37: a chat-bot token and a card's PIN and CVV (and the card itself).
BOT_TOKEN = "2785390952:AAHdXWPJx-d8ut8pdqsxRpvED5hJRaOvRTY"
DISCORD = "NDkzNDI2NDIxMDk2NzIwMTE0.m14IKC.Zr9moEHZhNX2xGqc-fQ7ZvqsP3CCT-nKEBJMhw"


def test_history_masks_bot_tokens_card_numbers_pins_and_cvvs() -> None:
    said = Said()
    conversation = [
        SYSTEM,
        user(f"The alerts bot's token is {BOT_TOKEN} and the Discord bot uses {DISCORD}."),
        assistant("Noted."),
        user("Card 4607 2743 9865 1125, CVV 731, and the debit card PIN is 4821. Door code is 2580#."),
    ]
    texts = [text for _, _, text in kept(said, conversation)]
    joined = "\n".join(texts)
    for secret in (BOT_TOKEN.split(":")[1], DISCORD.split(".")[2], "4607 2743 9865 1125", "731", "4821", "2580"):
        assert secret not in joined, (secret, joined)
    assert "CVV [redacted]" in joined and "PIN is [redacted]" in joined
