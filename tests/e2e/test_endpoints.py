"""End to end beyond chat: other endpoints, disconnects, failures, litellm, record/replay and the CLI."""

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest

from proxy.testing import FakeUpstream, run_fake_upstream

from ..conftest import RunProxy, free_port
from ..openapi_spec import validate

MESSAGES = [{"role": "user", "content": "Say hello."}]


def wait_for(condition, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_models_list_and_retrieve_pass_through(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    client = openai.OpenAI(base_url=proxy_url, api_key="sk-test", max_retries=0)
    raw = client.models.with_raw_response.list()
    validate("ListModelsResponse", orjson.loads(raw.content))
    assert [m.id for m in raw.parse()] == ["fake-model", "fake-model-2"]
    validate("Model", client.models.retrieve("fake-model").model_dump())
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_embeddings_pass_through(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    client = openai.OpenAI(base_url=proxy_url, api_key="sk-test", max_retries=0)
    raw = client.embeddings.with_raw_response.create(model="fake-embed", input=["a", "b"], encoding_format="float")
    validate("CreateEmbeddingResponse", orjson.loads(raw.content))
    assert len(raw.parse().data) == 2
    assert fake_upstream.requests[-1].json == {"model": "fake-embed", "input": ["a", "b"], "encoding_format": "float"}


def test_any_other_path_passes_through_verbatim(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    with httpx.Client() as http:
        response = http.put(
            f"{proxy_url}/vector_stores/vs_1/files?limit=3",
            content=b"payload",
            headers={"authorization": "Bearer sk-test", "x-custom": "1"},
        )
    assert response.json() == {
        "method": "PUT",
        "path": "/v1/vector_stores/vs_1/files",
        "query": "limit=3",
        "body_bytes": 7,
    }
    seen = fake_upstream.requests[-1]
    assert seen.body == b"payload" and seen.headers["x-custom"] == "1" and "host" in seen.headers


def test_a_large_upload_streams_through(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    body = os.urandom(3 * 1024 * 1024)
    with httpx.Client(timeout=30) as http:
        response = http.post(f"{proxy_url}/files", content=body, headers={"content-type": "application/octet-stream"})
    assert response.json()["body_bytes"] == len(body) and fake_upstream.requests[-1].body == body


def test_a_client_leaving_mid_stream_cancels_the_upstream(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="word " * 50, pieces=50, chunk_delay_s=0.05)
    with (
        httpx.Client(timeout=30) as http,
        http.stream(
            "POST", f"{proxy_url}/chat/completions", json={"model": "fake-model", "messages": MESSAGES, "stream": True}
        ) as response,
    ):
        next(response.iter_bytes())
    assert wait_for(lambda: fake_upstream.cancelled_streams == 1), "the upstream stream was not cancelled"


def test_a_client_leaving_before_the_first_token_cancels_the_upstream(
    proxy_url: str, fake_upstream: FakeUpstream
) -> None:
    fake_upstream.reply(delay_s=5)
    with httpx.Client() as http, pytest.raises(httpx.ReadTimeout):
        http.post(
            f"{proxy_url}/chat/completions",
            json={"model": "fake-model", "messages": MESSAGES, "stream": True},
            timeout=httpx.Timeout(30, read=0.3),
        )
    assert wait_for(lambda: fake_upstream.cancelled_streams == 1), "the upstream request was not cancelled"


def test_a_non_streaming_client_leaving_cancels_the_upstream(proxy_url: str, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(delay_s=5)
    with httpx.Client() as http, pytest.raises(httpx.ReadTimeout):
        http.post(
            f"{proxy_url}/chat/completions",
            json={"model": "fake-model", "messages": MESSAGES},
            timeout=httpx.Timeout(30, read=0.3),
        )
    assert wait_for(lambda: fake_upstream.cancelled_streams == 1), "the upstream request was not cancelled"


def test_an_unreachable_upstream_is_a_502(start_proxy: RunProxy) -> None:
    with start_proxy(f"http://127.0.0.1:{free_port()}/v1") as url:
        client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
        with pytest.raises(openai.InternalServerError) as caught:
            client.chat.completions.create(model="m", messages=MESSAGES)
    assert caught.value.status_code == 502 and caught.value.code == "upstream_unreachable"
    validate("ErrorResponse", caught.value.response.json())


def test_a_slow_upstream_is_a_504(start_proxy: RunProxy, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(delay_s=3)
    with start_proxy(fake_upstream.base_url, {"upstream.timeout_s": 0.3}) as url:
        client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert caught.value.status_code == 504 and caught.value.code == "upstream_timeout"


def test_a_cookie_one_upstream_answer_sets_never_rides_on_a_later_request(
    start_proxy: RunProxy, fake_upstream: FakeUpstream
) -> None:
    """Upstream requests carry only what their own client sent: one user's cookie never reaches the upstream with
    another user's request (by a host name: cookie jars skip IP addresses)."""
    fake_upstream.reply(headers={"set-cookie": "__cf_bm=for-ada; Path=/"})
    upstream = fake_upstream.base_url.replace("127.0.0.1", "localhost")
    with start_proxy(upstream) as url:
        for user in ("ada", "bob"):
            openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0).chat.completions.create(
                model="m", messages=MESSAGES, extra_headers={"X-Memory-User": user}
            )
    assert "cookie" not in fake_upstream.requests[-1].headers


def test_a_configured_api_key_replaces_the_clients(start_proxy: RunProxy, fake_upstream: FakeUpstream) -> None:
    with start_proxy(fake_upstream.base_url, {"upstream.api_key": "sk-proxy-owned"}) as url:
        openai.OpenAI(base_url=url, api_key="sk-client", max_retries=0).chat.completions.create(
            model="m", messages=MESSAGES
        )
    assert fake_upstream.requests[-1].headers["authorization"] == "Bearer sk-proxy-owned"


@pytest.mark.anyio
async def test_litellm_as_a_client(litellm: Any, proxy_url: str, fake_upstream: FakeUpstream) -> None:
    fake_upstream.reply(content="via litellm")
    response = await litellm.acompletion(
        model="openai/fake-model", api_base=proxy_url, api_key="sk-test", messages=MESSAGES
    )
    assert response.choices[0].message.content == "via litellm"
    fake_upstream.reply(content="streamed via litellm")
    stream = await litellm.acompletion(
        model="openai/fake-model",
        api_base=proxy_url,
        api_key="sk-test",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    text = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    assert "".join(text) == "streamed via litellm"


@pytest.mark.parametrize("stream", [False, True])
def test_models_routed_through_litellm_come_back_openai_shaped(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, stream: bool
) -> None:
    overrides = {"upstream.litellm_models": ["anthropic/*"], "upstream.litellm_api_base": fake_upstream.root_url}
    fake_upstream.reply(content="Bonjour from Claude.")
    with start_proxy(fake_upstream.base_url, overrides) as url:
        client = openai.OpenAI(base_url=url, api_key="sk-ant-test", max_retries=0)
        if stream:
            with httpx.Client(timeout=30) as http:
                raw = http.post(
                    f"{url}/chat/completions",
                    headers={"authorization": "Bearer sk-ant-test"},
                    json={
                        "model": "anthropic/claude-3-5-sonnet-20241022",
                        "messages": MESSAGES,
                        "stream": True,
                        "stream_options": {"include_usage": True},
                    },
                ).content
            events = [block[len(b"data: ") :] for block in raw.split(b"\n\n") if block]
            assert events[-1] == b"[DONE]"
            chunks = [orjson.loads(event) for event in events[:-1]]
            for chunk in chunks:
                validate("CreateChatCompletionStreamResponse", chunk)
            text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
            assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
            assert len({c["id"] for c in chunks}) == 1
        else:
            raw = client.chat.completions.with_raw_response.create(
                model="anthropic/claude-3-5-sonnet-20241022", messages=MESSAGES
            )
            validate("CreateChatCompletionResponse", orjson.loads(raw.content))
            text = raw.parse().choices[0].message.content or ""
    assert text == "Bonjour from Claude."
    seen = fake_upstream.requests[-1]
    assert seen.path == "/v1/messages" and seen.headers["x-api-key"] == "sk-ant-test"


def test_litellm_provider_errors_keep_their_status(start_proxy: RunProxy, fake_upstream: FakeUpstream) -> None:
    overrides = {"upstream.litellm_models": ["anthropic/*"], "upstream.litellm_api_base": fake_upstream.root_url}
    fake_upstream.reply(status=429, headers={"retry-after": "4"})
    with start_proxy(fake_upstream.base_url, overrides) as url:
        client = openai.OpenAI(base_url=url, api_key="sk-ant-test", max_retries=0)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="anthropic/claude-3-5-sonnet-20241022", messages=MESSAGES)


def test_a_recorded_session_replays_without_the_upstream(start_proxy: RunProxy, tmp_path: Path) -> None:
    body = {"model": "fake-model", "messages": MESSAGES}
    with run_fake_upstream() as fake:
        fake.reply(content="recorded answer")
        fake.reply(content="recorded stream", pieces=3)
        with start_proxy(fake.base_url, record_dir=tmp_path) as url:
            client = openai.OpenAI(base_url=url, api_key="sk-secret-key", max_retries=0)
            live = client.chat.completions.create(**body).choices[0].message.content
            live_stream = [c.choices[0].delta.content for c in client.chat.completions.create(**body, stream=True)]
    assert live == "recorded answer"
    with start_proxy(f"http://127.0.0.1:{free_port()}/v1", replay_dir=tmp_path) as url:
        client = openai.OpenAI(base_url=url, api_key="sk-other", max_retries=0)
        assert client.chat.completions.create(**body).choices[0].message.content == "recorded answer"
        assert [c.choices[0].delta.content for c in client.chat.completions.create(**body, stream=True)] == live_stream
    assert all(b"sk-secret-key" not in path.read_bytes() for path in tmp_path.iterdir())


def test_memproxy_serve_runs_from_the_command_line(fake_upstream: FakeUpstream, tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy",
            "serve",
            "--port",
            str(port),
            "--upstream",
            fake_upstream.base_url,
            "--data-dir",
            str(tmp_path),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: _healthy(port), timeout=120), "memproxy serve did not come up"
        fake_upstream.reply(content="through the CLI")
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-test", max_retries=0)
        assert (
            client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content == "through the CLI"
        )
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=15)
    assert b"memproxy listening on" in stderr and b"sk-test" not in stderr


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
