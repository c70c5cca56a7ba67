"""OpenTelemetry traces (``tracing.enabled``) through the SDK's in-memory exporter: the span tree of a chat request
with a hidden hop and its GenAI attributes; and, with tracing off, OpenTelemetry never imported at all."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import FakeUpstream, ToolCall

ROOT = Path(__file__).resolve().parents[2]
CHAT = {"model": "fake-model", "messages": [{"role": "user", "content": "what do I drink?"}]}
ADA = {"X-Memory-User": "ada"}
pytestmark = pytest.mark.anyio


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
async def traced(tmp_path: Path, exporter: InMemorySpanExporter) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    fake = FakeUpstream()
    settings = load_settings(
        overrides={
            "upstream.base_url": "http://upstream.test:8080/v1",
            "upstream.anthropic_base_url": "http://upstream.test:8080/v1",
            "store.path": str(tmp_path),
            "tracing.enabled": True,
        }
    )
    services = build_services(settings, transport=httpx.ASGITransport(fake.app), tracer_provider=provider)
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as client,
    ):
        yield client, fake


def by_name(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


async def test_a_chat_request_with_a_hidden_hop_is_a_span_tree(traced, exporter: InMemorySpanExporter) -> None:
    client, fake = traced
    await client.post("/memory/memories", json={"text": "Ada drinks green tea"}, headers=ADA)
    exporter.clear()
    fake.reply(content=None, tool_calls=[ToolCall("memory_search", {"query": "drink"}, id="call_7")])
    fake.reply(content="Green tea.", usage={"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43})
    response = await client.post(
        "/v1/chat/completions",
        json=CHAT,
        headers={**ADA, "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
    )
    assert response.status_code == 200
    spans = exporter.get_finished_spans()
    (root,) = by_name(spans, "POST /v1/chat/completions")
    assert root.kind is SpanKind.SERVER
    assert root.context.trace_id == 0x0AF7651916CD43DD8448EB211C80319C  # the client's trace goes on
    assert root.parent is not None and root.parent.span_id == 0xB7AD6B7169203331
    children = sorted(
        (s for s in spans if s.parent and s.parent.span_id == root.context.span_id), key=lambda s: s.start_time
    )
    names = ["search_memory", "chat fake-model", "execute_tool memory_search", "chat fake-model"]
    assert [s.name for s in children] == names
    recall, first, tool, second = children
    assert recall.attributes["gen_ai.operation.name"] == "search_memory"
    assert recall.attributes["gen_ai.memory.record.count"] == 1
    for hop in (first, second):
        assert hop.kind is SpanKind.CLIENT
        assert hop.attributes["gen_ai.operation.name"] == "chat"
        assert hop.attributes["gen_ai.provider.name"] == "openai"
        assert hop.attributes["gen_ai.request.model"] == "fake-model"
        assert hop.attributes["server.address"] == "upstream.test" and hop.attributes["server.port"] == 8080
        assert hop.attributes["http.response.status_code"] == 200
        assert hop.attributes["gen_ai.response.id"].startswith("chatcmpl-")
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert second.attributes["gen_ai.usage.input_tokens"] == 40
    assert second.attributes["gen_ai.usage.output_tokens"] == 3
    assert tool.kind is SpanKind.INTERNAL
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "memory_search"
    assert tool.attributes["gen_ai.tool.call.id"] == "call_7"
    assert first.end_time <= tool.start_time and tool.end_time <= second.start_time
    assert root.attributes["http.response.status_code"] == 200
    assert root.attributes["memproxy.hops"] == 1 and root.attributes["memproxy.memories.injected"] == 1
    assert root.attributes["memproxy.request_id"] == response.headers["x-memproxy-request-id"]
    assert root.attributes["gen_ai.request.model"] == "fake-model"
    assert root.attributes["memproxy.user"].startswith("u-")
    recorded = str([dict(span.attributes or {}) for span in spans])
    assert "green tea" not in recorded.lower() and "what do I drink" not in recorded  # no content, ever


async def test_a_stream_is_traced_with_the_usage_the_client_got(traced, exporter: InMemorySpanExporter) -> None:
    client, fake = traced
    fake.reply(content="Hello there", usage={"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13})
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    async with client.stream("POST", "/v1/chat/completions", json=body, headers=ADA) as response:
        await response.aread()
    (root,) = by_name(exporter.get_finished_spans(), "POST /v1/chat/completions")
    (hop,) = by_name(exporter.get_finished_spans(), "chat fake-model")
    assert hop.attributes["gen_ai.request.stream"] is True
    assert root.attributes["gen_ai.usage.input_tokens"] == 11 and root.attributes["gen_ai.usage.output_tokens"] == 2


async def test_an_upstream_error_marks_its_hop_and_the_request(traced, exporter: InMemorySpanExporter) -> None:
    client, fake = traced
    fake.reply(status=503, error={"error": {"message": "overloaded"}})
    assert (await client.post("/v1/chat/completions", json=CHAT, headers=ADA)).status_code == 503
    spans = exporter.get_finished_spans()
    (root,) = by_name(spans, "POST /v1/chat/completions")
    (hop,) = by_name(spans, "chat fake-model")
    assert hop.status.status_code is StatusCode.ERROR and hop.attributes["error.type"] == "503"
    assert root.status.status_code is StatusCode.ERROR and root.attributes["error.type"] == "503"


async def test_management_routes_are_traced_under_their_template(traced, exporter: InMemorySpanExporter) -> None:
    client, _ = traced
    await client.get("/memory/memories/m-404", headers=ADA)
    await client.get("/healthz")
    names = [span.name for span in exporter.get_finished_spans()]
    assert names == ["GET /memory/memories/{memory_id}"]


def test_opentelemetry_is_never_imported_when_tracing_is_off(tmp_path: Path) -> None:
    """Not by building the app, nor by a chat request through it (measured in a fresh interpreter)."""
    script = f"""
import asyncio, sys, httpx
from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import FakeUpstream

async def main():
    fake = FakeUpstream()
    overrides = {{"upstream.base_url": "http://up.test/v1", "store.path": {str(tmp_path)!r}}}
    services = build_services(load_settings(overrides=overrides), transport=httpx.ASGITransport(fake.app))
    app = httpx.ASGITransport(create_app(services))
    async with services, httpx.AsyncClient(transport=app, base_url="http://p") as c:
        chat = {{"model": "m", "messages": [{{"role": "user", "content": "hi"}}]}}
        for stream in (False, True):
            body = {{**chat, "stream": stream}}
            response = await c.post("/v1/chat/completions", json=body, headers={{"X-Memory-User": "a"}})
            assert response.status_code == 200, response.text
asyncio.run(main())
loaded = [name for name in sys.modules if name.startswith("opentelemetry") or name == "proxy.telemetry.tracing"]
print(",".join(sorted(loaded)))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
