"""A client's side requests through the app, in-process: structured output on every format and Claude Code's recorded
title and compaction go upstream as sent (no block, no memory tools) and leave sessions and turns alone, while the
same requests as part of the conversation get their memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from proxy.app import create_app
from proxy.config import load_settings
from proxy.memory.block import BLOCK_TITLE
from proxy.services import Services, build_services

from .recording import load

CLAUDE_CODE = load("claude_code.json")  # title, the conversation's six requests, /compact
SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
ASKED = "Hi, I'm Ada. I indent Python with tabs."


def chat_request(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": ASKED}], **extra}


def responses_request(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "input": ASKED, **extra}


def messages_request(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-test", "max_tokens": 100, "messages": [{"role": "user", "content": ASKED}], **extra}


ANSWERS = {
    "/v1/chat/completions": {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    },
    "/v1/responses": {
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-test", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
    },
    "/v1/messages": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}  # fmt: skip
STRUCTURED_REQUESTS = [
    ("/v1/chat/completions", chat_request(response_format={"type": "json_object"})),
    ("/v1/responses", responses_request(text={"format": {"type": "json_schema", "name": "t", "schema": SCHEMA}})),
    ("/v1/messages", messages_request(output_config={"format": {"type": "json_schema", "schema": SCHEMA}})),
]
ADA = {"x-memory-user": "ada", "authorization": "Bearer sk-test", "x-api-key": "sk-test"}


class Upstream:
    def __init__(self) -> None:
        self.got: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.got.append(request)
        return httpx.Response(200, json=ANSWERS[request.url.path])


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[tuple[Services, httpx.AsyncClient, Upstream]]:
    upstream = Upstream()
    settings = load_settings(
        overrides={
            "upstream.base_url": "http://upstream.test/v1",
            "upstream.anthropic_base_url": "http://upstream.test/v1",
            "store.path": str(tmp_path),
        }
    )
    services = build_services(settings, transport=httpx.MockTransport(upstream))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        added = await client.post("/memory/memories", json={"text": "Ada drinks her coffee black"}, headers=ADA)
        assert added.status_code == 201, added.text
        yield services, client, upstream


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "payload"), STRUCTURED_REQUESTS, ids=["chat", "responses", "messages"])
async def test_a_structured_output_request_goes_upstream_as_sent_and_leaves_no_session(
    app: tuple[Services, httpx.AsyncClient, Upstream], path: str, payload: dict[str, Any]
) -> None:
    services, client, upstream = app
    body = orjson.dumps(payload)
    response = await client.post(path, content=body, headers={**ADA, "content-type": "application/json"})
    assert response.status_code == 200, response.text
    (sent,) = upstream.got
    assert sent.content == body  # no block, no memory tools: byte for byte
    assert services.episodes.sessions.of("ada", "default") == []

    # The same request without its format is the conversation: the block and the tools, and a session.
    plain = {key: value for key, value in payload.items() if key not in ("response_format", "text", "output_config")}
    response = await client.post(path, json=plain, headers=ADA)
    assert response.status_code == 200, response.text
    conversation = upstream.got[-1].content
    assert BLOCK_TITLE.encode() in conversation and b"memory_search" in conversation
    assert [session.turns for session in services.episodes.sessions.of("ada", "default")] == [1]


@pytest.mark.anyio
async def test_claude_codes_title_and_compaction_leave_its_session_its_turns_and_history_alone(
    app: tuple[Services, httpx.AsyncClient, Upstream],
) -> None:
    services, client, upstream = app
    title, first, *_, compaction = CLAUDE_CODE
    for recorded in (title, first, compaction):
        response = await client.post(recorded.path, content=recorded.body, headers={**recorded.headers, **ADA})
        assert response.status_code == 200, response.text
    assert upstream.got[0].content == title.body and upstream.got[2].content == compaction.body
    assert BLOCK_TITLE.encode() in upstream.got[1].content
    (session,) = services.episodes.sessions.of("ada", "default")
    assert session.turns == 1
    assert [m.get("role") for m in session.messages if m.get("role") == "user"] == ["user"]
