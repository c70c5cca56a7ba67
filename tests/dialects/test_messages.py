"""The Messages dialect's request side: parsing, the chat-shaped view, where memory goes, tools, the next hop."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from proxy.dialects.base import Call, Dialect, HiddenStep, KeptTurn, ToolPlan
from proxy.dialects.messages import MESSAGES, next_payload, offer, parse_messages_request, plan_tools, withdraw
from proxy.errors import InvalidRequest, RequestTooLarge
from proxy.memory.block import Placement, newest_user_message
from proxy.tools.memory_tools import NAMES, SCHEMAS

from .messages_wire import CLIENT_TOOL, WEB_SEARCH, text, thinking, tool_use

SPECS = tuple(SCHEMAS.values())
DIALECT: Dialect = MESSAGES  # the Messages dialect fills the seam every format fills


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def result(call_id: str, content: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


def full_plan(payload: dict[str, Any] | None = None) -> ToolPlan:
    plan = plan_tools(payload or {"messages": [user("hi")]}, SPECS)
    assert plan is not None
    return plan


# -- parse --------------------------------------------------------------------------------------------------


def test_a_request_parses_with_a_string_or_block_system() -> None:
    for system in (None, "Be brief.", [text("Be brief.")]):
        body = orjson.dumps({"model": "claude", "max_tokens": 10, "system": system, "messages": [user("hi")]})
        parsed = parse_messages_request(body)
        assert parsed.payload["system"] == system and not parsed.stream and parsed.body == body


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (b"", None),
        (b"[1]", None),
        (b'{"messages": "hi"}', "messages"),
        (b'{"messages": [{"role": "user"}]}', "messages.0"),
        (b'{"messages": [{"role": "user", "content": "hi"}, 3]}', "messages.1"),
        (b'{"messages": [], "system": 3}', "system"),
        (b'{"messages": [], "system": ["text"]}', "system"),
        (b'{"messages": [], "stream": 1}', "stream"),
    ],
)
def test_a_malformed_request_is_refused(body: bytes, param: str | None) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_messages_request(body)
    assert refused.value.param == param


def test_errors_are_in_anthropics_shape() -> None:
    assert orjson.loads(MESSAGES.error_body(InvalidRequest("bad", param="messages"))) == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "bad"},
    }
    too_large = orjson.loads(MESSAGES.error_body(RequestTooLarge("big")))
    assert too_large["error"]["type"] == "request_too_large"


# -- the chat-shaped view -----------------------------------------------------------------------------------


def test_system_leads_and_blocks_become_messages_calls_and_tool_results() -> None:
    payload = {
        "system": [text("Be brief.")],
        "messages": [
            user("weather?"),
            assistant([thinking("hm"), text("Checking."), tool_use("toolu_1", "get_weather", {"city": "Paris"})]),
            user([result("toolu_1", "sunny"), text("and tomorrow?")]),
            assistant([{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}}]),
            assistant([{"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "read", "server_name": "fs", "input": {}}]),
        ],
    }
    assert MESSAGES.messages(payload) == [
        {"role": "system", "content": [text("Be brief.")]},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [text("Checking.")],
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
        {"role": "user", "content": [text("and tomorrow?")]},
        {
            "role": "assistant",
            "content": [],
            "tool_calls": [
                {"id": "srvtoolu_1", "type": "function", "function": {"name": "web_search", "arguments": '{"q":"x"}'}}
            ],
        },
        {
            "role": "assistant",
            "content": [],
            "tool_calls": [
                {"id": "mcptoolu_1", "type": "function", "function": {"name": "fs__read", "arguments": "{}"}}
            ],
        },
    ]


# -- where memory goes --------------------------------------------------------------------------------------


def test_the_block_is_a_text_block_at_the_end_of_system() -> None:
    cached = {**text("Be brief."), "cache_control": {"type": "ephemeral"}}
    payload = {"system": [cached], "messages": [user("hi")]}
    injected = MESSAGES.inject(payload, Placement(block="B"))
    assert injected["system"] == [cached, text("B")]
    assert injected["messages"] is payload["messages"]


def test_a_string_system_becomes_text_blocks_and_a_missing_one_is_added() -> None:
    assert MESSAGES.inject({"system": "S", "messages": []}, Placement(block="B"))["system"] == [text("S"), text("B")]
    assert MESSAGES.inject({"messages": []}, Placement(block="B"))["system"] == [text("B")]
    payload = {"system": "S", "messages": []}
    assert MESSAGES.inject(payload, Placement()) is payload


def test_a_note_opens_the_newest_user_turn_after_its_tool_results() -> None:
    payload = {
        "system": "S",
        "messages": [
            user("weather?"),
            assistant([tool_use("toolu_1", "get_weather", {"city": "Paris"})]),
            user([result("toolu_1", "sunny"), text("and tomorrow?")]),
        ],
    }
    before = copy.deepcopy(payload)
    newest = newest_user_message(MESSAGES.messages(payload))
    injected = MESSAGES.inject(payload, Placement(notes=((newest, "N1"), (newest, "N2"))))
    assert injected["messages"][2]["content"] == [
        result("toolu_1", "sunny"),
        text("N1"),
        text("N2"),
        text("and tomorrow?"),
    ]
    assert injected["system"] == "S" and payload == before


def test_a_note_before_a_string_turn_makes_it_blocks() -> None:
    payload = {"messages": [user("hi")]}
    assert MESSAGES.inject(payload, Placement(notes=((0, "N"),)))["messages"] == [user([text("N"), text("hi")])]


# -- tools --------------------------------------------------------------------------------------------------


def test_memory_tools_are_offered_in_anthropics_shape_beside_server_tools() -> None:
    plan = full_plan({"messages": [], "tools": [CLIENT_TOOL, WEB_SEARCH]})
    offered = offer({"messages": [], "tools": [CLIENT_TOOL, WEB_SEARCH]}, plan)
    assert offered["tools"][:2] == [CLIENT_TOOL, WEB_SEARCH]
    for tool in offered["tools"][2:]:
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"] is SCHEMAS[tool["name"]].parameters
    assert plan.names == NAMES


@pytest.mark.parametrize(
    "payload",
    [
        {"messages": [], "tools": [CLIENT_TOOL], "tool_choice": {"type": "none"}},
        {"messages": [], "tool_choice": {"type": "auto"}},
        {"messages": [], "tools": {"x": 1}},
        {"messages": [], "tools": [{"name": name, "input_schema": {}} for name in NAMES]},
    ],
)
def test_requests_that_get_no_memory_tools(payload: dict[str, Any]) -> None:
    assert plan_tools(payload, SPECS) is None


def test_a_client_tool_of_the_same_name_wins_and_forced_choices_are_left_as_sent() -> None:
    payload = {"messages": [], "tools": [{"name": "memory_store", "input_schema": {}}], "tool_choice": {"type": "any"}}
    plan = full_plan(payload)
    assert plan.names == NAMES - {"memory_store"}
    assert offer(payload, plan)["tool_choice"] == {"type": "any"}


def test_withdraw_keeps_the_clients_tools_or_else_forbids_tool_use() -> None:
    plan = full_plan()
    assert withdraw(offer({"messages": [], "tools": [CLIENT_TOOL]}, plan), plan)["tools"] == [CLIENT_TOOL]
    last = withdraw(offer({"messages": []}, plan), plan)
    assert {tool["name"] for tool in last["tools"]} == NAMES and last["tool_choice"] == {"type": "none"}


# -- the next hop -------------------------------------------------------------------------------------------

SEARCH = Call("toolu_m1", "memory_search", '{"query":"x"}')
STORE = Call("toolu_m2", "memory_store", '{"text":"y"}')


def test_the_next_hop_carries_the_models_blocks_as_sent_then_the_results() -> None:
    turn = (thinking("hm"), text(""), text("Checking."), tool_use("toolu_m1", "memory_search", {"query": "x"}))
    steps = [HiddenStep("Checking.", (SEARCH,), ('{"count":0}',), turn)]
    payload = {"messages": [user("hi")], "tools": [CLIENT_TOOL]}
    following = next_payload(payload, steps)
    assert following["messages"] == [
        user("hi"),
        assistant([thinking("hm"), text("Checking."), tool_use("toolu_m1", "memory_search", {"query": "x"})]),
        user([result("toolu_m1", '{"count":0}')]),
    ]
    assert payload["messages"] == [user("hi")]


def test_without_the_blocks_the_turn_is_rebuilt_from_its_text_and_calls() -> None:
    steps = [HiddenStep(None, (SEARCH, STORE), ('{"count":0}', '{"ok":true}'))]
    following = next_payload({"messages": [user("hi")]}, steps)
    assert following["messages"][1:] == [
        assistant(
            [tool_use("toolu_m1", "memory_search", {"query": "x"}), tool_use("toolu_m2", "memory_store", {"text": "y"})]
        ),
        user([result("toolu_m1", '{"count":0}'), result("toolu_m2", '{"ok":true}')]),
    ]


# -- restoring mixed turns ----------------------------------------------------------------------------------

KEPT = KeptTurn(("toolu_m1", "toolu_c1", "toolu_m2"), (SEARCH, STORE), ('{"count":0}', '{"ok":true}'))
CLIENT_USE = tool_use("toolu_c1", "get_weather", {"city": "Paris"})


def kept(call_id: str) -> KeptTurn | None:
    return KEPT if call_id == "toolu_c1" else None


def test_a_follow_up_gets_the_memory_calls_back_and_their_results_first() -> None:
    payload = {
        "messages": [
            user("weather?"),
            assistant([thinking("hm"), text("Checking."), CLIENT_USE]),
            user([result("toolu_c1", "sunny"), text("thanks")]),
        ]
    }
    restored = MESSAGES.restore(payload, kept)
    assert restored is not None
    assert restored["messages"] == [
        user("weather?"),
        assistant(
            [
                thinking("hm"),
                text("Checking."),
                tool_use("toolu_m1", "memory_search", {"query": "x"}),
                CLIENT_USE,
                tool_use("toolu_m2", "memory_store", {"text": "y"}),
            ]
        ),
        user(
            [
                result("toolu_m1", '{"count":0}'),
                result("toolu_m2", '{"ok":true}'),
                result("toolu_c1", "sunny"),
                text("thanks"),
            ]
        ),
    ]


def test_a_follow_up_with_nothing_kept_or_sent_whole_is_left_alone() -> None:
    payload = {"messages": [assistant([CLIENT_USE]), user([result("toolu_c1", "sunny")])]}
    assert MESSAGES.restore(payload, lambda call_id: None) is None
    whole = {
        "messages": [
            assistant([tool_use("toolu_m1", "memory_search", {}), CLIENT_USE]),
            user([result("toolu_m1", "{}"), result("toolu_c1", "sunny")]),
        ]
    }
    assert MESSAGES.restore(whole, kept) is None
    assert MESSAGES.restore({"messages": [user("hi"), assistant([CLIENT_USE])]}, kept) is None
