"""Whether a request gets the memory tools, and the messages the tool loop adds. Pure.

The rules follow what clients rely on (COMPAT E, H): ``tool_choice: none`` and requests the loop
cannot carry faithfully (``n > 1``, audio, logprobs, predicted outputs, legacy ``functions``) get
no tools; ``tool_choice`` without ``tools`` is the upstream's error to give, so it stays untouched;
a client tool of the same name wins; past 128 tools nothing is added. A forced or ``required``
``tool_choice`` and an ``allowed_tools`` list are left as the client sent them: the tools are still
added so that every request of a session offers the same tools and the provider's prompt cache
keeps its prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .memory.tools import SCHEMAS

MAX_TOOLS = 128  # OpenAI rejects more (`array_above_max_length`, COMPAT E6)


@dataclass(frozen=True, slots=True)
class Call:
    """One call the model made to a memory tool."""

    id: str
    name: str
    arguments: str

    def as_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True, slots=True)
class ToolPlan:
    names: frozenset[str]  # the memory tools offered: the proxy runs these, the client never sees them
    schemas: tuple[dict[str, Any], ...]

    def offer(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {**payload, "tools": [*(payload.get("tools") or ()), *self.schemas]}

    def withdraw(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The last call of a loop: the client's own tools only, so the model has to answer."""
        tools = [tool for tool in payload.get("tools") or () if _tool_name(tool) not in self.names]
        if tools:
            return {**payload, "tools": tools}
        return {key: value for key, value in payload.items() if key != "tools"}


def plan_tools(payload: Mapping[str, Any]) -> ToolPlan | None:
    """The memory tools this request gets, or None when adding them would change what the client asked for."""
    tools = payload.get("tools")
    if tools is not None and not isinstance(tools, list):
        return None  # the upstream's to reject
    if not tools and ("tool_choice" in payload or "parallel_tool_calls" in payload):
        return None  # COMPAT H1: without tools these are an error the client should keep getting
    if payload.get("tool_choice") == "none":
        return None  # COMPAT H2
    if "functions" in payload or "function_call" in payload or "prediction" in payload:
        return None  # legacy functions cannot mix with tools; predictions with tools are unsupported (H8)
    n = payload.get("n")
    modalities = payload.get("modalities")
    if (
        (isinstance(n, int) and n > 1)
        or payload.get("logprobs")
        or (isinstance(modalities, list) and "audio" in modalities)
    ):
        return None  # COMPAT H9: the loop would have to carry every choice, token logprob or audio part
    taken = {_tool_name(tool) for tool in tools or ()}
    offered = tuple(schema for name, schema in SCHEMAS.items() if name not in taken)
    if not offered or len(tools or ()) + len(offered) > MAX_TOOLS:
        return None
    return ToolPlan(frozenset(schema["function"]["name"] for schema in offered), offered)


def split_calls(message: Mapping[str, Any], hidden: frozenset[str]) -> tuple[list[Call], list[dict[str, Any]]]:
    """A completion message's tool calls: the memory ones (to run) and the client's (to return)."""
    mine: list[Call] = []
    theirs: list[dict[str, Any]] = []
    for call in message.get("tool_calls") or ():
        name = _call_name(call)
        if name in hidden and isinstance(call.get("id"), str):
            arguments = call["function"].get("arguments")
            text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
            mine.append(Call(call["id"], name, text))
        else:
            theirs.append(call)
    return mine, theirs


def assistant_turn(content: str | None, calls: list[Call]) -> dict[str, Any]:
    """The model's turn as the next upstream call sees it: its text and its memory calls."""
    return {"role": "assistant", "content": content, "tool_calls": [call.as_message() for call in calls]}


def tool_result(call: Call, result: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": result}


def visible_reason(reason: str | None, client_calls: int) -> str | None:
    """The finish reason the client gets once memory calls are taken out: never ``tool_calls`` with no calls."""
    if reason in ("tool_calls", "function_call") and not client_calls:
        return "stop"
    return reason


def add_usage(total: dict[str, Any] | None, usage: Any) -> dict[str, Any] | None:
    """Usage summed over a loop's upstream calls (what the calls cost, as billing counts it; COMPAT D4).

    Numbers add up, nested details too; anything else keeps the latest value.
    """
    if not isinstance(usage, dict):
        return total
    if total is None:
        return usage
    summed = dict(total)
    for key, value in usage.items():
        before = summed.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and isinstance(before, int | float):
            summed[key] = before + value
        elif isinstance(value, dict) and isinstance(before, dict):
            summed[key] = add_usage(before, value)
        else:
            summed[key] = value
    return summed


def _tool_name(tool: Any) -> str | None:
    if not isinstance(tool, dict):
        return None
    spec = tool.get("function") if tool.get("type", "function") == "function" else tool.get(tool.get("type"))
    return spec.get("name") if isinstance(spec, dict) else None


def _call_name(call: Any) -> str | None:
    if not isinstance(call, dict) or call.get("type", "function") != "function":
        return None
    function = call.get("function")
    return function.get("name") if isinstance(function, dict) else None
