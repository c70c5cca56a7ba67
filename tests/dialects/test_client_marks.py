"""What a conversation says, read past its client's cache markers and own context (proxy/dialects/client_marks.py),
on Claude Code's and Codex's recorded requests (tests/clients/fixtures) and on small ones."""

from __future__ import annotations

from typing import Any

import orjson

from proxy.config import CLIENT_CONTEXT
from proxy.dialects.client_marks import ClientMarks
from proxy.dialects.messages import MESSAGES
from proxy.dialects.responses import RESPONSES
from proxy.episodes.sessions import derive_session_id

from ..clients.recording import load

MARKS = ClientMarks(CLIENT_CONTEXT)
CLAUDE_CODE = load("claude_code.json")[1:-1]  # the conversation: the title before it and /compact after it left out
CODEX = load("codex.json")
CACHE = {"type": "ephemeral"}


def said(dialect: Any, payload: dict[str, Any]) -> list[dict[str, Any]]:
    return MARKS.said(dialect.messages(payload))


def test_claude_codes_moving_breakpoint_leaves_what_each_request_says_a_prefix_of_the_next() -> None:
    views = [said(MESSAGES, recorded.json) for recorded in CLAUDE_CODE]
    raw = [MESSAGES.messages(recorded.json) for recorded in CLAUDE_CODE]
    # As sent, the breakpoint on the newest message makes every request disagree with the one before it...
    assert any(after[1 : len(before)] != before[1:] for before, after in zip(raw, raw[1:], strict=False))
    # ...read as said, each request's conversation (its instructions aside) goes on from the one before.
    for before, after in zip(views, views[1:], strict=False):
        assert after[1 : len(before)] == before[1:]
    assert "cache_control" not in str(views)


def test_a_marked_list_of_one_text_block_says_what_the_same_text_as_a_string_says() -> None:
    marked = {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": CACHE}]}
    plain = {"role": "user", "content": "hi"}
    assert MARKS.said([marked]) == MARKS.said([plain]) == [plain]
    on_message = {"role": "assistant", "content": "done", "cache_control": CACHE}
    assert MARKS.said([on_message]) == [{"role": "assistant", "content": "done"}]


def test_claude_codes_reminders_and_attribution_line_are_not_what_the_user_or_its_instructions_say() -> None:
    first = said(MESSAGES, CLAUDE_CODE[0].json)
    assert first[1] == {"role": "user", "content": "Hi, I'm Ada. I indent Python with tabs."}
    assert "x-anthropic-billing-header" not in str(first[0]["content"])
    assert "You are a Claude agent" in str(first[0]["content"])  # its own system prompt stays


def test_codexs_agents_md_and_environment_context_are_instructions_not_a_user_turn() -> None:
    first = said(RESPONSES, CODEX[0].json)
    users = [message for message in first if message["role"] == "user"]
    assert users == [{"role": "user", "content": "Hi, I'm Ada. I indent Python with tabs."}]
    context = [m for m in first if "<environment_context>" in str(m.get("content"))]
    assert [m["role"] for m in context] == ["system"]  # still read: it tells one project's session from another's


def test_codex_sessions_in_two_directories_are_two_sessions() -> None:
    here = said(RESPONSES, CODEX[0].json)
    elsewhere = said(RESPONSES, _moved(CODEX[0].json, "/home/ada/project", "/home/ada/other"))
    assert derive_session_id(here) != derive_session_id(elsewhere)


def test_a_text_that_only_quotes_a_clients_context_is_the_users() -> None:
    text = "What does <environment_context> mean in Codex?"
    assert MARKS.said([{"role": "user", "content": text}]) == [{"role": "user", "content": text}]


def test_messages_with_nothing_to_take_off_are_the_clients_own_objects() -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "a"},
                {"type": "text", "text": "b"}]}]  # fmt: skip
    assert all(out is message for out, message in zip(MARKS.said(messages), messages, strict=True))


def _moved(payload: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    return dict(orjson.loads(orjson.dumps(payload).replace(old.encode(), new.encode())))
