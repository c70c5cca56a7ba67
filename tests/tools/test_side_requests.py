"""Which requests are side requests (proxy/tools/side_requests.py): a client's utility calls beside the conversation,
which get no block, no memory tools, no session and no history (what the app does with one: tests/clients)."""

from __future__ import annotations

from typing import Any

import pytest

from proxy.config import SessionsSettings
from proxy.dialects.base import Dialect
from proxy.dialects.chat import CHAT
from proxy.dialects.messages import MESSAGES
from proxy.dialects.responses import RESPONSES
from proxy.tools.side_requests import KNOWN, STRUCTURED, SideRequests

from ..clients.recording import load

SIDE = SideRequests(SessionsSettings())
CLAUDE_CODE = load("claude_code.json")  # title, the conversation's six requests, /compact
CODEX = load("codex.json")
SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
ASKED = "Hi, I'm Ada. I indent Python with tabs."


def reason(dialect: Dialect, payload: dict[str, Any], side: SideRequests = SIDE) -> str | None:
    return side.reason(dialect, payload, dialect.messages(payload))


def chat_request(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": ASKED}], **extra}


def responses_request(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "input": ASKED, **extra}


def messages_request(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-test", "max_tokens": 100, "messages": [{"role": "user", "content": ASKED}], **extra}


def test_a_request_asking_for_structured_output_is_a_side_request_in_every_format() -> None:
    json_schema = {"type": "json_schema", "json_schema": {"name": "t", "schema": SCHEMA}}
    assert reason(CHAT, chat_request(response_format=json_schema)) == STRUCTURED
    assert reason(CHAT, chat_request(response_format={"type": "json_object"})) == STRUCTURED
    text_format = {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert reason(RESPONSES, responses_request(text=text_format)) == STRUCTURED
    assert reason(MESSAGES, messages_request(output_config=text_format)) == STRUCTURED
    assert reason(MESSAGES, messages_request(output_format={"type": "json_schema", "schema": SCHEMA})) == STRUCTURED


def test_plain_text_output_and_other_output_settings_are_the_conversation() -> None:
    assert reason(CHAT, chat_request(response_format={"type": "text"})) is None
    assert reason(RESPONSES, responses_request(text={"format": {"type": "text"}, "verbosity": "low"})) is None
    assert reason(MESSAGES, messages_request(output_config={"effort": "high"})) is None  # Claude Code's every turn


def test_claude_codes_title_and_compaction_are_side_requests_and_its_conversation_is_not() -> None:
    title, *conversation, compaction = CLAUDE_CODE
    assert reason(MESSAGES, title.json) == STRUCTURED
    assert reason(MESSAGES, compaction.json) == KNOWN  # the whole conversation, then its prompt
    assert [reason(MESSAGES, recorded.json) for recorded in conversation] == [None] * len(conversation)
    assert [reason(RESPONSES, recorded.json) for recorded in CODEX] == [None] * len(CODEX)


def test_known_clients_utility_prompts_are_side_requests_as_leading_instructions_or_the_newest_user_message() -> None:
    codex_title = "Generate a concise, single-line task title for this request."
    assert reason(RESPONSES, responses_request(instructions=codex_title)) == KNOWN
    probe = {"model": "claude-test", "max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]}
    assert reason(MESSAGES, probe) == KNOWN
    # Only where a utility call puts its prompt: the same words said earlier in a conversation are the user's.
    earlier = [
        {"role": "user", "content": "quota"},
        {"role": "assistant", "content": "?"},
        {"role": "user", "content": "x"},
    ]
    assert reason(CHAT, {"model": "m", "messages": earlier}) is None
    assert reason(CHAT, chat_request(messages=[{"role": "user", "content": "what is my quota"}])) is None


def test_the_patterns_and_structured_output_are_configurable() -> None:
    own = SideRequests(SessionsSettings(side_requests=("Summarise for the changelog",), side_structured=False))
    assert reason(CHAT, chat_request(response_format={"type": "json_object"}), own) is None
    summary = {"model": "m", "messages": [{"role": "system", "content": "Summarise for the changelog: ..."}]}
    assert reason(CHAT, summary, own) == KNOWN
    assert reason(MESSAGES, CLAUDE_CODE[-1].json, own) is None  # the defaults replaced
    with pytest.raises(ValueError, match="not a regular expression"):
        SessionsSettings(side_requests=("(unclosed",))
