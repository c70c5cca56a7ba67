"""The OpenAI Responses API (``/v1/responses``): its requests, its tools, and the loop's next hop.

Tools are the Responses shape, ``{"type": "function", "name", "description", "parameters", "strict"}``,
with ``strict: false`` said outright: Responses makes function tools strict unless told otherwise, and
strict schemas must require every property, which the memory tools' optional fields do not. Which
requests get them follows chat's rules (COMPAT H): none with ``tool_choice: "none"``, a client tool of
the same name wins, no more than 128 tools; a forced or ``required`` choice without tools stays the
upstream's error. Built-in tools (``web_search``, ``file_search``, MCP ...) are left as they are. A
``background`` response is polled by the client, so no hidden hop could follow it, and a ``conversation``
keeps every hop's items upstream, so a loop cut short would leave a call without output in it: neither
gets the tools (memory is still injected).

The next hop (:func:`next_payload`) takes one of two forms:

- full input, always correct: the client's input, then each hidden hop's output items as the model sent
  them (reasoning with its ``encrypted_content``, text, the memory ``function_call`` items), each
  followed by a ``function_call_output`` per call. With ``store: false`` nothing can be looked up by id,
  so a hop's reasoning items without ``encrypted_content`` are left out and its other items lose their
  ids (an item id naming reasoning that is not sent is refused); ``store: false`` stays on every hop.
- chained, when the request itself chained (``previous_response_id``) and is stored: the hop names the
  hidden hop's response as its ``previous_response_id`` and sends only the outputs, since that stored
  response already holds the model's items (and the memory the first hop carried). It needs the hop's
  response id from :attr:`Turn.state`; without it the full form is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from .. import client_json
from ..errors import InvalidRequest, ProxyError
from .base import HiddenStep, Kept, ParsedRequest, ToolPlan, ToolSpec, asks_for_json, check_tools
from .responses_answer import ResponsesAnswers
from .responses_input import inject, input_items, item_kind, rewrite_context, said, view
from .responses_items import HopRecord
from .responses_restore import call_item, output_item, restore
from .responses_stream import ResponseEvents

MAX_TOOLS = 128


def parse_responses_request(body: bytes) -> ParsedRequest:
    """Check what the proxy relies on; everything else is the upstream's to judge."""
    payload = client_json.load_object(body)  # nested deeper than the proxy can write back: a 400, not a 500 later
    items = payload.get("input")
    if items is not None and not isinstance(items, str | list):
        raise InvalidRequest("'input' must be a string or a list of items", param="input")
    for position, item in enumerate(items if isinstance(items, list) else ()):
        if item_kind(item) is None:  # an item reference may leave its type out: `{"id": ...}`
            raise InvalidRequest(
                f"input[{position}] must be an object with a string 'type', 'role' or 'id'", param=f"input[{position}]"
            )
        if item.get("role") is not None and not isinstance(item["role"], str):  # read everywhere as a string
            raise InvalidRequest(f"input[{position}].role must be a string", param=f"input[{position}].role")
    instructions = payload.get("instructions")
    if instructions is not None and not isinstance(instructions, str | list):
        raise InvalidRequest("'instructions' must be a string", param="instructions")
    stream = payload.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("'stream' must be a boolean", param="stream")
    check_tools(payload, lambda i: f"tools[{i}]", required="type")
    return ParsedRequest(body=body, payload=payload, stream=bool(stream), include_usage=True)


def plan_tools(payload: dict[str, Any], specs: Sequence[ToolSpec]) -> ToolPlan | None:
    tools = payload.get("tools")
    if tools is not None and not isinstance(tools, list):
        return None
    choice = payload.get("tool_choice")
    if choice == "none" or (not tools and (choice == "required" or isinstance(choice, dict))):
        return None
    if payload.get("background") is True or payload.get("conversation") is not None:
        return None
    taken = {tool.get("name") for tool in tools or () if isinstance(tool, dict)}
    offered = tuple(spec for spec in specs if spec.name not in taken)
    if not offered or len(tools or ()) + len(offered) > MAX_TOOLS:
        return None
    return ToolPlan(frozenset(spec.name for spec in offered), offered)


def tool_schema(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": False,
    }


def offer(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    return {**payload, "tools": [*(payload.get("tools") or ()), *map(tool_schema, plan.specs)]}


def withdraw(payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]:
    """The last call of a loop: the client's own tools only, so the model has to answer."""
    tools = [tool for tool in payload.get("tools") or () if not _is_planned(tool, plan)]
    if tools:
        return {**payload, "tools": tools}
    return {key: value for key, value in payload.items() if key != "tools"}


def _is_planned(tool: Any, plan: ToolPlan) -> bool:
    return isinstance(tool, dict) and tool.get("type") == "function" and tool.get("name") in plan.names


def chains(payload: dict[str, Any]) -> bool:
    """The request continues a stored response, and stores its own: its hops may chain too."""
    return isinstance(payload.get("previous_response_id"), str) and payload.get("store") is not False


def next_payload(payload: dict[str, Any], steps: Sequence[HiddenStep]) -> dict[str, Any]:
    last = steps[-1]
    if chains(payload) and isinstance(last.state, HopRecord) and last.state.response_id:
        outputs = [output_item(call, result) for call, result in zip(last.calls, last.results, strict=True)]
        return {**payload, "previous_response_id": last.state.response_id, "input": outputs}
    stored = payload.get("store") is not False
    items = list(input_items(payload))
    for step in steps:
        items += _turn_items(step, stored)
        items += [output_item(call, result) for call, result in zip(step.calls, step.results, strict=True)]
    return {**payload, "input": items}


def _turn_items(step: HiddenStep, stored: bool) -> list[dict[str, Any]]:
    """The model's items of a hidden hop, as the next hop's input carries them."""
    if not isinstance(step.state, HopRecord):
        text = [{"role": "assistant", "content": step.content}] if step.content else []
        return text + [call_item(call) for call in step.calls]
    items = list(step.state.items)
    if stored:
        return items
    if any(item.get("type") == "reasoning" and not item.get("encrypted_content") for item in items):
        items = [item for item in items if item.get("type") != "reasoning" or item.get("encrypted_content")]
        items = [item if item.get("type") == "reasoning" else _without_id(item) for item in items]
    return items


def _without_id(item: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key != "id"}


def visible_reason(reason: str | None, relayed: int) -> str | None:
    """A response's status: memory calls taken out change nothing in it."""
    return reason


def messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """A read-only, chat-shaped view of the request (:mod:`proxy.dialects.responses_input`)."""
    return view(payload).messages


def error_body(error: ProxyError) -> bytes:
    return error.body()  # the Responses API answers errors in OpenAI's envelope, as chat does


class ResponsesDialect:
    """``/v1/responses``."""

    name = "responses"
    echoes_tools = True  # its answers repeat the request's tools (so one is never relayed untouched)

    @staticmethod
    def hosted(payload: dict[str, Any]) -> tuple[str, ...]:
        return ()  # its answers show the calls of the tools the upstream runs (their splitter's `brought`)

    @staticmethod
    def chained(payload: dict[str, Any]) -> str | None:
        """The stored response this request continues: its conversation (and memory block) live upstream."""
        previous = payload.get("previous_response_id")
        return previous if isinstance(previous, str) and previous else None

    @staticmethod
    def structured(payload: dict[str, Any]) -> bool:
        text = payload.get("text")
        return isinstance(text, dict) and asks_for_json(text.get("format"))

    @staticmethod
    def answer(body: bytes) -> list[dict[str, Any]]:
        output = _loads(body).get("output")
        return said(output if isinstance(output, list) else ())

    parse = staticmethod(parse_responses_request)
    messages = staticmethod(messages)
    inject = staticmethod(inject)
    plan_tools = staticmethod(plan_tools)
    offer = staticmethod(offer)
    withdraw = staticmethod(withdraw)
    next_payload = staticmethod(next_payload)
    visible_reason = staticmethod(visible_reason)
    error_body = staticmethod(error_body)
    rewrite_context = staticmethod(rewrite_context)
    context_view = staticmethod(view)

    @staticmethod
    def reader(hidden: frozenset[str], previous: str | None = None) -> ResponsesAnswers:
        return ResponsesAnswers(hidden, previous)

    @staticmethod
    def splitter(*, include_usage: bool, hidden: frozenset[str], previous: str | None = None) -> ResponseEvents:
        return ResponseEvents(hidden=hidden, previous=previous)

    @staticmethod
    def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
        return restore(payload, kept)


def _loads(body: bytes) -> dict[str, Any]:
    try:
        found = orjson.loads(body)
    except orjson.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}


RESPONSES = ResponsesDialect()
