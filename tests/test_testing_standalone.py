"""The standalone fake (``python -m proxy.testing``) as a real subprocess, scripted over HTTP through ``/_fake/``:
the keyless path the README and docs/testing.md show, where a newcomer sees memory tools run without a key or a
pytest fixture."""

import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson

from proxy.testing.runner import run_memproxy

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
LISTENING = "fake upstream listening on "


@contextmanager
def standalone_fake(*flags: str) -> Iterator[httpx.Client]:
    """``python -m proxy.testing --port 0 FLAGS``; yields a client on its root URL once it prints that it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy.testing", "--port", "0", *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    stderr = process.stderr
    assert stderr is not None

    def read() -> None:
        for line in stderr:
            lines.put(line)
        lines.put("")  # the process ended

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen: list[str] = []
    with process:
        try:
            while not seen or LISTENING not in seen[-1]:
                line = lines.get(timeout=60)  # a guard for a hung process: the line comes, or "" when it ends
                assert line, f"the standalone fake ended before listening: {seen}"
                seen.append(line)
            base_url = seen[-1].split(LISTENING, 1)[1].split(";", 1)[0]
            assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1"), seen
            with httpx.Client(base_url=base_url.removesuffix("/v1"), timeout=30) as client:
                yield client
        finally:
            process.terminate()
            reader.join(timeout=30)
    rest = []
    while not lines.empty():
        rest.append(lines.get())
    assert "Traceback" not in "".join(rest)


def chat(client: httpx.Client, **extra: object) -> httpx.Response:
    return client.post("/v1/chat/completions", json={"model": "fake-model", "messages": MESSAGES, **extra})


def test_replies_queued_over_http_are_served_in_order_and_requests_are_shown() -> None:
    with standalone_fake() as fake:
        queued = fake.post(
            "/_fake/replies",
            json=[
                {"content": None, "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                {"status": 429, "headers": {"retry-after": "7"}},
                "Plain text.",
            ],
        )
        assert (queued.status_code, queued.json()) == (200, {"queued": 3, "pending": 3})
        assert fake.post("/_fake/replies", json={"content": "Streamed.", "pieces": 2}).json()["pending"] == 4
        assert fake.get("/_fake/replies").json() == {"pending": 4}

        first = chat(fake).json()["choices"][0]
        assert first["finish_reason"] == "tool_calls"
        assert first["message"]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city":"Paris"}'}
        limited = chat(fake)
        assert (limited.status_code, limited.headers["retry-after"]) == (429, "7")
        assert limited.json()["error"]["code"] == "rate_limit_exceeded"
        assert chat(fake).json()["choices"][0]["message"]["content"] == "Plain text."
        streamed = chat(fake, stream=True).text
        events = [orjson.loads(line[6:]) for line in streamed.split("\n\n") if line.startswith("data: {")]
        assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events if e["choices"]) == "Streamed."
        assert chat(fake).json()["choices"][0]["message"]["content"] == "Hello from the fake upstream."  # the default

        seen = fake.get("/_fake/requests").json()
        assert seen["count"] == 5  # the control calls are not recorded
        assert [(r["method"], r["path"]) for r in seen["requests"]] == [("POST", "/v1/chat/completions")] * 5
        assert seen["requests"][0]["json"] == {"model": "fake-model", "messages": MESSAGES}
        assert orjson.loads(seen["requests"][0]["body"]) == seen["requests"][0]["json"]
        assert seen["requests"][3]["json"]["stream"] is True
        newest = fake.get("/_fake/requests", params={"last": 2}).json()
        assert newest == {"count": 2, "requests": seen["requests"][3:]}
        assert fake.get("/_fake/requests", params={"last": 0}).json() == {"count": 0, "requests": []}
        assert fake.get("/_fake/requests", params={"last": "x"}).status_code == 400

        assert fake.post("/_fake/reset").json() == {"ok": True}
        assert fake.get("/_fake/requests").json() == {"count": 0, "requests": []}
        assert chat(fake).json()["id"] == "chatcmpl-1"  # counters start again


def test_a_bad_reply_is_a_400_naming_the_field_and_queues_nothing() -> None:
    with standalone_fake() as fake:
        cases = {
            "[": "the body must be JSON",
            '{"contnet": "x"}': "contnet: unknown field",
            '[{"content": "ok"}, {"tool_calls": [{"arguments": {}}]}]': "reply 1: tool_calls.0.name: Field required",
            '{"tool_calls": [{"name": "f", "args": {}}]}': "tool_calls.0.args: unknown field",
            '{"status": "soon"}': "status: Input should be a valid integer",
            "[1]": "reply 0: a reply is a JSON object or a string",
        }
        for body, message in cases.items():
            response = fake.post("/_fake/replies", content=body)
            assert response.status_code == 400, body
            assert response.json()["error"]["message"].startswith(message), response.json()
        assert fake.get("/_fake/replies").json() == {"pending": 0}


def test_reset_keeps_the_memory_hop_model_it_was_started_with() -> None:
    tools = [{"type": "function", "function": {"name": "memory_search", "parameters": {"type": "object"}}}]
    extraction = {"response_format": {"type": "json_object"}}
    transcript = {"messages": [{"role": "user", "content": "user: I indent with tabs\nassistant: Noted."}]}
    with standalone_fake("--memory-hop", "--extraction") as fake:
        for _ in range(2):  # the second time after a reset: the same model, its counts from zero
            hop = chat(fake, tools=tools)
            assert hop.headers["x-fake-memory-calls"] == "1"
            call = hop.json()["choices"][0]["message"]["tool_calls"][0]["function"]
            assert (call["name"], orjson.loads(call["arguments"])) == (
                "memory_search",
                {"query": MESSAGES[0]["content"]},
            )
            answer = fake.post("/v1/chat/completions", json={"model": "m", **extraction, **transcript}).json()
            content = orjson.loads(answer["choices"][0]["message"]["content"])
            assert content["facts"] == ["User said: I indent with tabs"]
            fake.post("/_fake/reset")


def test_the_readme_keyless_path_stores_and_recalls_a_memory(tmp_path: Path) -> None:
    """memproxy in front of the standalone fake: a scripted memory_store runs in the proxy, the memory is kept, and
    the next request carries it to the model, where ``GET /_fake/requests`` shows it."""
    store = {"name": "memory_store", "arguments": {"text": "Ada indents Python with tabs", "category": "preference"}}
    with standalone_fake("--memory-hop", "--extraction") as fake:
        upstream = str(fake.base_url) + "/v1"
        with run_memproxy(upstream, {"store.path": str(tmp_path)}) as url, httpx.Client(timeout=30) as client:
            headers = {"X-Memory-User": "ada", "Authorization": "Bearer any-string"}
            fake.post("/_fake/replies", json=[{"content": None, "tool_calls": [store]}, "Noted: tabs."])
            said = [{"role": "user", "content": "Remember: I indent Python with tabs."}]
            first = client.post(f"{url}/chat/completions", headers=headers, json={"model": "m", "messages": said})
            assert first.json()["choices"][0]["message"]["content"] == "Noted: tabs."
            assert "tool_calls" not in first.json()["choices"][0]["message"]  # the proxy ran the call itself
            listed = client.get(f"{url.removesuffix('/v1')}/memory/memories", headers=headers).json()
            assert [m["text"] for m in listed["memories"]] == ["Ada indents Python with tabs"]

            fake.post("/_fake/reset")
            asked = [{"role": "user", "content": "How should I indent Python?"}]
            second = client.post(f"{url}/chat/completions", headers=headers, json={"model": "m", "messages": asked})
            assert second.json()["choices"][0]["message"]["content"].endswith("memory_search returned 1 memories.")
            seen = fake.get("/_fake/requests").json()["requests"]
            assert "Ada indents Python with tabs" in seen[0]["body"]  # the block, in the first call
            assert seen[1]["json"]["messages"][-1]["role"] == "tool"  # the search's result, in the second
