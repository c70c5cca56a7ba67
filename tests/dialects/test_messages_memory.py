"""Which Messages requests the proxy runs Anthropic's memory tool for, and how its results go back. Pure."""

from __future__ import annotations

from typing import Any

from proxy.dialects.base import Call, KeptTurn, ToolFailure, ToolPlan, ToolSpec
from proxy.dialects.messages import MESSAGES
from proxy.dialects.messages_memory import OFFERED, declared, with_memory_tool
from proxy.dialects.messages_restore import tool_result
from proxy.tools.hidden import _from_json, _to_json

MEMORY = {"type": "memory_20250818", "name": "memory"}
WEATHER = {"name": "get_weather", "input_schema": {"type": "object"}}
SPEC = ToolSpec("memory_store", "", {"type": "object"})
FUNCTIONS = ToolPlan(frozenset({"memory_store"}), (SPEC,))


def request(*tools: dict[str, Any], model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], "tools": list(tools)}


def test_a_declared_memory_tool_is_run_here_beside_the_function_tools() -> None:
    plan = with_memory_tool(request(MEMORY, WEATHER), FUNCTIONS, "declared", known=True)
    assert plan is not None and plan.names == {"memory", "memory_store"} and plan.specs == (SPEC,) and not plan.native
    alone = with_memory_tool(request(MEMORY), None, "declared", known=True)  # tools.enabled off: still run here
    assert alone == ToolPlan(frozenset({"memory"}))
    offered = MESSAGES.offer(request(MEMORY, WEATHER), plan)
    assert [t.get("type") for t in offered["tools"]] == ["memory_20250818", None, None]  # the client's stays first


def test_nothing_changes_when_it_is_off_undeclared_or_the_caller_unknown() -> None:
    assert with_memory_tool(request(MEMORY), FUNCTIONS, "off", known=True) is FUNCTIONS
    assert with_memory_tool(request(MEMORY), None, "declared", known=False) is None
    assert with_memory_tool(request(WEATHER), FUNCTIONS, "declared", known=True) is FUNCTIONS
    a_function_named_memory = {"name": "memory", "input_schema": {"type": "object"}}
    assert declared(request(a_function_named_memory)) is None


def test_offer_gives_claude_the_memory_tool_instead_of_the_function_tools() -> None:
    plan = with_memory_tool(request(WEATHER), FUNCTIONS, "offer", known=True)
    assert plan == ToolPlan(frozenset({"memory"}), (), (OFFERED,))
    assert MESSAGES.offer(request(WEATHER), plan)["tools"] == [WEATHER, OFFERED]
    assert with_memory_tool(request(WEATHER, model="gpt-4o"), FUNCTIONS, "offer", known=True) is FUNCTIONS
    taken = {"name": "memory", "input_schema": {"type": "object"}}  # a client tool holds the name
    assert with_memory_tool(request(taken), FUNCTIONS, "offer", known=True) is FUNCTIONS
    assert with_memory_tool(request(WEATHER), None, "offer", known=True) is None  # tools off for this request


def test_the_last_hop_withdraws_the_memory_tool_with_the_function_tools() -> None:
    plan = ToolPlan(frozenset({"memory", "memory_store"}), (SPEC,))
    sent = MESSAGES.offer(request(MEMORY, WEATHER), plan)
    assert MESSAGES.withdraw(sent, plan)["tools"] == [WEATHER]
    only = MESSAGES.offer(request(MEMORY), ToolPlan(frozenset({"memory"})))
    assert MESSAGES.withdraw(only, ToolPlan(frozenset({"memory"})))["tool_choice"] == {"type": "none"}


def test_a_failed_call_is_an_error_result_and_stays_one_when_shared_with_other_replicas() -> None:
    call = Call("toolu_1", "memory", "{}")
    assert tool_result(call, ToolFailure("The path /memories/x does not exist")) == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "The path /memories/x does not exist",
        "is_error": True,
    }
    assert "is_error" not in tool_result(call, "File created successfully at: /memories/x")
    kept = KeptTurn(("toolu_1", "toolu_2"), (call,), (ToolFailure("no"),), (("toolu_2", "get_weather"),))
    back = _from_json(_to_json(kept))
    assert back == kept and isinstance(back.results[0], ToolFailure)
