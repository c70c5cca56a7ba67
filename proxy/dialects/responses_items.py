"""What a Responses hop's output items mean to the tool loop, and the one response the client gets.

Shared by the whole-answer reader and the stream splitter. A memory call is a ``function_call`` item
named after one of the proxy's tools; everything else the model made is the client's: text, reasoning
(its ``encrypted_content`` untouched), built-in tool calls, and the calls the client must answer.

The client's response keeps the first hop's ``id`` and ``created_at`` (one identity from
``response.created`` on, as the SDKs check) and the ``previous_response_id`` the client sent, lists every
hop's visible items, and sums usage over the hops. The loop's whole context is stored upstream under the
*last* hop's id, so a request chaining from the id the client got is sent on from that one (the
pipeline's session chain), and its answer's echo is given the client's id back (:func:`client_echo`):
the client only ever sees ids it was given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import Call, Turn

# Items the client has to act on: a turn with one of them ends the loop, and they are the client's calls.
CLIENT_CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_approval_request",
    }
)


@dataclass(frozen=True, slots=True)
class HopRecord:
    """A hop's :attr:`Turn.state`: what the next hop needs to carry the model's turn back."""

    response_id: str | None
    items: tuple[dict[str, Any], ...]  # every output item, as the model sent it


def is_memory_call(item: Any, hidden: frozenset[str]) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") == "function_call"
        and item.get("name") in hidden
        and not item.get("namespace")  # a tool of a client's namespace, whatever its name
    )


def visible(items: Iterable[Any], hidden: frozenset[str]) -> list[Any]:
    return [item for item in items if not is_memory_call(item, hidden)]


def hop_turn(items: Sequence[dict[str, Any]], hidden: frozenset[str], response: dict[str, Any]) -> Turn:
    """The loop's view of one hop: its memory calls, every call id in order, the client's calls counted."""
    mine: list[Call] = []
    order: list[str] = []
    relayed = 0
    texts: list[str] = []
    for item in items:
        call_id = item.get("call_id")
        if is_memory_call(item, hidden) and isinstance(call_id, str):
            arguments = item.get("arguments")
            mine.append(Call(call_id, item["name"], arguments if isinstance(arguments, str) else "{}"))
            order.append(call_id)
            continue
        if str(item.get("type")) in CLIENT_CALLS:  # a list for a type is the client's mistake, not a 500
            relayed += 1
            if isinstance(call_id, str):
                order.append(call_id)
        if item.get("type") == "message":
            texts += output_texts(item)
    status = response.get("status")
    reason = status if isinstance(status, str) else None
    record = HopRecord(_str(response.get("id")), tuple(items))
    return Turn(mine, order, relayed, reason, "".join(texts) or None, cut=reason == "incomplete", state=record)


def output_texts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    return [
        part["text"]
        for part in (content if isinstance(content, list) else ())
        if isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("text"), str)
    ]


def visible_tools(tools: Any, hidden: frozenset[str]) -> Any:
    """The response's echo of the request's tools, without the proxy's own."""
    if not isinstance(tools, list):
        return tools
    return [tool for tool in tools if not is_proxy_tool(tool, hidden)]


def is_proxy_tool(tool: Any, hidden: frozenset[str]) -> bool:
    """Whether an echoed tool is one the proxy offered (``hidden``: their names)."""
    return isinstance(tool, dict) and tool.get("name") in hidden


def client_response(
    first: dict[str, Any],
    last: dict[str, Any],
    output: list[Any],
    usage: dict[str, Any] | None,
    hidden: frozenset[str],
    previous: str | None = None,
) -> dict[str, Any]:
    """The last hop's response, as the one the client asked for, under the first hop's id.

    A stored loop's whole context lives under the *last* hop's id: a client chaining from the id it got is
    sent on from that one instead (:attr:`chain_id` of the reader and the stream), and ``previous``, the id it
    chained from, replaces that one in the echo.
    """
    response = dict(last)
    response["id"] = first.get("id")  # one identity from response.created to response.completed (SDKs check it)
    for key in ("created_at", "previous_response_id"):
        if key in first:
            response[key] = first[key]
    response.update(client_echo(response, previous))
    response["output"] = output
    if usage is not None:
        response["usage"] = usage
    if "tools" in response:
        response["tools"] = visible_tools(response["tools"], hidden)
    if "output_text" in response:  # the SDK-only convenience some upstreams fill in
        response["output_text"] = "".join(t for item in output if _is_message(item) for t in output_texts(item))
    return response


def client_echo(response: dict[str, Any], previous: str | None) -> dict[str, Any]:
    """What of a response's echo to put back as the client sent it: the id it chained from, when the proxy sent
    the upstream its own chain id instead (the client never learns the hidden hops' ids)."""
    if previous is None or response.get("previous_response_id") in (None, previous):
        return {}
    return {"previous_response_id": previous}


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "message"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
