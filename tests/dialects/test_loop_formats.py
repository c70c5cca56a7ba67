"""The Responses and Messages dialects driven by the tool loop as it is (``proxy.tools.loop``), upstream faked.

These check the seam, not the formats' details (their own tests do): the loop's whole and streamed
paths run several hops through each dialect and hand the client one answer without a memory call.
The loop does not pass :attr:`Turn.state` on yet, so hidden turns go back in their rebuilt form.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from proxy.dialects.base import Dialect
from proxy.dialects.messages import MESSAGES
from proxy.dialects.responses import RESPONSES, tool_schema
from proxy.errors import StoreUnavailable
from proxy.memory.caller import Identity
from proxy.memory.provenance import TRUSTED, Provenance
from proxy.metrics import Metrics
from proxy.pipe.hops import Answer, Stream
from proxy.pipe.sse import Event
from proxy.tools.hidden import HiddenTurns
from proxy.tools.loop import ToolLoop, complete, stream
from proxy.tools.memory_tools import SCHEMAS

from . import messages_wire as mw
from . import responses_wire as rw

pytestmark = pytest.mark.anyio


class FakeTools:
    """The memory tools, answering every call with a fixed result."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def run(
        self, caller: Identity, session: str, name: str, arguments: str, provenance: object = None, taint: object = None
    ) -> str:
        self.calls.append((name, arguments))
        return '{"count":0,"memories":[]}'

    def refuse(self, name: str, error: str) -> str:
        return '{"ok":false}'


class Trusted:
    """A session that took in nothing from outside, as the loop asks it."""

    def __call__(self) -> Provenance:
        return TRUSTED

    async def checked(self) -> Provenance:
        return TRUSTED

    def saw(self, names: Iterable[str]) -> None:
        return None


@dataclass
class FakeHops:
    """An upstream that answers each call with the next scripted body, whole or as a stream."""

    bodies: Sequence[dict[str, Any]]
    events: Sequence[list[dict[str, Any]]] = ()
    payloads: list[dict[str, Any]] = field(default_factory=list)

    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer:
        self.payloads.append(payload)
        return Answer(200, [(b"content-type", b"application/json")], orjson.dumps(self.bodies[len(self.payloads) - 1]))

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream:
        self.payloads.append(payload)
        events = self.events[len(self.payloads) - 1]

        async def batches() -> AsyncIterator[list[Event]]:
            for event in events:
                yield [Event(orjson.dumps(event))]

        async def close() -> None:
            return None

        return Stream([], batches(), close)


def prepared(dialect: Dialect, payload: dict[str, Any], max_hops: int = 4) -> tuple[dict[str, Any], ToolLoop]:
    """The request with the memory tools offered, and its loop (memory tools faked)."""
    plan = dialect.plan_tools(payload, tuple(SCHEMAS.values()))
    assert plan is not None
    tools = FakeTools()
    loop = ToolLoop(dialect, plan, tools, HiddenTurns(), Identity("ada"), max_hops, Metrics(), "s-1", Trusted())  # type: ignore[arg-type]
    return dialect.offer(payload, plan), loop


async def body_of(response: Any) -> bytes:
    """The body the client reads, the response driven as the server drives it (a client that stays)."""
    messages: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    await response({"type": "http", "asgi": {"spec_version": "2.3"}}, receive, send)
    assert messages[-1]["more_body"] is False
    return b"".join(message.get("body", b"") for message in messages)


# -- Responses ----------------------------------------------------------------------------------------------

SEARCH = '{"query":"weather"}'


ECHO = [tool_schema(spec) for spec in SCHEMAS.values()]  # a response echoes the request's tools


def responses_hops() -> list[dict[str, Any]]:
    hidden = rw.response(
        "resp_1",
        output=[rw.reasoning_item("rs_1"), rw.call_item("fc_m1", "call_m1", "memory_search", SEARCH)],
        usage=rw.usage(100, 20),
        tools=ECHO,
    )
    final = rw.response("resp_2", output=[rw.message_item("msg_2", "Sunny.")], usage=rw.usage(130, 5), tools=ECHO)
    return [hidden, final]


async def test_a_whole_responses_answer_goes_through_the_loop() -> None:
    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "weather?"})
    hops = FakeHops(responses_hops())
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    result = orjson.loads(response.body)
    assert loop.tools.calls == [("memory_search", SEARCH)]  # type: ignore[attr-defined]
    assert [item["id"] for item in result["output"]] == ["rs_1", "msg_2"]
    assert result["id"] == "resp_1" and result["usage"]["total_tokens"] == 255
    assert b"memory_" not in response.body  # not even in the tools echo
    following = hops.payloads[1]["input"]  # the hop's items as the upstream sent them, then the outputs
    assert {key: following[-2][key] for key in ("type", "call_id", "name", "arguments")} == {
        "type": "function_call",
        "call_id": "call_m1",
        "name": "memory_search",
        "arguments": SEARCH,
    }
    assert following[-1] == {
        "type": "function_call_output",
        "call_id": "call_m1",
        "output": '{"count":0,"memories":[]}',
    }


async def test_a_memory_write_whose_provenance_the_store_cannot_say_is_refused_and_the_loop_goes_on() -> None:
    class Unknown(Trusted):
        async def checked(self) -> Provenance:
            raise StoreUnavailable("the session store is down")

    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "weather?"})
    loop.trust = Unknown()
    hidden, final = responses_hops()
    hidden["output"][1] = rw.call_item("fc_m1", "call_m1", "memory_store", '{"text": "x"}')
    hops = FakeHops([hidden, final])
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    assert orjson.loads(response.body)["output"][-1]["id"] == "msg_2"  # the client still gets its answer
    assert loop.tools.calls == []  # type: ignore[attr-defined]  # nothing was written
    assert hops.payloads[1]["input"][-1]["output"] == '{"ok":false}'  # the model reads why


async def test_a_whole_responses_answer_without_memory_calls_hides_the_tools_echo() -> None:
    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "weather?"})
    response = await complete(reader(loop), FakeHops(responses_hops()[1:]), payload, None, loop, [])  # type: ignore[arg-type]
    assert b"memory_" not in response.body


async def test_a_streamed_responses_answer_goes_through_the_loop() -> None:
    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "weather?", "stream": True})
    hops = FakeHops([], [rw.hop_events(body) for body in responses_hops()])
    out = await body_of(await stream(splitter(RESPONSES, loop), hops, payload, None, loop, []))  # type: ignore[arg-type]
    events = [data for _, data in rw.parse_named(out)]
    assert [e["type"] for e in events].count("response.completed") == 1
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert [item["id"] for item in events[-1]["response"]["output"]] == ["rs_1", "msg_2"]
    assert b"memory_search" not in out


def chained_hop(id: str, text: str) -> dict[str, Any]:
    """An answer to a request the proxy sent on from its chain id, ``resp_chain``, which the answer echoes."""
    answer = rw.response(id, output=[rw.message_item(f"msg_{id}", text)], usage=rw.usage(10, 2), tools=ECHO)
    return {**answer, "previous_response_id": "resp_chain"}


async def test_a_chained_answer_echoes_the_id_the_client_chained_from_through_the_loop() -> None:
    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "and?", "previous_response_id": "resp_chain"})
    hops = FakeHops([chained_hop("resp_3", "More.")])
    response = await complete(loop.dialect.reader(loop.plan.names, "resp_1"), hops, payload, None, loop, [])  # type: ignore[arg-type]
    assert orjson.loads(response.body)["previous_response_id"] == "resp_1"


async def test_a_chained_answer_without_a_loop_still_echoes_the_clients_id() -> None:
    """No memory tools (``tool_choice: none``): nothing to hide, but the chain id the proxy sent is put back."""
    payload = {"model": "gpt-5", "input": "and?", "previous_response_id": "resp_chain", "tool_choice": "none"}
    hops = FakeHops([chained_hop("resp_3", "More.")])
    response = await complete(RESPONSES.reader(frozenset(), "resp_1"), hops, payload, None, None, [])  # type: ignore[arg-type]
    result = orjson.loads(response.body)
    assert result["previous_response_id"] == "resp_1"
    assert result["output"] == [rw.message_item("msg_resp_3", "More.")]


async def test_an_answer_with_nothing_to_put_back_goes_to_the_client_untouched() -> None:
    body = orjson.dumps(chained_hop("resp_3", "More."))
    hops = FakeHops([orjson.loads(body)])
    response = await complete(RESPONSES.reader(frozenset()), hops, {"model": "gpt-5"}, None, None, [])  # type: ignore[arg-type]
    assert response.body == body


# -- Messages -----------------------------------------------------------------------------------------------


def messages_hops() -> list[dict[str, Any]]:
    hidden = mw.message(
        "msg_1", [mw.text("Checking."), mw.tool_use("toolu_m1", "memory_search", {"query": "weather"})], "tool_use"
    )
    return [hidden, mw.message("msg_2", [mw.text("Sunny.")], "end_turn")]


def messages_request(max_hops: int = 4, **extra: Any) -> tuple[dict[str, Any], ToolLoop]:
    payload = {"model": "claude", "max_tokens": 100, "messages": [{"role": "user", "content": "weather?"}], **extra}
    return prepared(MESSAGES, payload, max_hops)


async def test_a_whole_messages_answer_goes_through_the_loop() -> None:
    payload, loop = messages_request()
    hops = FakeHops(messages_hops())
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    result = orjson.loads(response.body)
    assert result["id"] == "msg_1" and result["stop_reason"] == "end_turn"
    assert result["content"] == [mw.text("Checking."), mw.text("Sunny.")]
    assert hops.payloads[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": [mw.text("Checking."), mw.tool_use("toolu_m1", "memory_search", {"query": "weather"})],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_m1", "content": '{"count":0,"memories":[]}'}],
        },
    ]


async def test_a_streamed_messages_answer_goes_through_the_loop() -> None:
    payload, loop = messages_request(stream=True)
    hops = FakeHops([], [mw.hop_events(body) for body in messages_hops()])
    out = await body_of(await stream(splitter(MESSAGES, loop), hops, payload, None, loop, []))  # type: ignore[arg-type]
    events = [data for _, data in rw.parse_named(out)]
    kinds = [e["type"] for e in events]
    assert kinds.count("message_start") == kinds.count("message_stop") == 1
    assert events[-2]["delta"]["stop_reason"] == "end_turn"
    assert b"memory_search" not in out


async def test_the_last_hop_forbids_tools_when_only_memory_tools_were_offered() -> None:
    payload, loop = messages_request(max_hops=1)
    hops = FakeHops(messages_hops())
    await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    assert hops.payloads[1]["tool_choice"] == {"type": "none"} and hops.payloads[1]["tools"]


def splitter(dialect: Any, loop: ToolLoop) -> Any:
    return dialect.splitter(include_usage=True, hidden=loop.plan.names)


def reader(loop: ToolLoop) -> Any:
    return loop.dialect.reader(loop.plan.names)


# -- A memory call repeated after its answer ------------------------------------------------------------------

STORE = {"text": "Ada likes tea", "tags": ["drinks"]}
GET_WEATHER = mw.tool_use("toolu_w", "get_weather", {"city": "New York"})


def repeating_hops(again: dict[str, Any]) -> list[dict[str, Any]]:
    """A model that never sees its tool results (a server that drops them): it stores the same thing again, and
    would go on to invent a call of the client's tool."""
    return [
        mw.message("msg_1", [mw.text("Noting."), mw.tool_use("toolu_m1", "memory_store", STORE)], "tool_use"),
        mw.message("msg_2", [mw.text("Noted."), mw.tool_use("toolu_m2", "memory_store", again)], "tool_use"),
        mw.message("msg_3", [mw.text("Noted again.")], "end_turn"),
        mw.message("msg_4", [GET_WEATHER], "tool_use"),
    ]


async def test_a_memory_call_repeated_after_its_answer_ends_the_loop_with_the_models_text() -> None:
    payload, loop = messages_request()
    reordered = {"tags": ["drinks"], "text": "Ada likes tea"}  # the same call, its arguments in another order
    hops = FakeHops(repeating_hops(reordered))
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    result = orjson.loads(response.body)
    assert len(hops.payloads) == 2  # no hop past the repetition
    assert [name for name, _ in loop.tools.calls] == ["memory_store"]  # type: ignore[attr-defined]  # run once
    assert result["content"] == [mw.text("Noting."), mw.text("Noted.")]
    assert result["stop_reason"] == "end_turn"
    assert b"memory_store" not in response.body


async def test_a_streamed_memory_call_repeated_after_its_answer_ends_the_stream_with_the_models_text() -> None:
    payload, loop = messages_request(stream=True)
    hops = FakeHops([], [mw.hop_events(body) for body in repeating_hops(STORE)])
    out = await body_of(await stream(splitter(MESSAGES, loop), hops, payload, None, loop, []))  # type: ignore[arg-type]
    events = [data for _, data in rw.parse_named(out)]
    kinds = [e["type"] for e in events]
    assert len(hops.payloads) == 2 and len(loop.tools.calls) == 1  # type: ignore[attr-defined]
    assert kinds.count("message_start") == kinds.count("message_stop") == 1
    assert events[-2]["delta"]["stop_reason"] == "end_turn"
    assert b"memory_store" not in out and b"get_weather" not in out


async def test_a_repeated_responses_memory_call_ends_the_loop_however_its_arguments_are_spaced() -> None:
    payload, loop = prepared(RESPONSES, {"model": "gpt-5", "input": "note it"})
    first = rw.response("resp_1", output=[rw.call_item("fc_1", "call_1", "memory_store", '{"text":"tea"}')], tools=ECHO)
    again = rw.response(
        "resp_2",
        output=[
            rw.message_item("msg_2", "Noted."),
            rw.call_item("fc_2", "call_2", "memory_store", '{ "text": "tea" }'),
        ],
        tools=ECHO,
    )
    hops = FakeHops([first, again, rw.response("resp_3", output=[rw.message_item("msg_3", "Again.")], tools=ECHO)])
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    assert len(hops.payloads) == 2
    assert [item["id"] for item in orjson.loads(response.body)["output"]] == ["msg_2"]


async def test_a_memory_call_with_new_arguments_goes_on_with_the_loop() -> None:
    payload, loop = messages_request()
    hops = FakeHops(repeating_hops({"text": "Ada likes green tea"}))
    response = await complete(reader(loop), hops, payload, None, loop, [])  # type: ignore[arg-type]
    assert len(hops.payloads) == 3 and len(loop.tools.calls) == 2  # type: ignore[attr-defined]
    assert orjson.loads(response.body)["content"][-1] == mw.text("Noted again.")
