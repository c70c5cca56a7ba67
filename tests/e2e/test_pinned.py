"""End to end: pinned facts (docs/pinned.md) through a real proxy, in every wire format.

The model pins a fact with ``memory_store {pin: true}`` (scripted on the fake upstream), or a person pins one over the
API; it opens the block of the next session, before anything ranked, and the response header counts it. A pin past
its cap comes back to the model as an error result that names the cap and says how to make room.
"""

from typing import Any

import orjson
import pytest

from proxy.memory.block import BLOCK_TITLE, ENVIRONMENT_TITLE, PROFILE_TITLE, RECALLED_TITLE
from proxy.testing import FakeUpstream, ToolCall

from .memory_client import TABS, api, claude, close_clients, memproxy, remember, sdk, user

__all__ = ["close_clients", "memproxy", "user"]

PROFILE = "User is a backend engineer who writes Go services"
ENVIRONMENT = "This repository deploys to Fly.io from the main branch"
INDENT = "How should I indent the new module?"


def pin(url: str, user: str, text: str, scope: str) -> str:
    response = api(url, user, "POST", "/memory/memories", json={"text": text, "scope": scope, "pinned": True})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def chat_block(body: dict[str, Any]) -> str:
    [block] = [m["content"] for m in body["messages"] if str(m.get("content")).startswith(BLOCK_TITLE)]
    return str(block)


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [orjson.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_fact_the_model_pins_opens_the_block_of_the_next_session(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    remember(memproxy, user, TABS)
    fake_upstream.reply(
        content=None, tool_calls=[ToolCall("memory_store", {"text": PROFILE, "scope": "user", "pin": True})]
    )
    fake_upstream.reply(content="Noted.")
    monday = sdk(memproxy, user, **{"X-Memory-Session": "monday"})
    said = [{"role": "user", "content": "I write Go services on the backend; keep that in mind always."}]
    if stream:
        with monday.chat.completions.stream(model="fake-model", messages=said) as events:
            assert events.get_final_completion().choices[0].message.content == "Noted."
    else:
        assert monday.chat.completions.create(model="fake-model", messages=said).choices[0].message.content == "Noted."
    [result] = tool_results(fake_upstream.requests[-1].json)
    assert result["ok"] is True and result["pinned"] is True
    pinned_id = result["id"]

    # The same session keeps its block as it was (prompt caches keep hitting): the pin waits for the next session.
    fake_upstream.reply(content="Tabs.")
    monday.chat.completions.create(
        model="fake-model",
        messages=[*said, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": INDENT}],
    )
    assert pinned_id not in chat_block(fake_upstream.requests[-1].json)

    fake_upstream.reply(content="Tabs.")
    tuesday = sdk(memproxy, user, **{"X-Memory-Session": "tuesday"})
    raw = tuesday.chat.completions.with_raw_response.create(
        model="fake-model",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": INDENT}],
    )
    assert raw.headers["x-memproxy-pinned"] == "1"
    assert raw.headers["x-memproxy-injected"].split(",")[0] == pinned_id
    body = fake_upstream.requests[-1].json
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    block = body["messages"][1]["content"]
    assert block.startswith(BLOCK_TITLE)
    lines = block.splitlines()
    assert lines[2:4] == [PROFILE_TITLE, f"- ({pinned_id}, fact) {PROFILE}"]  # right after the title and framing
    assert lines.index(RECALLED_TITLE) < next(n for n, line in enumerate(lines) if TABS in line)


def test_a_pin_past_its_cap_gets_the_model_an_error_naming_the_cap_and_stores_nothing(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    first = pin(memproxy, user, "User profile fact one. " + "." * 470, "user")  # 493 + 493 of 1,200
    second = pin(memproxy, user, "User profile fact two. " + "." * 470, "user")
    overflow = "User lives in Lisbon and works remotely for a Berlin company. " + "." * 200
    fake_upstream.reply(
        content=None, tool_calls=[ToolCall("memory_store", {"text": overflow, "scope": "user", "pin": True})]
    )
    fake_upstream.reply(content="I could not pin that.")
    answer = sdk(memproxy, user).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Remember where I live."}]
    )
    assert answer.choices[0].message.content == "I could not pin that."
    [result] = tool_results(fake_upstream.requests[-1].json)
    assert result["ok"] is False
    assert "memory.pinned_user_chars" in result["error"] and "1200" in result["error"]
    assert f"{first}: 493" in result["error"] and f"{second}: 493" in result["error"]
    assert "replace or remove" in result["error"].lower()
    listed = api(memproxy, user, "GET", "/memory/pinned").json()
    assert [m["id"] for m in listed["user"]["memories"]] == [first, second]
    assert api(memproxy, user, "GET", "/memory/memories").json()["count"] == 2


@pytest.mark.parametrize("stream", [False, True])
def test_pins_open_the_block_on_the_messages_api(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    profile = pin(memproxy, user, PROFILE, "user")
    environment = pin(memproxy, user, ENVIRONMENT, "workspace")
    remember(memproxy, user, TABS)
    fake_upstream.reply(content="Tabs.")
    kwargs: dict[str, Any] = {
        "model": "fake-claude",
        "max_tokens": 256,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": INDENT}],
    }
    client = claude(memproxy, user)
    if stream:
        with client.messages.stream(**kwargs) as events:
            events.get_final_message()
    else:
        raw = client.messages.with_raw_response.create(**kwargs)
        assert raw.headers["x-memproxy-pinned"] == "2"
    body = fake_upstream.requests[-1].json
    assert fake_upstream.requests[-1].path == "/v1/messages"
    [block] = [b["text"] for b in body["system"] if b["text"].startswith(BLOCK_TITLE)]
    lines = block.splitlines()
    assert lines[2:6] == [
        PROFILE_TITLE,
        f"- ({profile}, fact) {PROFILE}",
        ENVIRONMENT_TITLE,
        f"- ({environment}, fact) {ENVIRONMENT}",
    ]
    assert lines[6] == RECALLED_TITLE and TABS in lines[7]


@pytest.mark.parametrize("stream", [False, True])
def test_pins_open_the_block_on_the_responses_api(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    environment = pin(memproxy, user, ENVIRONMENT, "workspace")
    fake_upstream.reply(content="Done.")
    client = sdk(memproxy, user)
    kwargs: dict[str, Any] = {"model": "fake-model", "instructions": "Be brief.", "input": "Deploy it, please."}
    if stream:
        with client.responses.stream(**kwargs) as events:
            events.get_final_response()
    else:
        raw = client.responses.with_raw_response.create(**kwargs)
        assert raw.headers["x-memproxy-pinned"] == "1"
    body = fake_upstream.requests[-1].json
    assert fake_upstream.requests[-1].path == "/v1/responses"
    [block] = [
        item["content"]
        for item in body["input"]
        if item.get("role") == "developer" and str(item.get("content")).startswith(BLOCK_TITLE)
    ]
    assert block.splitlines()[2:4] == [ENVIRONMENT_TITLE, f"- ({environment}, fact) {ENVIRONMENT}"]
