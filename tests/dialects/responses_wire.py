"""Responses API objects and streams as OpenAI sends them, for the Responses dialect's tests.

Shapes follow the OpenAPI description and openai-python's ``types/responses`` (events carry their
``type`` in the data and are framed under the same name; items are addressed by ``output_index``).
"""

from __future__ import annotations

from typing import Any

import orjson

from proxy.pipe.sse import Event, SSEDecoder

CLIENT_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "strict": True,
}
ENCRYPTED = "gAAAAABo-reasoning+/=" * 8


def usage(input_tokens: int, output_tokens: int, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output_tokens,
    }


def response(
    id: str,
    *,
    status: str = "completed",
    output: list[dict[str, Any]] | None = None,
    usage: dict[str, Any] | None = None,
    tools: list[dict[str, Any]] | None = None,
    created_at: int = 1741476777,
    store: bool = True,
    previous_response_id: str | None = None,
) -> dict[str, Any]:
    return {
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-5-2025-08-07",
        "output": output or [],
        "parallel_tool_calls": True,
        "previous_response_id": previous_response_id,
        "reasoning": {"effort": "medium", "summary": None},
        "store": store,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": tools if tools is not None else [],
        "top_p": 1.0,
        "truncation": "disabled",
        "metadata": {},
    } | ({"usage": usage} if usage is not None else {})


def reasoning_item(id: str, summary: str | None = None, *, encrypted: bool = True) -> dict[str, Any]:
    item: dict[str, Any] = {"id": id, "type": "reasoning", "summary": []}
    if summary is not None:
        item["summary"] = [{"type": "summary_text", "text": summary}]
    if encrypted:
        item["encrypted_content"] = ENCRYPTED + id
    return item


def message_item(id: str, text: str, status: str = "completed") -> dict[str, Any]:
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    return {"id": id, "type": "message", "status": status, "content": [part], "role": "assistant"}


def call_item(id: str, call_id: str, name: str, arguments: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": id,
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def item_events(index: int, item: dict[str, Any], pieces: int = 2) -> list[dict[str, Any]]:
    """The events that stream one finished item at ``output_index`` ``index`` (sequence numbers set later)."""
    kind = item["type"]
    if kind == "message":
        text = item["content"][0]["text"]
        added = {**item, "status": "in_progress", "content": []}
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        ids = {"item_id": item["id"], "output_index": index, "content_index": 0}
        cut = max(len(text) // pieces, 1)
        deltas = [text[i : i + cut] for i in range(0, len(text), cut)]
        return [
            {"type": "response.output_item.added", "output_index": index, "item": added},
            {"type": "response.content_part.added", **ids, "part": part},
            *({"type": "response.output_text.delta", **ids, "delta": d, "logprobs": []} for d in deltas),
            {"type": "response.output_text.done", **ids, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **ids, "part": {**part, "text": text}},
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    if kind == "function_call":
        arguments = item["arguments"]
        added = {**item, "status": "in_progress", "arguments": ""}
        ids = {"item_id": item["id"], "output_index": index}
        cut = max(len(arguments) // pieces, 1)
        deltas = [arguments[i : i + cut] for i in range(0, len(arguments), cut)]
        return [
            {"type": "response.output_item.added", "output_index": index, "item": added},
            *({"type": "response.function_call_arguments.delta", **ids, "delta": d} for d in deltas),
            {"type": "response.function_call_arguments.done", **ids, "name": item["name"], "arguments": arguments},
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    if kind == "reasoning":
        added = {**item, "summary": []}
        events: list[dict[str, Any]] = [{"type": "response.output_item.added", "output_index": index, "item": added}]
        for number, summary in enumerate(item["summary"]):
            ids = {"item_id": item["id"], "output_index": index, "summary_index": number}
            events += [
                {"type": "response.reasoning_summary_part.added", **ids, "part": {"type": "summary_text", "text": ""}},
                {"type": "response.reasoning_summary_text.delta", **ids, "delta": summary["text"]},
                {"type": "response.reasoning_summary_text.done", **ids, "text": summary["text"]},
                {"type": "response.reasoning_summary_part.done", **ids, "part": summary},
            ]
        return [*events, {"type": "response.output_item.done", "output_index": index, "item": item}]
    return [
        {"type": "response.output_item.added", "output_index": index, "item": item},
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


def hop_events(final: dict[str, Any], *, end: str = "response.completed") -> list[dict[str, Any]]:
    """A whole upstream stream for the response ``final``: created, in_progress, its items, its end."""
    started = {key: value for key, value in final.items() if key != "usage"} | {"status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
    ]
    for index, item in enumerate(final["output"]):
        events += item_events(index, item)
    events.append({"type": end, "response": final})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def encode(events: list[dict[str, Any]]) -> list[bytes]:
    """Each event's data as the relay's decoder hands it over."""
    return [orjson.dumps(event) for event in events]


def frame(events: list[dict[str, Any]]) -> bytes:
    """An upstream stream's bytes: named events, as OpenAI frames them."""
    return b"".join(b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events)


def parse_named(out: bytes) -> list[tuple[str | None, Any]]:
    """(event name, data) of every event in ``out``; comments skipped."""
    parsed: list[tuple[str | None, Any]] = []
    for block in out.split(b"\n\n"):
        name, data = None, None
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[len(b"event: ") :].decode()
            elif line.startswith(b"data: "):
                data = orjson.loads(line[len(b"data: ") :])
        if data is not None:
            parsed.append((name, data))
    return parsed


def decoded(raw: bytes, size: int) -> list[bytes]:
    """``raw`` fed to the relay's decoder ``size`` bytes at a time: the data it hands a splitter."""
    decoder = SSEDecoder()
    items = []
    for start in range(0, len(raw), size):
        items += decoder.feed(raw[start : start + size])
    items += decoder.flush()
    return [item.data for item in items if isinstance(item, Event)]
