"""The extraction process: calls go through a child process (litellm lives there) to a real fake upstream."""

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.config import load_settings
from proxy.episodes.extraction import ExtractionFailed
from proxy.episodes.extraction_process import ProcessExtractor
from proxy.testing import FakeUpstream, Reply, extraction_reply, is_extraction

pytestmark = pytest.mark.anyio

MESSAGES = [{"role": "system", "content": "extract"}, {"role": "user", "content": "transcript"}]
ANSWER = extraction_reply("We fixed billing.", ["The billing service runs on port 8081."])


@pytest.fixture
def fake(fake_upstream: FakeUpstream) -> FakeUpstream:
    return fake_upstream


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # for the module's extractor: its tests share one event loop


@pytest.fixture(scope="module")
async def extractor(fake_upstream_server: FakeUpstream) -> AsyncIterator[ProcessExtractor]:
    """One for the module: a test finds its process running, or none (one before ended or killed it), and starts
    one when it needs to, as the proxy's would. Each start imports litellm (3 s of CPU): not one per test."""
    extractor = ProcessExtractor(load_settings(overrides={"upstream.base_url": fake_upstream_server.base_url}))
    yield extractor
    await extractor.aclose()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_calls_run_in_one_child_process_which_closing_ends(
    extractor: ProcessExtractor, fake: FakeUpstream
) -> None:
    fake.reply(ANSWER)
    fake.reply(ANSWER)
    first = await extractor.extract(MESSAGES, session_model="fake-model", client_key="sk-client")
    pid = extractor.pid
    second = await extractor.extract(MESSAGES, session_model="fake-model", client_key="sk-client")
    assert first == second and first.text == ANSWER.content and first.model == "openai/fake-model"
    assert first.prompt_tokens > 0 and first.completion_tokens > 0
    assert pid is not None and pid != os.getpid() and extractor.pid == pid  # started once, kept
    [call, _] = fake.requests
    assert call.json["messages"] == MESSAGES and call.json["response_format"] == {"type": "json_object"}
    assert call.headers["authorization"] == "Bearer sk-client"

    await extractor.aclose()
    assert extractor.pid is None and not alive(pid)


async def test_an_upstream_refusal_comes_back_with_its_status_and_the_process_lives_on(
    extractor: ProcessExtractor, fake: FakeUpstream
) -> None:
    fake.reply(Reply(status=401, error={"error": {"message": "no key", "type": "invalid_request_error"}}))
    with pytest.raises(ExtractionFailed) as refused:
        await extractor.extract(MESSAGES, session_model="fake-model", client_key=None)
    assert (refused.value.upstream_status, refused.value.keyless) == (401, True)
    pid = extractor.pid
    fake.reply(ANSWER)
    assert (await extractor.extract(MESSAGES, session_model="fake-model", client_key="k")).text == ANSWER.content
    assert extractor.pid == pid


async def test_a_dead_process_fails_one_call_and_the_next_starts_another(
    extractor: ProcessExtractor, fake: FakeUpstream
) -> None:
    fake.reply(ANSWER)
    await extractor.extract(MESSAGES, session_model="fake-model", client_key="k")
    pid = extractor.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(ExtractionFailed, match="exited"):
        await extractor.extract(MESSAGES, session_model="fake-model", client_key="k")
    fake.reply(ANSWER)
    assert (await extractor.extract(MESSAGES, session_model="fake-model", client_key="k")).text == ANSWER.content
    assert extractor.pid not in (None, pid)


async def test_a_call_cancelled_mid_way_ends_its_process(extractor: ProcessExtractor, fake: FakeUpstream) -> None:
    """The worker is cancelled at shutdown while a call hangs: the process must not be left mid-call."""
    fake.reply(ANSWER)
    await extractor.extract(MESSAGES, session_model="fake-model", client_key="k")
    pid = extractor.pid
    assert pid is not None
    held = extraction_reply("late")
    held.delay_s = 30
    fake.reply(held)
    call = asyncio.ensure_future(extractor.extract(MESSAGES, session_model="fake-model", client_key="k"))
    while len(fake.requests) < 2:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert extractor.pid is None and not alive(pid)


def test_the_proxy_process_never_imports_litellm_to_extract(fake: FakeUpstream, tmp_path: Path) -> None:
    """Through the app, three turns and the session's end make an episode; litellm stayed in the child."""
    fake.respond_with(lambda body: ANSWER if is_extraction(body) else Reply("ok"))
    script = f"""
import asyncio, sys, time, httpx
from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services

async def main():
    settings = load_settings(overrides={{"upstream.base_url": {fake.base_url!r}, "store.path": {str(tmp_path)!r}}})
    services = build_services(settings)
    app = httpx.ASGITransport(create_app(services))
    headers = {{"authorization": "Bearer sk-user", "x-memory-session": "s1"}}
    async with services, httpx.AsyncClient(transport=app, base_url="http://p", headers=headers) as c:
        messages = []
        for said in ("one", "two", "three"):
            messages.append({{"role": "user", "content": said}})
            body = {{"model": "fake-model", "messages": messages}}
            assert (await c.post("/v1/chat/completions", json=body)).status_code == 200
        ended = await c.post("/memory/sessions/s1/end")
        assert ended.status_code == 200, ended.text
        deadline = time.monotonic() + 240  # the worker runs the job: the child's first call imports litellm there,
        while time.monotonic() < deadline:  # seconds on a loaded machine: waited for, never guessed
            episodes = (await c.get("/memory/episodes")).json()["episodes"]
            if episodes:
                break
            await asyncio.sleep(0.05)
        assert [e["summary"] for e in episodes] == ["We fixed billing."], episodes
    print("litellm" in sys.modules)

asyncio.run(main())
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
