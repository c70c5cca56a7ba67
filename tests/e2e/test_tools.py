"""End to end: the model calls the proxy's memory tools, the proxy runs them, the client never sees them.

The openai SDK -> memproxy on a socket -> the fake upstream, scripted reply by reply to call the tools.
"""

import uuid
from typing import Any

import httpx
import openai
import orjson
import pytest

from proxy.memory.block import TOOLS_NOTE
from proxy.pipe import relay
from proxy.testing import FakeUpstream, Reply, ToolCall
from proxy.tools.memory_tools import SCHEMAS

from ..conftest import RunProxy
from ..openapi_spec import validate
from .memory_client import TABS, api, close_clients, memproxy, remember, sdk, user

__all__ = ["close_clients", "memproxy", "user"]

MEMORY_TOOLS = set(SCHEMAS)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
ASK = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "Remember: tabs."}]


def store(text: str = TABS, *, id: str | None = None, **fields: Any) -> ToolCall:
    return ToolCall("memory_store", {"text": text, **fields}, id=id)


def tool_names(request_json: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request_json.get("tools") or ()]


def tool_results(fake: FakeUpstream, request: int = -1) -> list[dict[str, Any]]:
    """The results of the proxy's tool calls, as the upstream got them in a request."""
    return [orjson.loads(m["content"]) for m in fake.requests[request].json["messages"] if m["role"] == "tool"]


def listed(url: str, user: str, **params: Any) -> list[dict[str, Any]]:
    response = api(url, user, "GET", "/memory/memories", params=params)
    assert response.status_code == 200, response.text
    return list(response.json()["memories"])


def stream_events(url: str, user: str, body: dict[str, Any]) -> list[bytes]:
    """The raw SSE events of a streamed request (data payloads and comments)."""
    headers = {"X-Memory-User": user, "Authorization": "Bearer sk-test"}
    raw = httpx.post(f"{url}/chat/completions", json={"model": "fake-model", **body}, headers=headers, timeout=30)
    assert raw.status_code == 200, raw.text
    return [block for block in raw.content.split(b"\n\n") if block]


def chunks_of(events: list[bytes]) -> list[dict[str, Any]]:
    assert events[-1] == b"data: [DONE]" and events.count(b"data: [DONE]") == 1  # one [DONE], last
    return [orjson.loads(e.removeprefix(b"data: ")) for e in events[:-1] if e.startswith(b"data: ")]


def answer(client: openai.OpenAI, stream: bool, **kwargs: Any) -> Any:
    """The final completion, streamed (assembled by the SDK's strict stream helper) or not."""
    kwargs = {"model": "fake-model", "messages": ASK, **kwargs}
    if not stream:
        return client.chat.completions.create(**kwargs)
    with client.chat.completions.stream(**kwargs) as events:
        return events.get_final_completion()


# -- store, search, delete, retrieve ------------------------------------------------------------------------


def test_the_model_stores_a_memory_and_the_client_gets_one_ordinary_answer(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(
        content=None, tool_calls=[store(category="preference", source="explicit")], usage=_usage(100, 20)
    )
    fake_upstream.reply(content="Noted: tabs.", usage=_usage(130, 4))
    raw = sdk(memproxy, user).chat.completions.with_raw_response.create(model="fake-model", messages=ASK)
    body = orjson.loads(raw.content)
    validate("CreateChatCompletionResponse", body)
    message = body["choices"][0]["message"]
    assert message["content"] == "Noted: tabs." and not message.get("tool_calls")
    assert body["choices"][0]["finish_reason"] == "stop"

    first, second = fake_upstream.requests[-2:]
    assert set(tool_names(first.json)) >= MEMORY_TOOLS
    assert body["id"] == "chatcmpl-1"  # the first upstream call's id, not the last's
    hidden = second.json["messages"][-2:]
    assert hidden[0]["role"] == "assistant" and hidden[0]["tool_calls"][0]["function"]["name"] == "memory_store"
    result = orjson.loads(hidden[1]["content"])
    assert result["ok"] is True and hidden[1]["tool_call_id"] == hidden[0]["tool_calls"][0]["id"]
    assert body["usage"] == _usage(230, 24)  # summed over both calls

    (memory,) = listed(memproxy, user)
    assert (memory["id"], memory["text"], memory["category"]) == (result["id"], TABS, "preference")
    assert (memory["source"], memory["confidence"]) == ("explicit", 1.0)
    # ... and a later conversation gets it in its block.
    fake_upstream.reply(content="Tabs it is.")
    sdk(memproxy, user).chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "How should I indent?"}]
    )
    assert TABS in fake_upstream.requests[-1].json["messages"][0]["content"]


@pytest.mark.parametrize("stream", [False, True])
def test_the_models_hidden_turn_goes_back_with_text_never_null_content_so_strict_servers_take_it(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """llama-cpp-python's server answers an assistant turn with tool calls and ``content: null`` with a 500."""
    fake_upstream.strict = True
    fake_upstream.reply(content=None, tool_calls=[store()])
    fake_upstream.reply(content="Noted: tabs.")
    completion = answer(sdk(memproxy, user), stream)
    assert completion.choices[0].message.content == "Noted: tabs."
    turn = fake_upstream.requests[-1].json["messages"][-2]
    assert turn["role"] == "assistant" and turn["content"] == "" and turn["tool_calls"]


def test_the_models_text_beside_its_memory_calls_goes_back_as_it_came(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(content="Let me note that. ", tool_calls=[store()])
    fake_upstream.reply(content="Noted.")
    answer(sdk(memproxy, user), False)
    assert fake_upstream.requests[-1].json["messages"][-2]["content"] == "Let me note that. "


def test_a_streamed_store_keeps_one_id_one_usage_chunk_and_one_done(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(content="One moment. ", tool_calls=[store()], usage=_usage(10, 5))
    fake_upstream.reply(content="Saved.", usage=_usage(30, 2))
    events = stream_events(memproxy, user, {"messages": ASK, "stream": True, "stream_options": {"include_usage": True}})
    chunks = chunks_of(events)
    for chunk in chunks:
        validate("CreateChatCompletionStreamResponse", chunk)
    assert len({c["id"] for c in chunks}) == 1 and len({c["created"] for c in chunks}) == 1
    assert [c for c in chunks if c["choices"] == []] == [chunks[-1]]  # one usage chunk, last
    assert chunks[-1]["usage"] == _usage(40, 7)
    assert all(c["usage"] is None for c in chunks[:-1])
    deltas = [c["choices"][0]["delta"] for c in chunks[:-1]]
    assert sum("role" in d for d in deltas) == 1
    assert not any("tool_calls" in d for d in deltas)
    assert "".join(d.get("content") or "" for d in deltas) == "One moment. Saved."
    assert [c["choices"][0]["finish_reason"] for c in chunks[:-1] if c["choices"][0]["finish_reason"]] == ["stop"]
    assert listed(memproxy, user)[0]["text"] == TABS


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


@pytest.mark.parametrize("stream", [False, True])
def test_search_finds_what_was_stored_and_counts_the_use(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    memory_id = remember(memproxy, user, TABS, tags=["style"], category="preference")
    remember(memproxy, user, "The staging database runs PostgreSQL 16", category="fact")
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_search", {"query": "indentation"})])
    fake_upstream.reply(
        content=None, tool_calls=[ToolCall("memory_search", {"tag": "style", "category": "preference"})]
    )
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_search", {})])
    fake_upstream.reply(content="Tabs.")
    final = answer(sdk(memproxy, user), stream)
    assert final.choices[0].message.content == "Tabs."
    by_query, by_tag, newest = tool_results(fake_upstream)
    assert [m["id"] for m in by_query["memories"]] == [memory_id]
    assert [m["id"] for m in by_tag["memories"]] == [memory_id]
    assert newest["count"] == 2 and newest["memories"][0]["text"] == "The staging database runs PostgreSQL 16"
    (counted,) = [m for m in listed(memproxy, user) if m["id"] == memory_id]
    assert counted["use_count"] == 3 and counted["last_used"] is not None


@pytest.mark.parametrize("stream", [False, True])
def test_delete_removes_the_callers_memory(memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool) -> None:
    memory_id = remember(memproxy, user)
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_delete", {"id": memory_id})])
    fake_upstream.reply(content="Forgotten.")
    answer(sdk(memproxy, user), stream)
    assert tool_results(fake_upstream) == [{"ok": True, "id": memory_id}]
    assert listed(memproxy, user) == []


@pytest.mark.parametrize("stream", [False, True])
def test_retrieve_pages_through_a_long_memory(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    text = " ".join(f"step{i} run the migration then verify the ledger totals" for i in range(9))[:480]
    memory_id = remember(memproxy, user, text)
    fake_upstream.reply(
        content=None,
        tool_calls=[  # parallel calls in one turn: both run, results in call order
            ToolCall("memory_retrieve", {"id": memory_id, "limit": 300}),
            ToolCall("memory_retrieve", {"id": memory_id, "offset": 300, "limit": 300}),
        ],
    )
    fake_upstream.reply(content="Done.")
    answer(sdk(memproxy, user), stream)
    first, second = tool_results(fake_upstream)
    assert (first["offset"], first["next_offset"], first["total_chars"]) == (0, 300, len(text))
    assert (second["offset"], second["next_offset"]) == (300, None)
    assert first["text"] + second["text"] == text


@pytest.mark.parametrize("stream", [False, True])
def test_parallel_stores_all_run(memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool) -> None:
    facts = ["The API runs on port 8443", "Releases ship on Tuesdays", "The team uses Linear for tickets"]
    fake_upstream.reply(content=None, tool_calls=[store(fact) for fact in facts])
    fake_upstream.reply(content="Saved all three.")
    answer(sdk(memproxy, user), stream)
    results = tool_results(fake_upstream)
    assert [r["ok"] for r in results] == [True, True, True] and len({r["id"] for r in results}) == 3
    assert sorted(m["text"] for m in listed(memproxy, user)) == sorted(facts)


def test_a_near_duplicate_supersedes_and_a_retried_store_changes_nothing(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    old_id = remember(memproxy, user, "User prefers tabs over spaces", category="preference")
    correction = store("User prefers spaces over tabs", category="correction", source="corrected")
    for _ in range(2):  # the client retries the whole request; the model stores the same thing again
        fake_upstream.reply(content=None, tool_calls=[correction])
        fake_upstream.reply(content="Spaces from now on.")
        sdk(memproxy, user).chat.completions.create(model="fake-model", messages=ASK)
    first = tool_results(fake_upstream, -3)[0]
    again = tool_results(fake_upstream, -1)[0]
    assert first["ok"] and first["superseded"] == old_id
    assert again == {"ok": True, "id": first["id"], "note": "already stored"}
    (live,) = listed(memproxy, user)
    assert (live["id"], live["category"], live["confidence"]) == (first["id"], "correction", 0.9)
    exported = [orjson.loads(line) for line in api(memproxy, user, "GET", "/memory/export").content.splitlines()]
    memories = [m for m in exported if m.get("kind") != "history"]  # then what the conversation said
    assert {m["id"]: m["superseded_by"] for m in memories} == {old_id: first["id"], first["id"]: None}


@pytest.mark.parametrize("stream", [False, True])
def test_bad_arguments_become_results_the_model_can_read(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    fake_upstream.reply(
        content=None,
        tool_calls=[
            ToolCall("memory_store", '{"text": "unterminated'),
            ToolCall("memory_store", {"tags": ["no text"]}),
            ToolCall("memory_store", {"text": "The deploy key is sk-" + "a1B2c3D4" * 6}),
            ToolCall("memory_store", {"text": "fine", "category": "gossip"}),
            ToolCall("memory_delete", {"id": "m-999999"}),
            ToolCall("memory_retrieve", {}),
        ],
    )
    fake_upstream.reply(content="Sorry, I could not save that.")
    final = answer(sdk(memproxy, user), stream)
    assert final.choices[0].message.content == "Sorry, I could not save that."
    results = tool_results(fake_upstream)
    assert len(results) == 6
    for result in results:
        assert result["ok"] is False and isinstance(result["error"], str) and result["error"]
    assert "secret" in results[2]["error"]
    assert listed(memproxy, user) == []


def test_a_session_memory_stays_in_its_conversation(memproxy: str, fake_upstream: FakeUpstream, user: str) -> None:
    remember(memproxy, user, "The team deploys on Fridays")  # so every conversation opens with a block
    client = sdk(memproxy, user)  # no X-Memory-Session: the conversation's opening names the session
    conversation: list[dict[str, Any]] = [{"role": "user", "content": "Let's call the new service Falcon."}]
    fake_upstream.reply(content=None, tool_calls=[store("The new service is called Falcon", scope="session")])
    fake_upstream.reply(content="Falcon it is.")
    reply = answer(client, False, messages=conversation).choices[0].message.content
    conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": "What is the new service?"}]
    elsewhere = [{"role": "user", "content": "What is the new service?"}]
    for messages, expected in ((conversation, ["The new service is called Falcon"]), (elsewhere, [])):
        fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_search", {"query": "service"})])
        fake_upstream.reply(content="...")
        answer(client, False, messages=messages)
        (found,) = tool_results(fake_upstream)
        assert [m["text"] for m in found["memories"]] == expected
        memory_text = [m["content"] for m in fake_upstream.requests[-2].json["messages"] if m["role"] == "system"]
        injected = any("The new service is called Falcon" in text for text in memory_text)
        assert injected == bool(expected)  # injected in its own conversation only


# -- isolation ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_one_user_never_reads_or_deletes_anothers_memory_through_the_tools(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    alices = remember(memproxy, user, "Alice's bank is Northwind Credit Union")
    mallory = f"mallory-{uuid.uuid4().hex[:6]}"
    fake_upstream.reply(
        content=None,
        tool_calls=[
            ToolCall("memory_search", {"query": "bank"}),
            ToolCall("memory_search", {}),
            ToolCall("memory_retrieve", {"id": alices}),
            ToolCall("memory_delete", {"id": alices}),
        ],
    )
    fake_upstream.reply(content="Nothing found.")
    answer(sdk(memproxy, mallory), stream)
    searched, newest, retrieved, deleted = tool_results(fake_upstream)
    assert searched == {"count": 0, "memories": []} and newest == {"count": 0, "memories": []}
    assert retrieved["ok"] is False and deleted["ok"] is False
    assert "Northwind" not in orjson.dumps(fake_upstream.requests[-1].json).decode()
    assert [m["id"] for m in listed(memproxy, user)] == [alices]


def test_the_model_cannot_write_global_memories_even_for_an_admin(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str
) -> None:
    with start_proxy(fake_upstream.base_url, {"memory.admin_key": "root-key"}) as url:
        fake_upstream.reply(content=None, tool_calls=[store("Everyone loves tabs", scope="global")])
        fake_upstream.reply(content="ok")
        sdk(url, user, **{"X-Memory-Admin-Key": "root-key"}).chat.completions.create(model="fake-model", messages=ASK)
        (result,) = tool_results(fake_upstream)
        assert result["ok"] is False
        assert listed(url, f"someone-{user}") == []


# -- mixed turns ------------------------------------------------------------------------------------------------


def weather_call() -> ToolCall:
    return ToolCall("get_weather", {"city": "Lisbon"}, id="call_weather")


def test_a_mixed_turn_returns_only_the_clients_call_and_the_follow_up_is_made_whole(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    client = sdk(memproxy, user)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "I live in Lisbon. Weather?"}]
    fake_upstream.reply(content=None, tool_calls=[store("User lives in Lisbon", id="call_mem"), weather_call()])
    raw = client.chat.completions.with_raw_response.create(model="fake-model", messages=messages, tools=[WEATHER])
    body = orjson.loads(raw.content)
    validate("CreateChatCompletionResponse", body)
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == ["get_weather"]
    assert listed(memproxy, user)[0]["text"] == "User lives in Lisbon"

    # The client answers its own call; the proxy puts the memory call and its result back where they were.
    messages += [choice["message"], {"role": "tool", "tool_call_id": "call_weather", "content": "Sunny, 24C"}]
    fake_upstream.reply(content="Sunny in Lisbon.")
    final = client.chat.completions.create(model="fake-model", messages=messages, tools=[WEATHER])
    assert final.choices[0].message.content == "Sunny in Lisbon."
    sent = [m for m in fake_upstream.requests[-1].json["messages"] if m["role"] in ("assistant", "tool")]
    assert [c["id"] for c in sent[0]["tool_calls"]] == ["call_mem", "call_weather"]
    assert [m["tool_call_id"] for m in sent[1:]] == ["call_mem", "call_weather"]
    assert orjson.loads(sent[1]["content"])["ok"] is True and sent[2]["content"] == "Sunny, 24C"


def test_a_streamed_mixed_turn_renumbers_the_clients_calls_from_zero(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(
        content=None,
        tool_calls=[
            store("User lives in Lisbon", id="call_mem"),
            weather_call(),
            ToolCall("get_weather", {"city": "Porto"}),
        ],
    )
    body = {
        "messages": [{"role": "user", "content": "Weather in Lisbon and Porto?"}],
        "tools": [WEATHER],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    chunks = chunks_of(stream_events(memproxy, user, body))
    fragments = [f for c in chunks if c["choices"] for f in c["choices"][0]["delta"].get("tool_calls") or ()]
    firsts = [f for f in fragments if "id" in f]
    assert [f["index"] for f in firsts] == [0, 1]  # the hidden call was index 0 upstream
    assert [f["function"]["name"] for f in firsts] == ["get_weather", "get_weather"]
    assert all("id" not in f and "name" not in f["function"] for f in fragments if f not in firsts)
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finishes == ["tool_calls"]

    # The SDK's strict stream helper assembles the same two calls.
    fake_upstream.reply(content=None, tool_calls=[store("User lives in Lisbon", id="call_mem2"), weather_call()])
    with sdk(memproxy, user).chat.completions.stream(
        model="fake-model", messages=body["messages"], tools=[WEATHER]
    ) as stream:
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [
        ("call_weather", "get_weather", '{"city":"Lisbon"}')
    ]

    # The streamed follow-up is made whole too.
    follow_up = [
        *body["messages"],
        final.choices[0].message.model_dump(exclude_none=True, exclude={"parsed"}),
        {"role": "tool", "tool_call_id": "call_weather", "content": "Sunny"},
    ]
    fake_upstream.reply(content="Sunny.")
    with sdk(memproxy, user).chat.completions.stream(model="fake-model", messages=follow_up, tools=[WEATHER]) as s:
        assert s.get_final_completion().choices[0].message.content == "Sunny."
    sent = [m for m in fake_upstream.requests[-1].json["messages"] if m["role"] in ("assistant", "tool")]
    assert [c["id"] for c in sent[0]["tool_calls"]] == ["call_mem2", "call_weather"]
    assert [m["tool_call_id"] for m in sent[1:]] == ["call_mem2", "call_weather"]


@pytest.mark.parametrize("stream", [False, True])
def test_the_loop_runs_through_litellm_for_other_providers(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    overrides = {"upstream.litellm_models": ["anthropic/*"], "upstream.litellm_api_base": fake_upstream.root_url}
    fake_upstream.reply(content=None, tool_calls=[store()])
    fake_upstream.reply(content="Saved, Claude here.")
    with start_proxy(fake_upstream.base_url, overrides) as url:
        final = answer(sdk(url, user, key="sk-ant-test"), stream, model="anthropic/claude-3-5-sonnet-20241022")
        assert final.choices[0].message.content == "Saved, Claude here."
        assert not final.choices[0].message.tool_calls
        assert [m["text"] for m in listed(url, user)] == [TABS]
    second = fake_upstream.requests[-1]
    assert second.path == "/v1/messages"
    blocks = [block for m in second.json["messages"] for block in m["content"] if isinstance(block, dict)]
    (result,) = [block for block in blocks if block["type"] == "tool_result"]
    assert result["tool_use_id"] == "toolu_0" and orjson.loads(result["content"])["ok"] is True


# -- the hop limit ------------------------------------------------------------------------------------------


def always_searching(body: dict[str, Any]) -> Reply:
    """A model that calls memory_search whenever it is offered (something new each time: a repeated call would end
    the loop), and answers otherwise."""
    if "memory_search" in tool_names(body):
        query = f"anything {len(body['messages'])}"
        return Reply(content=None, tool_calls=[ToolCall("memory_search", {"query": query})])
    return Reply(content="Final answer.")


@pytest.mark.parametrize("stream", [False, True])
def test_at_the_hop_limit_the_last_call_goes_without_memory_tools(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    fake_upstream.respond_with(always_searching)
    with start_proxy(fake_upstream.base_url, {"tools.max_hops": 2}) as url:
        content = answer(sdk(url, user), stream).choices[0].message.content
    assert content == "Final answer."
    requests = [r.json for r in fake_upstream.requests]
    assert len(requests) == 3
    assert [bool(MEMORY_TOOLS & set(tool_names(r))) for r in requests] == [True, True, False]
    assert "tools" not in requests[2]  # the client sent none, so the last call has none


@pytest.mark.parametrize("stream", [False, True])
def test_memory_calls_made_when_no_longer_offered_are_dropped_not_run(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    fake_upstream.respond_with(lambda body: Reply(content="Here.", tool_calls=[store("Stubborn fact")]))
    with start_proxy(fake_upstream.base_url, {"tools.max_hops": 1}) as url:
        final = answer(sdk(url, user), stream)
        assert final.choices[0].finish_reason == "stop" and not final.choices[0].message.tool_calls
        assert final.choices[0].message.content == "Here.Here."
        assert [m["text"] for m in listed(url, user)] == ["Stubborn fact"]  # the first call's store only


# -- which models get the tools (tools.models) ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_a_model_outside_tools_models_gets_its_memories_but_only_the_clients_tools(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    """Small local models write pseudo-calls as text when offered tools: the operator lists the ones that can call."""
    with start_proxy(fake_upstream.base_url, {"tools.models": ["gpt-*", "claude-*"]}) as url:
        remember(url, user)
        client = sdk(url, user)
        for model, tools in [("qwen2.5-coder:1.5b", []), ("qwen2.5-coder:1.5b", [WEATHER]), ("gpt-4o-mini", [WEATHER])]:
            fake_upstream.reply(content="Tabs.")
            extra = {"tools": tools} if tools else {}
            assert answer(client, stream, model=model, **extra).choices[0].message.content == "Tabs."
    bare, beside, offered = (request.json for request in fake_upstream.requests[-3:])
    assert "tools" not in bare and beside["tools"] == [WEATHER]  # the client's tools, exactly as sent
    assert tool_names(offered) == ["get_weather", *SCHEMAS]
    blocks = [request["messages"][1]["content"] for request in (bare, beside, offered)]
    assert all(TABS in block for block in blocks)  # memory still comes: only the tools are withheld
    assert TOOLS_NOTE not in blocks[0] and blocks[0] == blocks[1]  # nor told of tools it does not have
    assert blocks[2] == blocks[0] + "\n" + TOOLS_NOTE  # the same memories once the session moves to a model that can


# -- tool_choice and the client's own tools ------------------------------------------------------------------


def test_tool_choice_none_adds_no_memory_tools(memproxy: str, fake_upstream: FakeUpstream, user: str) -> None:
    sdk(memproxy, user).chat.completions.create(model="fake-model", messages=ASK, tools=[WEATHER], tool_choice="none")
    assert tool_names(fake_upstream.requests[-1].json) == ["get_weather"]


def test_tool_choice_without_tools_reaches_the_upstream_untouched(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(
        status=400,
        error={
            "error": {
                "message": "'tool_choice' is only allowed when 'tools' are specified",
                "type": "invalid_request_error",
                "param": "tool_choice",
                "code": None,
            }
        },
    )
    with pytest.raises(openai.BadRequestError):
        sdk(memproxy, user).chat.completions.create(model="fake-model", messages=ASK, tool_choice="auto")
    assert "tools" not in fake_upstream.requests[-1].json


@pytest.mark.parametrize(
    "tool_choice",
    [
        {"type": "function", "function": {"name": "get_weather"}},
        {
            "type": "allowed_tools",
            "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "get_weather"}}]},
        },
    ],
    ids=["forced", "allowed_tools"],
)
def test_a_forced_or_allowed_tool_choice_reaches_the_upstream_as_sent(
    memproxy: str, fake_upstream: FakeUpstream, user: str, tool_choice: dict[str, Any]
) -> None:
    fake_upstream.reply(content=None, tool_calls=[weather_call()], finish_reason="stop")
    answer = sdk(memproxy, user).chat.completions.create(
        model="fake-model",
        messages=ASK,
        tools=[WEATHER],
        tool_choice=tool_choice,  # type: ignore[arg-type]
    )
    assert fake_upstream.requests[-1].json["tool_choice"] == tool_choice
    assert answer.choices[0].finish_reason == "stop"  # OpenAI's value for a named choice is kept (COMPAT C5)
    assert [c.function.name for c in answer.choices[0].message.tool_calls or []] == ["get_weather"]


def test_tool_choice_required_is_kept_on_every_call(memproxy: str, fake_upstream: FakeUpstream, user: str) -> None:
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_search", {"query": "city"})])
    fake_upstream.reply(content=None, tool_calls=[weather_call()])
    final = sdk(memproxy, user).chat.completions.create(
        model="fake-model", messages=ASK, tools=[WEATHER], tool_choice="required"
    )
    assert [r.json["tool_choice"] for r in fake_upstream.requests[-2:]] == ["required", "required"]
    assert final.choices[0].finish_reason == "tool_calls"
    assert [c.function.name for c in final.choices[0].message.tool_calls or []] == ["get_weather"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_client_tool_named_memory_store_wins(
    memproxy: str, fake_upstream: FakeUpstream, user: str, stream: bool
) -> None:
    own = {"type": "function", "function": {"name": "memory_store", "parameters": {"type": "object"}}}
    fake_upstream.reply(content=None, tool_calls=[store("The client's own store", id="call_own")])
    final = answer(sdk(memproxy, user), stream, tools=[own])
    names = tool_names(fake_upstream.requests[-1].json)
    assert names.count("memory_store") == 1 and set(names) == MEMORY_TOOLS
    assert fake_upstream.requests[-1].json["tools"][0] == own
    calls = final.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name) for c in calls] == [("call_own", "memory_store")]
    assert listed(memproxy, user) == []  # the proxy did not run it


# -- failures ----------------------------------------------------------------------------------------------------


def test_an_upstream_error_after_a_hop_reaches_the_client_as_the_upstream_said_it(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(content=None, tool_calls=[store()])
    fake_upstream.reply(status=429, headers={"retry-after": "3"})
    with pytest.raises(openai.RateLimitError) as caught:
        sdk(memproxy, user).chat.completions.create(model="fake-model", messages=ASK)
    assert caught.value.response.headers["retry-after"] == "3"
    validate("ErrorResponse", caught.value.response.json())
    assert listed(memproxy, user)[0]["text"] == TABS  # the acknowledged store stays


def test_an_upstream_error_after_a_streamed_hop_ends_the_stream_with_an_error_event(
    memproxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    fake_upstream.reply(content="Saving. ", tool_calls=[store()])
    fake_upstream.reply(status=500)
    stream = sdk(memproxy, user).chat.completions.create(model="fake-model", messages=ASK, stream=True)
    text = []
    with pytest.raises(openai.APIError):
        for chunk in stream:
            text.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
    assert "".join(text) == "Saving. "


def test_the_client_hears_keep_alives_while_the_next_call_is_slow(
    memproxy: str, fake_upstream: FakeUpstream, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay, "KEEPALIVE_S", 0.05)
    fake_upstream.reply(content=None, tool_calls=[store()])
    fake_upstream.reply(content="Slow answer.", delay_s=0.4)
    events = stream_events(memproxy, user, {"messages": ASK, "stream": True})
    assert b": keep-alive" in events
    chunks = chunks_of(events)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "Slow answer."
