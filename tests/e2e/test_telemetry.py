"""End to end, as an operator runs it: a real ``memproxy serve`` process in front of the fake upstream, the openai SDK
streaming through it. Its stdout carries one JSON line per request (on by default), ``/metrics`` the stream's
numbers, and a stream the upstream breaks off is a warning."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import openai
import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from proxy.testing import FakeUpstream, Reply

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = [{"role": "user", "content": "Say hello."}]
WAIT_S = 60  # a guard for a hung process: lines come as soon as they are written


@dataclass
class Served:
    url: str  # .../v1
    stdout: queue.Queue[str]

    def next_line(self) -> dict[str, Any]:
        """The next access line; the writer flushes every 50 ms, so it comes."""
        line = self.stdout.get(timeout=WAIT_S)
        assert line, "memproxy ended"
        return orjson.loads(line)

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        text = httpx.get(self.url.removesuffix("/v1") + "/metrics", timeout=30).text
        return {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }


def _pump(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)
    into.put("")


@pytest.fixture(scope="module")
def served(fake_upstream_server: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")} | {"PYTHONPATH": str(ROOT)}
    data = tmp_path_factory.mktemp("telemetry")
    command = [sys.executable, "-m", "proxy", "serve", "--port", "0", "--upstream", fake_upstream_server.base_url]
    process = subprocess.Popen(
        [*command, "--data-dir", str(data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None and process.stderr is not None
    stdout: queue.Queue[str] = queue.Queue()
    stderr: queue.Queue[str] = queue.Queue()
    pumps = [threading.Thread(target=_pump, args=pipe, daemon=True) for pipe in ((process.stdout, stdout),
                                                                                 (process.stderr, stderr))]  # fmt: skip
    for pump in pumps:
        pump.start()
    with process:
        try:
            while True:
                line = stderr.get(timeout=WAIT_S)
                assert line, "memproxy serve ended before listening"
                if found := re.search(r"listening on (http://\S+/v1)", line):
                    break
            yield Served(found.group(1), stdout)
        finally:
            process.terminate()
            for pump in pumps:
                pump.join(timeout=30)


def test_a_stream_through_a_real_proxy_is_logged_and_measured(served: Served, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="Hello there, how are you today?")
    client = openai.OpenAI(base_url=served.url, api_key="sk-live-" + "A" * 30, max_retries=0)
    before = served.metrics()
    stream = client.chat.completions.create(
        model="fake-model", messages=MESSAGES, stream=True, extra_headers={"X-Memory-User": "ada"}
    )
    assert "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices) == (
        "Hello there, how are you today?"
    )
    line = served.next_line()
    assert line["route"] == "/v1/chat/completions" and line["stream"] is True and line["status"] == 200
    assert line["level"] == "info" and line["request_id"].startswith("mp-") and line["user"].startswith("u-")
    assert 0 < line["ttfb_ms"] <= line["duration_ms"] and line["upstream_ms"] > 0
    assert "sk-live" not in str(line)
    after = served.metrics()
    streamed = (("format", "chat"), ("route", "/v1/chat/completions"), ("stream", "true"))
    requests = ("memproxy_http_requests_total", (*streamed[:2], ("status", "200"), streamed[2]))
    assert after[requests] == before.get(requests, 0) + 1
    first_bytes = ("memproxy_http_time_to_first_byte_seconds_count", streamed)
    assert after[first_bytes] == before.get(first_bytes, 0) + 1
    assert after[("memproxy_http_streams_in_flight", ())] == 0


def test_a_stream_the_upstream_breaks_off_is_a_warning(served: Served, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(Reply(content="one two three four five six seven", fail_after_events=2))
    with httpx.stream(
        "POST",
        f"{served.url}/chat/completions",
        json={"model": "fake-model", "messages": MESSAGES, "stream": True},
        headers={"X-Memory-User": "ada"},
        timeout=30,
    ) as response:
        body = response.read()
    assert b"error" in body
    line = served.next_line()
    assert line["level"] == "warning" and line["upstream_error"] == "stream" and line["stream"] is True
    errors = ("memproxy_upstream_errors_total", (("format", "chat"), ("kind", "stream")))
    assert served.metrics()[errors] >= 1
