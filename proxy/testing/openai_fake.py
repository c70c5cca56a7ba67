"""OpenAI's routes on the fake: chat completions (plain and streamed), embeddings, models, and a catch-all echo,
close enough to the wire format for the official SDK, litellm and OpenAI's own schemas."""

from __future__ import annotations

import base64
import hashlib
import struct
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .core import FakeCore, json_response, timed
from .replies import (
    MODEL_IDS,
    Reply,
    completion_words,
    finish_reason,
    prompt_words,
    split_raw,
    split_text,
    sse_data,
)
from .streams import FakeStream
from .strict import strict_refusal

MODEL_CREATED = 1_700_000_000
EMBEDDING_DIMS = 8
_DONE = b"data: [DONE]\n\n"
# OpenAI error (type, code) by status, for scripted errors without an explicit body.
_OPENAI_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
BAD_JSON = "We could not parse the JSON body of your request."


class OpenAIRoutes(FakeCore):
    """The OpenAI endpoints; mixed into `FakeUpstream` beside the Anthropic one."""

    async def _chat_completions(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        if not isinstance(body, dict):
            return json_response(openai_error(400, BAD_JSON), 400, timed(headers, started))
        refusal = strict_refusal(body) if self.strict else None
        if refusal is not None:
            return json_response(openai_error(500, refusal), 500, timed(headers, started))
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
        cid, created = f"chatcmpl-{self._completion_n}", int(time.time())
        model = body.get("model") or MODEL_IDS[0]
        n = body.get("n")
        n = n if isinstance(n, int) and n > 0 else 1
        usage = reply.usage or _usage(prompt_words(body), completion_words(reply) * n)
        if stream:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
            events = _chat_stream_events(reply, cid, created, model, n, usage if include_usage else None)
            return FakeStream(self, events, reply, timed(headers, started))
        completion = {
            "id": cid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_fake",
            "choices": [_chat_choice(reply, i) for i in range(n)],
            "usage": usage,
            "service_tier": "default",
        }
        return json_response(completion, 200, timed(headers, started))

    async def _embeddings(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        if not isinstance(body, dict):
            return json_response(openai_error(400, BAD_JSON), 400, timed(headers, started))
        raw = body.get("input")
        texts: list[Any] = []
        if isinstance(raw, str) or (isinstance(raw, list) and raw and isinstance(raw[0], int)):
            texts = [raw]  # one string, or one pre-tokenised input
        elif isinstance(raw, list):
            texts = raw
        as_base64 = body.get("encoding_format") == "base64"  # the openai SDK asks for base64 by default
        data = []
        for i, text in enumerate(texts):
            vector = _embed(str(text))
            encoded: Any = _b64_floats(vector) if as_base64 else vector
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = sum(len(str(t).split()) for t in texts)
        result = {
            "object": "list",
            "data": data,
            "model": body.get("model") or "fake-embedding",
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return json_response(result, 200, timed(headers, started))

    async def _list_models(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        models = {"object": "list", "data": [_model(m) for m in MODEL_IDS]}
        return json_response(models, 200, timed(headers, started))

    async def _get_model(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        model_id = request.path_params["model_id"]
        if model_id in MODEL_IDS:
            return json_response(_model(model_id), 200, timed(headers, started))
        message = f"The model '{model_id}' does not exist or you do not have access to it."
        return json_response(openai_error(404, message), 404, timed(headers, started))

    async def _echo(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        seen_body = await request.body()  # cached by Starlette
        echo = {
            "method": request.method,
            "path": request.url.path,
            "query": request.url.query,
            "body_bytes": len(seen_body),
        }
        headers["x-fake-echo"] = "1"
        return json_response(echo, 200, timed(headers, started))


def openai_error(status: int, message: str | None = None) -> dict[str, Any]:
    kind, code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    text = message or f"Scripted error {status} from the fake upstream."
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def _model(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": MODEL_CREATED, "owned_by": "memproxy-fake"}


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _chat_choice(reply: Reply, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None, "annotations": []}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": tc.id or f"call_{i}", "type": "function", "function": {"name": tc.name, "arguments": args}}
            for i, tc in enumerate(reply.tool_calls)
            for args in [tc.arguments_json()]
        ]
    return {"index": index, "message": message, "logprobs": None, "finish_reason": finish_reason(reply)}


def _chat_stream_events(reply: Reply, cid: str, created: int, model: str, n: int, usage: dict | None) -> list[bytes]:
    """OpenAI's chunk sequence: role, content fragments, tool-call fragments, finish, [usage], [DONE]."""
    base: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    base["system_fingerprint"] = "fp_fake"

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {**base, "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if usage is not None:
            data["usage"] = None
        return sse_data(data)

    deltas: list[list[bytes]] = []
    for index in range(n):
        first = {"role": "assistant", "content": "" if reply.content is not None else None, "refusal": None}
        events = [chunk(index, first)]
        events += [chunk(index, {"content": piece}) for piece in split_text(reply.content or "", reply.pieces)]
        for i, tc in enumerate(reply.tool_calls):
            call = {"index": i, "id": tc.id or f"call_{i}", "type": "function"}
            call["function"] = {"name": tc.name, "arguments": ""}
            events.append(chunk(index, {"tool_calls": [call]}))
            for piece in split_text(tc.arguments_json(), reply.pieces):
                events.append(chunk(index, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
        deltas.append(events)
    if reply.error_event is not None:
        return [event for events in deltas for event in events] + [sse_data(reply.error_event)]
    out: list[bytes] = []
    for index, events in enumerate(deltas):
        out += events
        out.append(chunk(index, {}, finish_reason(reply)))
    if usage is not None:
        out.append(sse_data({**base, "choices": [], "usage": usage}))
    out.append(_DONE)
    return out


def _embed(text: str) -> list[float]:
    """A deterministic vector in [-1, 1] derived from the text's hash (sha256: 32 bytes, 8 int32s)."""
    digest = hashlib.sha256(text.encode()).digest()
    return [round(v / 0x7FFFFFFF, 6) for v in struct.unpack(f"<{EMBEDDING_DIMS}i", digest)]


def _b64_floats(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
