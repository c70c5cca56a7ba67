"""The Responses dialect's request side: parsing, the chat-shaped view, where memory goes, tools, the next hop."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from proxy.dialects.base import Call, Dialect, HiddenStep, KeptTurn, ToolPlan
from proxy.dialects.responses import (
    MAX_TOOLS,
    RESPONSES,
    next_payload,
    offer,
    parse_responses_request,
    plan_tools,
    tool_schema,
    withdraw,
)
from proxy.dialects.responses_items import HopRecord
from proxy.errors import InvalidRequest
from proxy.memory.block import Placement, newest_user_message
from proxy.tools.memory_tools import NAMES, SCHEMAS

from ..openapi_spec import validate
from .responses_wire import CLIENT_TOOL, call_item, message_item, reasoning_item

SPECS = tuple(SCHEMAS.values())
DIALECT: Dialect = RESPONSES  # the Responses dialect fills the seam every format fills


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def item(role: str, text: str) -> dict[str, Any]:
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


def full_plan(payload: dict[str, Any] | None = None) -> ToolPlan:
    plan = plan_tools(payload or {"input": "hi"}, SPECS)
    assert plan is not None
    return plan


# -- parse --------------------------------------------------------------------------------------------------


def test_a_request_with_string_or_list_input_parses() -> None:
    reference = {"id": "msg_stored"}  # an item reference may leave its type out
    output = {"type": "function_call_output", "call_id": "c"}
    for value in ("hi", [user("hi")], [item("user", "hi"), output, reference]):
        body = orjson.dumps({"model": "m", "input": value, "stream": True})
        parsed = parse_responses_request(body)
        assert parsed.payload["input"] == value and parsed.stream and parsed.body == body


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (b"", None),
        (b"{nope", None),
        (b"[]", None),
        (b'{"input": 3}', "input"),
        (b'{"input": ["hi"]}', "input[0]"),
        (b'{"input": [{"content": "no role"}]}', "input[0]"),
        (b'{"input": [{"type": "message", "role": {"a": 1}, "content": "hi"}]}', "input[0].role"),
        (b'{"input": [{"type": "message", "role": ["user"], "content": []}]}', "input[0].role"),
        (b'{"input": "hi", "stream": "yes"}', "stream"),
        (b'{"input": "hi", "instructions": 7}', "instructions"),
    ],
)
def test_a_malformed_request_is_refused(body: bytes, param: str | None) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_responses_request(body)
    assert refused.value.param == param and refused.value.status == 400


# -- the chat-shaped view -----------------------------------------------------------------------------------


def test_instructions_lead_the_view_and_a_string_input_is_one_user_message() -> None:
    assert RESPONSES.messages({"instructions": "Be brief.", "input": "hi"}) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


def test_an_item_reference_without_its_type_is_out_of_sight_too() -> None:
    assert RESPONSES.messages({"input": [{"id": "fco_1"}]}) == [
        {"role": "assistant", "content": None, "outside": ["item_reference"]}
    ]


def test_items_become_messages_calls_and_tool_results() -> None:
    payload = {
        "input": [
            item("developer", "Rules"),
            user("weather?"),
            reasoning_item("rs_1"),
            call_item("fc_1", "call_1", "get_weather", '{"city":"Paris"}'),
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            message_item("msg_1", "Sunny."),
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "paris"}},
            {"type": "mcp_call", "id": "mcp_1", "server_label": "fs", "name": "read", "arguments": "{}", "output": "x"},
            {"type": "item_reference", "id": "msg_0"},
        ]
    }
    assert RESPONSES.messages(payload) == [
        {"role": "developer", "content": [{"type": "input_text", "text": "Rules"}]},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "assistant", "content": message_item("msg_1", "Sunny.")["content"]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "ws_1", "type": "function", "function": {"name": "web_search", "arguments": '{"query":"paris"}'}}
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "mcp_1", "type": "function", "function": {"name": "fs__read", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "mcp_1", "content": "x"},
        {"role": "assistant", "content": None, "outside": ["item_reference"]},  # stored upstream, out of sight
    ]


# -- where memory goes --------------------------------------------------------------------------------------


def test_the_block_goes_after_the_leading_instruction_items_as_a_developer_item() -> None:
    payload = {"instructions": "Be brief.", "input": [item("system", "S"), item("developer", "D"), user("hi")]}
    injected = RESPONSES.inject(payload, Placement(block="[Memories]\n- (m-1, fact) x"))
    assert injected["input"] == [
        item("system", "S"),
        item("developer", "D"),
        {"type": "message", "role": "developer", "content": "[Memories]\n- (m-1, fact) x"},
        user("hi"),
    ]
    validate("InputItem", injected["input"][2])


def test_a_string_input_becomes_a_list_only_when_memory_goes_in() -> None:
    payload = {"input": "hi"}
    assert RESPONSES.inject(payload, Placement()) is payload
    injected = RESPONSES.inject(payload, Placement(block="B"))
    assert injected["input"] == [{"type": "message", "role": "developer", "content": "B"}, user("hi")]
    assert payload == {"input": "hi"}


def test_a_note_goes_before_the_newest_user_item_the_views_index_points_at() -> None:
    payload = {
        "instructions": "Be brief.",
        "input": [
            user("first"),
            call_item("fc_1", "call_1", "get_weather", "{}"),
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            reasoning_item("rs_1"),
            user("second"),
        ],
    }
    before = copy.deepcopy(payload)
    newest = newest_user_message(RESPONSES.messages(payload))
    assert newest == 4  # the view: instructions, user, call, result, user (reasoning is not in it)
    injected = RESPONSES.inject(payload, Placement(block="B", notes=((newest, "N"),)))
    assert [entry.get("content") for entry in injected["input"] if entry.get("role") == "developer"] == ["B", "N"]
    assert injected["input"][0]["content"] == "B"
    assert injected["input"][-2] == {"type": "message", "role": "developer", "content": "N"}
    assert injected["input"][-1] == user("second")
    assert payload == before  # a new body; the client's never edited


# -- tools --------------------------------------------------------------------------------------------------


def test_memory_tools_are_offered_in_the_responses_shape_and_not_strict() -> None:
    plan = full_plan({"input": "hi", "tools": [CLIENT_TOOL]})
    offered = offer({"input": "hi", "tools": [CLIENT_TOOL, {"type": "web_search"}]}, plan)
    assert offered["tools"][:2] == [CLIENT_TOOL, {"type": "web_search"}]
    for tool in offered["tools"][2:]:
        assert set(tool) == {"type", "name", "description", "parameters", "strict"} and tool["strict"] is False
        validate("FunctionTool", tool)
    assert {tool["name"] for tool in offered["tools"][2:]} == NAMES


@pytest.mark.parametrize(
    "payload",
    [
        {"input": "hi", "tool_choice": "none", "tools": [CLIENT_TOOL]},
        {"input": "hi", "tool_choice": "required"},
        {"input": "hi", "tool_choice": {"type": "function", "name": "get_weather"}},
        {"input": "hi", "background": True},
        {"input": "hi", "conversation": "conv_1"},
        {"input": "hi", "tools": "nope"},
        {"input": "hi", "tools": [{"type": "function", "name": f"t{n}"} for n in range(MAX_TOOLS)]},
        {"input": "hi", "tools": [{"type": "function", "name": name} for name in NAMES]},
    ],
)
def test_requests_that_get_no_memory_tools(payload: dict[str, Any]) -> None:
    assert plan_tools(payload, SPECS) is None


def test_a_client_tool_of_the_same_name_wins() -> None:
    plan = full_plan({"input": "hi", "tools": [{"type": "function", "name": "memory_search"}]})
    assert plan.names == NAMES - {"memory_search"}


def test_auto_choice_without_tools_still_gets_them() -> None:
    assert full_plan({"input": "hi", "tool_choice": "auto"}).names == NAMES


def test_withdraw_leaves_the_clients_tools_and_drops_an_emptied_list() -> None:
    plan = full_plan()
    assert withdraw(offer({"input": "hi", "tools": [CLIENT_TOOL]}, plan), plan)["tools"] == [CLIENT_TOOL]
    assert "tools" not in withdraw(offer({"input": "hi"}, plan), plan)


def test_tool_schema_keeps_the_schema_of_the_spec() -> None:
    spec = SCHEMAS["memory_store"]
    assert tool_schema(spec)["parameters"] is spec.parameters


# -- the next hop -------------------------------------------------------------------------------------------

SEARCH = Call("call_m1", "memory_search", '{"query":"x"}')
STORE = Call("call_m2", "memory_store", '{"text":"y"}')
HOP_1 = (reasoning_item("rs_1"), call_item("fc_m1", "call_m1", "memory_search", '{"query":"x"}'))
HOP_2 = (
    reasoning_item("rs_2", encrypted=False),
    message_item("msg_2", "Saving that."),
    call_item("fc_m2", "call_m2", "memory_store", '{"text":"y"}'),
)
STEPS = (
    HiddenStep(None, (SEARCH,), ('{"count":0}',), HopRecord("resp_1", HOP_1)),
    HiddenStep("Saving that.", (STORE,), ('{"ok":true}',), HopRecord("resp_2", HOP_2)),
)


def output(call: Call, result: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call.id, "output": result}


def test_the_full_input_form_carries_every_hops_items_and_their_outputs() -> None:
    payload = {"input": "hi", "tools": [CLIENT_TOOL]}
    following = next_payload(payload, STEPS)
    assert following["input"] == [
        user("hi"),
        *HOP_1,
        output(SEARCH, '{"count":0}'),
        *HOP_2,
        output(STORE, '{"ok":true}'),
    ]
    assert following["tools"] == [CLIENT_TOOL] and payload["input"] == "hi"
    for entry in following["input"]:
        validate("InputItem", entry)


def test_unstored_hops_keep_encrypted_reasoning_and_drop_what_cannot_be_looked_up() -> None:
    following = next_payload({"input": "hi", "store": False}, STEPS)
    assert following["store"] is False
    assert following["input"][1:4] == [*HOP_1, output(SEARCH, '{"count":0}')]  # encrypted: sent as it came
    assert following["input"][4:] == [
        {key: value for key, value in HOP_2[1].items() if key != "id"},
        {key: value for key, value in HOP_2[2].items() if key != "id"},
        output(STORE, '{"ok":true}'),
    ]


def test_a_chained_request_chains_its_hops_and_sends_only_the_outputs() -> None:
    payload = {"input": [user("hi")], "previous_response_id": "resp_0", "instructions": "Be brief."}
    following = next_payload(payload, STEPS)
    assert following == {
        "input": [output(STORE, '{"ok":true}')],
        "previous_response_id": "resp_2",
        "instructions": "Be brief.",
    }


def test_a_chained_request_that_is_not_stored_carries_the_full_input() -> None:
    payload = {"input": [user("hi")], "previous_response_id": "resp_0", "store": False}
    following = next_payload(payload, STEPS[:1])
    assert following["previous_response_id"] == "resp_0"
    assert following["input"] == [user("hi"), *HOP_1, output(SEARCH, '{"count":0}')]


def test_without_the_hops_record_the_turn_is_rebuilt_from_its_text_and_calls() -> None:
    steps = [HiddenStep("Let me check.", (SEARCH,), ('{"count":0}',))]
    following = next_payload({"input": "hi", "previous_response_id": "resp_0"}, steps)
    assert following["previous_response_id"] == "resp_0"
    assert following["input"] == [
        user("hi"),
        {"role": "assistant", "content": "Let me check."},
        {"type": "function_call", "call_id": "call_m1", "name": "memory_search", "arguments": '{"query":"x"}'},
        output(SEARCH, '{"count":0}'),
    ]


# -- restoring mixed turns ----------------------------------------------------------------------------------

KEPT = KeptTurn(("call_m1", "call_c1", "call_m2"), (SEARCH, STORE), ('{"count":0}', '{"ok":true}'))
CLIENT_CALL = call_item("fc_c1", "call_c1", "get_weather", '{"city":"Paris"}')
CLIENT_OUTPUT = {"type": "function_call_output", "call_id": "call_c1", "output": "sunny"}


def kept(call_id: str) -> KeptTurn | None:
    return KEPT if call_id == "call_c1" else None


def test_a_full_input_follow_up_gets_the_memory_calls_back_in_the_models_order() -> None:
    payload = {"input": [user("weather?"), reasoning_item("rs_1"), CLIENT_CALL, CLIENT_OUTPUT, user("thanks")]}
    restored = RESPONSES.restore(payload, kept)
    assert restored is not None
    hidden_call = {"type": "function_call", "call_id": "call_m1", "name": "memory_search", "arguments": '{"query":"x"}'}
    assert restored["input"] == [
        user("weather?"),
        reasoning_item("rs_1"),
        hidden_call,
        CLIENT_CALL,
        {"type": "function_call", "call_id": "call_m2", "name": "memory_store", "arguments": '{"text":"y"}'},
        output(SEARCH, '{"count":0}'),
        CLIENT_OUTPUT,
        output(STORE, '{"ok":true}'),
        user("thanks"),
    ]


def test_a_chained_follow_up_gets_the_memory_calls_outputs_beside_the_clients() -> None:
    payload = {"previous_response_id": "resp_2", "input": [CLIENT_OUTPUT]}
    restored = RESPONSES.restore(payload, kept)
    assert restored is not None
    assert restored["input"] == [output(SEARCH, '{"count":0}'), CLIENT_OUTPUT, output(STORE, '{"ok":true}')]


def test_a_follow_up_with_nothing_kept_or_sent_whole_is_left_alone() -> None:
    assert RESPONSES.restore({"input": [CLIENT_CALL, CLIENT_OUTPUT]}, lambda call_id: None) is None
    whole = {"input": [CLIENT_CALL, output(SEARCH, "{}"), CLIENT_OUTPUT]}
    assert RESPONSES.restore(whole, kept) is None
    assert RESPONSES.restore({"input": "hi"}, kept) is None
