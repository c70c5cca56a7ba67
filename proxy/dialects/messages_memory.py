"""Anthropic's memory tool (``memory_20250818``) on ``/v1/messages``: which requests the proxy runs it for. Pure.

``tools.anthropic_memory`` decides:

- ``declared`` (the default): a request that declares the tool (``{"type": "memory_20250818", "name": "memory"}``)
  gets its calls run by the proxy, hidden from the client like the proxy's own tools, against the caller's
  ``/memories`` directory; the proxy's four function tools are offered beside it as usual;
- ``offer``: besides, a request for a Claude model (its ``model`` starts with ``claude``) that would get the
  proxy's function tools gets the memory tool instead, which Claude is trained to use;
- ``off``: the tool is the client's, as any other, and its calls reach the client.

The tool's calls are ordinary ``tool_use`` blocks named ``memory`` (the only name the API allows it), so the rest
of the loop tells them by name, as it tells the function tools. A client tool of the name ``memory`` that is not the
memory tool is the client's.
"""

from __future__ import annotations

from typing import Any

from .base import ToolPlan

TYPE = "memory_20250818"
NAME = "memory"
MODES = ("declared", "offer", "off")
OFFERED: dict[str, Any] = {"type": TYPE, "name": NAME}


def declared(payload: dict[str, Any]) -> str | None:
    """The name of the memory tool the request declares, if it does."""
    tools = payload.get("tools")
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and tool.get("type") == TYPE and isinstance(tool.get("name"), str):
            return str(tool["name"])
    return None


def with_memory_tool(payload: dict[str, Any], plan: ToolPlan | None, mode: str, *, known: bool) -> ToolPlan | None:
    """The request's plan with the memory tool's calls among those the proxy runs. ``plan``: the function tools'
    (None: none for this request); ``known``: the caller is (no memory without one)."""
    if mode == "off" or not known:
        return plan
    name = declared(payload)
    if name is not None:
        if plan is None:
            return ToolPlan(frozenset({name}))
        return ToolPlan(plan.names | {name}, plan.specs, plan.native)
    if mode != "offer" or plan is None or not _claude(payload.get("model")) or _named(payload, NAME):
        return plan
    return ToolPlan(frozenset({NAME}), (), (OFFERED,))


def runs_functions(plan: ToolPlan | None) -> bool:
    """Whether the plan offers the proxy's function tools (the block's line on them goes with them)."""
    return plan is not None and bool(plan.specs)


def _claude(model: Any) -> bool:
    return isinstance(model, str) and model.lower().startswith("claude")


def _named(payload: dict[str, Any], name: str) -> bool:
    tools = payload.get("tools")
    listed = tools if isinstance(tools, list) else ()
    return any(isinstance(tool, dict) and tool.get("name") == name for tool in listed)
