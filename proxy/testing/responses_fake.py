"""OpenAI's Responses API on the fake (``POST /v1/responses``), answering from the same reply queue as chat, so a
test scripts one queue whichever API its client speaks.

A reply's scripted ``items`` (hosted tools' ``web_search_call``, ``mcp_call``, ...) come first, as given; its text
becomes a ``message`` output item with one ``output_text`` part, each tool call a ``function_call`` item
(``call_id``, ``name``, ``arguments``), in that order; usage is ``input_tokens``,
``output_tokens`` and ``total_tokens`` with their details. The response echoes what the request set
(``model``, ``instructions``, ``tools``, ``tool_choice``, ``store``, ``previous_response_id``, ...), as
OpenAI's does, so a proxy that must hide its own tools from the echo has something to hide. Streams use the
API's own grammar: named events (``event:`` + ``data:``), each with a ``sequence_number`` from 0, from
``response.created`` to ``response.completed`` (``response.incomplete`` when the reply's finish reason is
``length``). Bodies and events match OpenAI's OpenAPI schemas and the ``openai`` SDK's stream accumulator.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .core import FakeCore, json_response, timed
from .openai_fake import BAD_JSON, openai_error
from .replies import MODEL_IDS, Reply, ToolCall, completion_words, finish_reason, split_raw, split_text
from .streams import FakeStream

_ECHOED_DEFAULTS: dict[str, Any] = {
    "background": False,
    "instructions": None,
    "max_output_tokens": None,
    "metadata": {},
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "reasoning": {"effort": None, "summary": None},
    "service_tier": "default",
    "store": True,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}},
    "tool_choice": "auto",
    "top_p": 1.0,
    "truncation": "disabled",
}


class ResponsesRoutes(FakeCore):
    """The Responses endpoint; mixed into `FakeUpstream` beside chat completions and Anthropic's Messages."""

    async def _responses(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        if not isinstance(body, dict):
            return json_response(openai_error(400, BAD_JSON), 400, timed(headers, started))
        reply = self._next_reply(body)
        if not await self._delay(request, reply):
            return Response(status_code=499)  # the client is gone; nobody reads this
        headers.update(reply.headers)
        if reply.status != 200:
            error = reply.error or openai_error(reply.status)
            return json_response(error, reply.status, timed(headers, started))
        stream = bool(body.get("stream"))
        if stream and reply.raw_sse is not None:
            return FakeStream(self, split_raw(reply), reply, timed(headers, started))

        self._completion_n += 1
        response = _response(body, reply, self._completion_n)
        if stream:
            return FakeStream(self, _stream_events(response, reply), reply, timed(headers, started))
        return json_response(response, 200, timed(headers, started))


def _response(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    """The whole response object a reply makes, as ``response.completed`` carries it too."""
    output: list[dict[str, Any]] = [dict(item) for item in reply.items]
    output += [message_item(f"msg_fake_{n}", reply.content)] if reply.content else []
    output += [call_item(f"fc_fake_{n}_{i}", tc, i) for i, tc in enumerate(reply.tool_calls)]
    incomplete = finish_reason(reply) == "length"
    now = int(time.time())
    response: dict[str, Any] = {
        "id": f"resp_fake_{n}",
        "object": "response",
        "created_at": now,
        "status": "incomplete" if incomplete else "completed",
        "completed_at": None if incomplete else now,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": body.get("model") or MODEL_IDS[0],
        "output": output,
        "tools": [_echoed_tool(tool) for tool in body.get("tools") or () if isinstance(tool, dict)],
    }
    for key, default in _ECHOED_DEFAULTS.items():
        value = body.get(key)
        response[key] = value if value is not None else default
    response["usage"] = _usage(body, reply)
    return response


def message_item(item_id: str, text: str, status: str = "completed") -> dict[str, Any]:
    """An assistant ``message`` output item with one ``output_text`` part."""
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    return {"id": item_id, "type": "message", "status": status, "role": "assistant", "content": [part]}


def call_item(item_id: str, tc: ToolCall, position: int, status: str = "completed") -> dict[str, Any]:
    """A ``function_call`` output item; its ``call_id`` is the tool call's id, or ``call_<position>``."""
    return {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "call_id": tc.id or f"call_{position}",
        "name": tc.name,
        "arguments": tc.arguments_json(),
    }


def _echoed_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool as OpenAI echoes it: ``strict`` and ``description`` always there."""
    if tool.get("type") != "function":
        return tool
    return {"description": None, "parameters": None, **tool, "strict": tool.get("strict", True)}


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    given = reply.usage or {}
    prompt = given.get("input_tokens", given.get("prompt_tokens", input_words(body)))
    output = given.get("output_tokens", given.get("completion_tokens", completion_words(reply)))
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": given.get("total_tokens", prompt + output),
    }


def input_words(body: dict[str, Any]) -> int:
    """A deterministic stand-in for input tokens: words in ``instructions`` and in the input items' text."""
    texts: list[Any] = [body.get("instructions")]
    items = body.get("input")
    if isinstance(items, str):
        texts.append(items)
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        content = item.get("content", item.get("output"))
        parts = content if isinstance(content, list) else [{"text": content}]
        texts += [part.get("text") for part in parts if isinstance(part, dict)]
    return max(sum(len(text.split()) for text in texts if isinstance(text, str)), 1)


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def _item_events(index: int, item: dict[str, Any], pieces: int) -> list[dict[str, Any]]:
    """The events that stream one finished output item at ``output_index`` ``index``."""
    if item["type"] == "message":
        text = item["content"][0]["text"]
        ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
        part = {**item["content"][0], "text": ""}
        added = {**item, "status": "in_progress", "content": []}
        deltas = [
            _event("response.output_text.delta", **ids, delta=piece, logprobs=[]) for piece in split_text(text, pieces)
        ]
        return [
            _event("response.output_item.added", output_index=index, item=added),
            _event("response.content_part.added", **ids, part=part),
            *deltas,
            _event("response.output_text.done", **ids, text=text, logprobs=[]),
            _event("response.content_part.done", **ids, part=item["content"][0]),
            _event("response.output_item.done", output_index=index, item=item),
        ]
    if item["type"] != "function_call":  # a hosted tool's item, as scripted: added, then done
        added = {**item, "status": "in_progress"}
        return [
            _event("response.output_item.added", output_index=index, item=added),
            _event("response.output_item.done", output_index=index, item=item),
        ]
    arguments = item["arguments"]
    ids = {"item_id": item["id"], "output_index": index}
    added = {**item, "status": "in_progress", "arguments": ""}
    return [
        _event("response.output_item.added", output_index=index, item=added),
        *(_event("response.function_call_arguments.delta", **ids, delta=p) for p in split_text(arguments, pieces)),
        _event("response.function_call_arguments.done", **ids, name=item["name"], arguments=arguments),
        _event("response.output_item.done", output_index=index, item=item),
    ]


def _stream_events(response: dict[str, Any], reply: Reply) -> list[bytes]:
    """Created, in progress, each item's events, then completed (or incomplete); an ``error`` event instead of
    the end when the reply scripts one."""
    started = {key: value for key, value in response.items() if key != "usage"}
    started |= {"status": "in_progress", "output": [], "completed_at": None, "incomplete_details": None}
    events = [_event("response.created", response=started), _event("response.in_progress", response=started)]
    for index, item in enumerate(response["output"]):
        events += _item_events(index, item, reply.pieces)
    if reply.error_event is not None:
        events.append(_error_event(reply.error_event))
    else:
        end = "response.incomplete" if response["status"] == "incomplete" else "response.completed"
        events.append(_event(end, response=response))
    return [_named({**event, "sequence_number": number}) for number, event in enumerate(events)]


def _error_event(scripted: dict[str, Any]) -> dict[str, Any]:
    """A scripted stream error as the Responses API sends it: flat (as documented) and nested under ``error``
    (what the SDKs raise on). A scripted event that names its own ``type`` goes as it is."""
    if "type" in scripted:
        return dict(scripted)
    nested = scripted.get("error")
    error = nested if isinstance(nested, dict) else scripted
    flat = {key: error.get(key) for key in ("code", "message", "param")}
    return _event("error", **flat, error=error)


def _named(event: dict[str, Any]) -> bytes:
    return b"event: " + event["type"].encode() + b"\ndata: " + orjson.dumps(event) + b"\n\n"
