"""Which requests get the memory tools, and the pure helpers of the tool loop (COMPAT C5, D4, E, H)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest

from proxy.dialects import chat
from proxy.dialects.base import Call, ToolPlan, ToolSpec, add_usage
from proxy.dialects.chat import MAX_TOOLS, assistant_turn, tool_result, tool_schema
from proxy.dialects.chat_answer import split_calls, visible_reason
from proxy.tools.memory_tools import NAMES, SCHEMAS

MESSAGES = [{"role": "user", "content": "hi"}]


def client_tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}


def names_of(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["function"]["name"] for tool in tools]


def request(**fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": MESSAGES, **fields}


@dataclass(frozen=True)
class Plan:
    """A chat request's tool plan, with the chat dialect's offer and withdraw."""

    plan: ToolPlan

    @property
    def names(self) -> frozenset[str]:
        return self.plan.names

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [tool_schema(spec) for spec in self.plan.specs]

    def offer(self, payload: dict[str, Any]) -> dict[str, Any]:
        return chat.offer(payload, self.plan)

    def withdraw(self, payload: dict[str, Any]) -> dict[str, Any]:
        return chat.withdraw(payload, self.plan)


def plan_tools(payload: dict[str, Any]) -> Plan | None:
    plan = chat.plan_tools(payload, tuple(SCHEMAS.values()))
    return Plan(plan) if plan is not None else None


def full_plan() -> Plan:
    plan = plan_tools(request())
    assert plan is not None
    return plan


# -- plan_tools ---------------------------------------------------------------------------------------------


def test_a_plain_request_is_offered_all_four_memory_tools() -> None:
    plan = full_plan()
    assert plan.names == NAMES == {"memory_store", "memory_search", "memory_retrieve", "memory_delete"}
    assert names_of(list(plan.schemas)) == list(SCHEMAS)


def test_tool_choice_none_gets_no_tools() -> None:
    assert plan_tools(request(tools=[client_tool("f")], tool_choice="none")) is None
    assert plan_tools(request(tools=[client_tool("f")], tool_choice="auto")) is not None


@pytest.mark.parametrize("field", [{"tool_choice": "auto"}, {"parallel_tool_calls": False}])
def test_tool_controls_without_tools_are_left_for_the_upstream_to_reject(field: dict[str, Any]) -> None:
    assert plan_tools(request(**field)) is None
    assert plan_tools(request(tools=[], **field)) is None
    assert plan_tools(request(tools=[client_tool("f")], **field)) is not None


@pytest.mark.parametrize(
    "field",
    [
        {"functions": [{"name": "f", "parameters": {}}]},
        {"function_call": "auto"},
        {"prediction": {"type": "content", "content": "x"}},
        {"n": 2},
        {"logprobs": True},
        {"modalities": ["text", "audio"]},
    ],
    ids=["functions", "function_call", "prediction", "n>1", "logprobs", "audio"],
)
def test_requests_the_loop_cannot_carry_get_no_tools(field: dict[str, Any]) -> None:
    assert plan_tools(request(**field)) is None


@pytest.mark.parametrize(
    "field",
    [{"n": 1}, {"logprobs": False}, {"modalities": ["text"]}],
    ids=["n=1", "logprobs false", "text only"],
)
def test_harmless_values_of_those_fields_still_get_tools(field: dict[str, Any]) -> None:
    assert plan_tools(request(**field)) is not None


def test_tools_that_are_not_a_list_are_left_for_the_upstream() -> None:
    assert plan_tools(request(tools={"type": "function"})) is None


def test_a_client_tool_of_the_same_name_wins() -> None:
    plan = plan_tools(request(tools=[client_tool("memory_store")]))
    assert plan is not None
    assert plan.names == {"memory_search", "memory_retrieve", "memory_delete"}
    assert "memory_store" not in names_of(list(plan.schemas))
    offered = plan.offer(request(tools=[client_tool("memory_store")]))
    assert names_of(offered["tools"]).count("memory_store") == 1


def test_a_client_defining_every_memory_tool_gets_none_added() -> None:
    assert plan_tools(request(tools=[client_tool(name) for name in SCHEMAS])) is None


def test_nothing_is_added_past_the_tool_limit() -> None:
    assert plan_tools(request(tools=[client_tool(f"t{i}") for i in range(MAX_TOOLS - 3)])) is None  # 125 + 4
    assert plan_tools(request(tools=[client_tool(f"t{i}") for i in range(MAX_TOOLS - 4)])) is not None  # 124 + 4
    assert MAX_TOOLS == 128


@pytest.mark.parametrize(
    "tool_choice",
    [
        {"type": "function", "function": {"name": "f"}},
        "required",
        {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "name": "f"}]}},
    ],
    ids=["named", "required", "allowed_tools"],
)
def test_forcing_tool_choices_get_tools_and_keep_their_choice(tool_choice: Any) -> None:
    payload = request(tools=[client_tool("f")], tool_choice=tool_choice)
    plan = plan_tools(payload)
    assert plan is not None
    offered = plan.offer(payload)
    assert offered["tool_choice"] == tool_choice
    assert names_of(offered["tools"]) == ["f", *SCHEMAS]


# -- offer / withdraw ---------------------------------------------------------------------------------------


def test_offer_appends_the_schemas_after_the_clients_tools_without_mutating_the_input() -> None:
    payload = request(tools=[client_tool("a"), client_tool("b")], temperature=0.2)
    before = copy.deepcopy(payload)
    offered = full_plan().offer(payload)
    assert payload == before
    assert names_of(offered["tools"]) == ["a", "b", *SCHEMAS]
    assert offered["tools"][:2] == before["tools"]
    assert {k: v for k, v in offered.items() if k != "tools"} == {k: v for k, v in before.items() if k != "tools"}


def test_offer_to_a_request_without_tools_adds_only_the_schemas() -> None:
    offered = full_plan().offer(request())
    assert offered["tools"] == [tool_schema(spec) for spec in SCHEMAS.values()]


def test_a_schema_without_guidance_is_sent_without_a_description_key() -> None:
    """A description the name already says costs tokens on every request; an empty one is not sent at all."""
    described = tool_schema(ToolSpec("memory_store", "Save one fact.", {"type": "object", "properties": {}}))
    bare = tool_schema(ToolSpec("memory_delete", "", {"type": "object", "properties": {}}))
    assert described["function"] == {
        "name": "memory_store",
        "description": "Save one fact.",
        "parameters": {"type": "object", "properties": {}},
    }
    assert bare == {
        "type": "function",
        "function": {"name": "memory_delete", "parameters": bare["function"]["parameters"]},
    }
    assert list(described["function"]) == ["name", "description", "parameters"]  # the order OpenAI documents


def test_withdraw_removes_only_the_memory_tools() -> None:
    plan = full_plan()
    payload = plan.offer(request(tools=[client_tool("a")], tool_choice="auto"))
    before = copy.deepcopy(payload)
    withdrawn = plan.withdraw(payload)
    assert payload == before
    assert names_of(withdrawn["tools"]) == ["a"]
    assert withdrawn["tool_choice"] == "auto"


def test_withdraw_drops_the_tools_key_when_none_remain() -> None:
    plan = full_plan()
    withdrawn = plan.withdraw(plan.offer(request(temperature=0)))
    assert "tools" not in withdrawn
    assert withdrawn == request(temperature=0)


def test_withdraw_keeps_a_client_tool_whose_name_was_not_offered() -> None:
    payload = request(tools=[client_tool("memory_store")])
    plan = plan_tools(payload)
    assert plan is not None
    withdrawn = plan.withdraw(plan.offer(payload))
    assert names_of(withdrawn["tools"]) == ["memory_store"]


ODD_TOOLS = [
    {"type": "function", "function": {"name": ["memory_store"]}},
    {"type": "function", "function": {"name": {"a": 1}}},
    {"type": ["function"], "function": {"name": "x"}},
    {"type": {"k": "v"}},
    {"type": None},
    "memory_store",
]


@pytest.mark.parametrize("odd", ODD_TOOLS)
def test_a_tool_with_a_name_or_type_that_is_not_a_string_is_left_for_the_upstream(odd: Any) -> None:
    """Not a tool the proxy can name (an unhashable value once failed the request with a 500): offered around,
    kept on withdraw, and the upstream judges it."""
    payload = request(tools=[odd, client_tool("a")])
    plan = plan_tools(payload)
    assert plan is not None and plan.names == NAMES
    withdrawn = plan.withdraw(plan.offer(payload))
    assert withdrawn["tools"] == [odd, client_tool("a")]


def test_a_request_nested_deeper_than_the_proxy_can_write_back_is_a_400() -> None:
    from proxy.client_json import MAX_DEPTH
    from proxy.errors import InvalidRequest

    deep = b"[" * 253 + b"1" + b"]" * 253
    with pytest.raises(InvalidRequest, match=f"more than {MAX_DEPTH} levels"):
        chat.parse_chat_request(b'{"model":"m","messages":[{"role":"user","content":' + deep + b"}]}")


# -- split_calls, messages ----------------------------------------------------------------------------------


def test_split_calls_separates_memory_calls_from_client_calls_in_order() -> None:
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "memory_store", "arguments": '{"text": "x"}'}},
            {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
            {"id": "c3", "type": "function", "function": {"name": "memory_search", "arguments": {"query": "q"}}},
            {"id": "c4", "type": "custom", "custom": {"name": "memory_delete", "input": "x"}},
        ],
    }
    mine, theirs = split_calls(message, NAMES)
    assert [(c.id, c.name) for c in mine] == [("c1", "memory_store"), ("c3", "memory_search")]
    assert mine[0].arguments == '{"text": "x"}'
    assert mine[1].arguments == '{"query":"q"}'  # an object becomes JSON text
    assert [c["id"] for c in theirs] == ["c2", "c4"]  # a custom tool is never one of ours
    assert theirs[0] is message["tool_calls"][1]


def test_split_calls_without_tool_calls() -> None:
    assert split_calls({"role": "assistant", "content": "hi"}, NAMES) == ([], [])
    assert split_calls({"role": "assistant", "tool_calls": None}, NAMES) == ([], [])


def test_a_call_is_only_ours_when_its_name_was_offered() -> None:
    message = {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "memory_store", "arguments": ""}}]}
    mine, theirs = split_calls(message, frozenset({"memory_search"}))
    assert mine == [] and len(theirs) == 1


def test_assistant_turn_and_tool_result_shapes() -> None:
    call = Call("c1", "memory_search", "{}")
    assert assistant_turn("Let me check.", [call])["content"] == "Let me check."
    assert assistant_turn(None, [call]) == {
        "role": "assistant",
        "content": "",  # never null: llama-cpp-python's server answers an assistant turn with null content with a 500
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "memory_search", "arguments": "{}"}}],
    }
    assert tool_result(call, '{"count": 0}') == {"role": "tool", "tool_call_id": "c1", "content": '{"count": 0}'}


# -- visible_reason -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "client_calls", "visible"),
    [
        ("tool_calls", 0, "stop"),
        ("function_call", 0, "stop"),
        ("tool_calls", 2, "tool_calls"),
        ("stop", 1, "stop"),  # a named tool_choice ends with stop on OpenAI: kept
        ("length", 0, "length"),
        ("length", 1, "length"),
        ("content_filter", 0, "content_filter"),
        ("stop", 0, "stop"),
        (None, 0, None),
    ],
)
def test_visible_reason(reason: str | None, client_calls: int, visible: str | None) -> None:
    assert visible_reason(reason, client_calls) == visible


# -- add_usage ----------------------------------------------------------------------------------------------


def test_add_usage_sums_counts_and_nested_details() -> None:
    first = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 2},
    }
    second = {
        "prompt_tokens": 20,
        "completion_tokens": 7,
        "total_tokens": 27,
        "prompt_tokens_details": {"cached_tokens": 8, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    first_copy, second_copy = copy.deepcopy(first), copy.deepcopy(second)
    assert add_usage(first, second) == {
        "prompt_tokens": 30,
        "completion_tokens": 12,
        "total_tokens": 42,
        "prompt_tokens_details": {"cached_tokens": 12, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 5},
    }
    assert (first, second) == (first_copy, second_copy)


def test_add_usage_with_nothing_yet_or_nothing_new() -> None:
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    assert add_usage(None, usage) == usage
    assert add_usage(usage, None) == usage
    assert add_usage(None, None) is None


@pytest.mark.parametrize("junk", [[1, 2], "12", 3, True])
def test_add_usage_ignores_a_usage_that_is_not_an_object(junk: Any) -> None:
    usage = {"total_tokens": 3}
    assert add_usage(usage, junk) == {"total_tokens": 3}
    assert add_usage(None, junk) is None


def test_add_usage_keeps_the_latest_value_of_anything_that_is_not_a_number() -> None:
    total = add_usage({"total_tokens": 1, "note": "a", "flag": 1}, {"total_tokens": 2, "note": "b", "flag": True})
    assert total == {"total_tokens": 3, "note": "b", "flag": True}
    assert add_usage({"total_tokens": 1}, {"prompt_tokens_details": {"cached_tokens": 2}}) == {
        "total_tokens": 1,
        "prompt_tokens_details": {"cached_tokens": 2},
    }
