"""OpenTelemetry traces (``tracing.enabled``; ``pip install -e '.[otel]'``): imported only when on.

A request is a SERVER span (``POST /v1/chat/completions``), continuing the client's trace when it sent a
``traceparent``. Its children follow the GenAI semantic conventions: ``search_memory`` for recall, one CLIENT span
``chat {model}`` per upstream call (the first and each hidden hop) and ``execute_tool {name}`` per memory tool call
the proxy ran. No prompt, answer, memory text or tool argument is ever recorded: ids, counts, models, statuses and
token usage only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from time import time_ns
from typing import TYPE_CHECKING, Any

import orjson
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider

from .. import __version__
from ..errors import ConfigError

if TYPE_CHECKING:
    from .exchange import Exchange

_CONTEXT_HEADERS = frozenset({b"traceparent", b"tracestate", b"baggage"})
PROVIDERS = {"messages": "anthropic", "anthropic": "anthropic"}  # every other format: OpenAI's API


def build_provider(environ: Mapping[str, str] | None = None) -> TracerProvider:
    """The process's tracer provider: one set up already (``opentelemetry-instrument``), else an SDK provider exporting
    as the standard ``OTEL_*`` variables say (``OTEL_TRACES_EXPORTER``: ``otlp``, the default, over HTTP to
    ``OTEL_EXPORTER_OTLP_ENDPOINT``; ``console``; ``none``)."""
    environ = os.environ if environ is None else environ
    current = trace.get_tracer_provider()
    if not isinstance(current, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return current
    try:
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider as SdkProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
    except ImportError as exc:  # the API comes with other packages, the SDK only with the extra
        raise ConfigError(
            "tracing.enabled needs the OpenTelemetry SDK: pip install -e '.[otel]' in memproxy's checkout"
        ) from exc
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):  # OTEL_SERVICE_NAME not set
        resource = resource.merge(Resource({SERVICE_NAME: "memproxy"}))
    provider = SdkProvider(resource=resource)
    exporters = [name.strip() for name in environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if name.strip()]
    for name in exporters:
        exporter: SpanExporter
        if name == "none":
            continue
        if name == "console":
            exporter = ConsoleSpanExporter()
        elif name == "otlp":
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            except ImportError as exc:
                raise ConfigError(
                    "OTEL_TRACES_EXPORTER=otlp needs the OTLP exporter: pip install -e '.[otel]' in memproxy's checkout"
                ) from exc
            exporter = OTLPSpanExporter()
        else:
            raise ConfigError(f"OTEL_TRACES_EXPORTER: {name!r} is not one of otlp, console, none")
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


class Tracing:
    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("memproxy", __version__)

    def begin(self, exchange: Exchange, method: str, path: str, headers: list[tuple[bytes, bytes]]) -> RequestTrace:
        carrier = {name.decode(): value.decode("latin-1") for name, value in headers if name in _CONTEXT_HEADERS}
        parent = propagate.extract(carrier) if carrier else None
        attributes = {"http.request.method": method, "memproxy.request_id": exchange.request_id}
        root = self.tracer.start_span(method, context=parent, kind=SpanKind.SERVER, attributes=attributes)
        if exchange.format in ("chat", "responses", "messages"):
            root.set_attribute("url.path", path)
        return RequestTrace(self.tracer, root)

    def shutdown(self) -> None:
        shutdown = getattr(self.provider, "shutdown", None)  # the SDK's: flushes what is batched
        if shutdown is not None:
            shutdown()


class RequestTrace:
    """One request's spans while it runs."""

    __slots__ = ("tracer", "root", "context", "hop", "hop_count", "recall")

    def __init__(self, tracer: trace.Tracer, root: Span) -> None:
        self.tracer = tracer
        self.root = root
        self.context = trace.set_span_in_context(root)
        self.hop: Span | None = None
        self.hop_count = 0
        self.recall: Span | None = None

    # -- recall ---------------------------------------------------------------------------------------------------

    def begin_recall(self) -> None:
        self.recall = self.tracer.start_span(
            "search_memory", self.context, SpanKind.INTERNAL, {"gen_ai.operation.name": "search_memory"}
        )

    def end_recall(self, injected: int, available: bool) -> None:
        span, self.recall = self.recall, None
        if span is None:
            return
        span.set_attribute("gen_ai.memory.record.count", injected)
        if not available:
            span.set_attribute("error.type", "store_unavailable")
            span.set_status(Status(StatusCode.ERROR, "the store failed: the request went without memory"))
        span.end()

    # -- upstream calls -------------------------------------------------------------------------------------------

    def begin_hop(self, exchange: Exchange, server: tuple[str, int] | None) -> None:
        model = exchange.model if isinstance(exchange.model, str) else None
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": PROVIDERS.get(exchange.format, "openai"),
            "gen_ai.request.stream": exchange.stream_requested,
            "memproxy.hop": self.hop_count,
        }
        if model is not None:
            attributes["gen_ai.request.model"] = model
        if exchange.session:
            attributes["gen_ai.conversation.id"] = exchange.session
        if server is not None:
            attributes["server.address"], attributes["server.port"] = server
        name = f"chat {model}" if model else "chat"
        self.hop = self.tracer.start_span(name, self.context, SpanKind.CLIENT, attributes)
        self.hop_count += 1

    def hop_status(self, status: int) -> None:
        hop = self.hop
        if hop is not None:
            hop.set_attribute("http.response.status_code", status)
            if status >= 400:
                hop.set_attribute("error.type", str(status))
                hop.set_status(Status(StatusCode.ERROR))

    def hop_answer(self, body: bytes) -> None:
        """A whole answer's id, model, finish reasons and usage, whichever format it is in."""
        hop = self.hop
        if hop is None or not body.startswith(b"{"):
            return
        try:
            answer = orjson.loads(body)
        except orjson.JSONDecodeError:
            return
        if isinstance(answer, dict):
            set_answer(hop, answer)

    def end_hop(self, error: str | None = None) -> None:
        hop, self.hop = self.hop, None
        if hop is not None:
            if error is not None and error not in ("status_5xx", "rate_limited"):
                hop.set_attribute("error.type", error)
                hop.set_status(Status(StatusCode.ERROR, error))
            hop.end()

    # -- hidden tool calls ----------------------------------------------------------------------------------------

    def tool(self, name: str, call_id: str | None) -> Span:
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        attributes["gen_ai.tool.type"] = "datastore"  # run by the proxy against its store, not by the client
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        return self.tracer.start_span(f"execute_tool {name}", self.context, SpanKind.INTERNAL, attributes)

    @staticmethod
    def tool_done(span: Span, result: str) -> None:
        if result.startswith('{"ok": false') or result.startswith('{"ok":false'):
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    # -- the end --------------------------------------------------------------------------------------------------

    def end(self, exchange: Exchange, method: str, user: str | None, tail: bytes | None) -> None:
        root = self.root
        root.update_name(f"{method} {exchange.route}")
        root.set_attribute("http.route", exchange.route)
        if self.hop is not None:
            self.end_hop(exchange.upstream_error)
        if self.recall is not None:
            self.end_recall(0, False)
        root.set_attribute("http.response.status_code", exchange.status)
        if isinstance(exchange.model, str):
            root.set_attribute("gen_ai.request.model", exchange.model)
        if exchange.format in ("chat", "responses", "messages"):
            root.set_attribute("gen_ai.operation.name", "chat")
            root.set_attribute("memproxy.hops", exchange.hops)
            root.set_attribute("memproxy.memories.injected", exchange.injected)
        if exchange.session:
            root.set_attribute("gen_ai.conversation.id", exchange.session)
        if user is not None:
            root.set_attribute("memproxy.user", user)
        if exchange.upstream_error is not None:
            root.set_attribute("memproxy.upstream_error", exchange.upstream_error)
        if tail is not None:
            usage = stream_usage(tail)
            if usage is not None:
                set_usage(root, usage)
        if exchange.status >= 500:
            root.set_attribute("error.type", str(exchange.status))
            root.set_status(Status(StatusCode.ERROR))
        root.end(time_ns())


def set_answer(span: Span, answer: dict[str, Any]) -> None:
    response_id = answer.get("id")
    if isinstance(response_id, str):
        span.set_attribute("gen_ai.response.id", response_id)
    model = answer.get("model")
    if isinstance(model, str):
        span.set_attribute("gen_ai.response.model", model)
    reasons = finish_reasons(answer)
    if reasons:
        span.set_attribute("gen_ai.response.finish_reasons", reasons)
    usage = answer.get("usage")
    if isinstance(usage, dict):
        set_usage(span, usage)


def finish_reasons(answer: dict[str, Any]) -> list[str]:
    choices = answer.get("choices")
    if isinstance(choices, list):  # Chat Completions
        return [c["finish_reason"] for c in choices if isinstance(c, dict) and isinstance(c.get("finish_reason"), str)]
    reason = answer.get("stop_reason")  # Messages
    if isinstance(reason, str):
        return [reason]
    status = answer.get("status")  # Responses
    return [status] if isinstance(status, str) and answer.get("object") == "response" else []


def set_usage(span: Span, usage: dict[str, Any]) -> None:
    """Chat Completions' ``prompt_tokens``/``completion_tokens``, or the Responses API's and Anthropic's
    ``input_tokens``/``output_tokens``."""
    tokens_in = usage.get("input_tokens", usage.get("prompt_tokens"))
    tokens_out = usage.get("output_tokens", usage.get("completion_tokens"))
    if isinstance(tokens_in, int):
        span.set_attribute("gen_ai.usage.input_tokens", tokens_in)
    if isinstance(tokens_out, int):
        span.set_attribute("gen_ai.usage.output_tokens", tokens_out)


def stream_usage(tail: bytes) -> dict[str, Any] | None:
    """The usage a stream's last write gave the client (summed over its hops): the usage chunk before ``[DONE]``, a
    ``response.completed`` event's response, or the final ``message_delta``."""
    found = None
    for line in tail.split(b"\n"):
        if not line.startswith(b"data:") or b'"usage"' not in line:
            continue
        try:
            event = orjson.loads(line[5:])
        except orjson.JSONDecodeError:
            continue
        if isinstance(event, dict):
            response = event.get("response")
            usage = (response if isinstance(response, dict) else event).get("usage")
            if isinstance(usage, dict):
                found = usage
    return found
