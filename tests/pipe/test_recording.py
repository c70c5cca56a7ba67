from pathlib import Path

import httpx
import orjson
import pytest

from proxy.pipe.recording import RecordingTransport, ReplayTransport

BASE = "http://upstream.test/v1"


def counting_upstream() -> httpx.MockTransport:
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(200, json={"answer": calls["n"]}, headers={"x-request-id": f"req_{calls['n']}"})

    return httpx.MockTransport(handler)


async def post(transport: httpx.AsyncBaseTransport, body: dict, auth: str = "Bearer sk-secret") -> httpx.Response:
    async with httpx.AsyncClient(transport=transport) as client:
        return await client.post(f"{BASE}/chat/completions", json=body, headers={"authorization": auth})


@pytest.mark.anyio
async def test_recorded_exchanges_replay_in_order_without_the_upstream(tmp_path: Path) -> None:
    recorder = RecordingTransport(counting_upstream(), tmp_path, BASE)
    first = await post(recorder, {"model": "m", "messages": []})
    second = await post(recorder, {"messages": [], "model": "m"})  # same request, keys in another order
    other = await post(recorder, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert [r.json()["answer"] for r in (first, second, other)] == [1, 2, 3]

    replay = ReplayTransport(tmp_path, "http://elsewhere.test/v1")
    async with httpx.AsyncClient(transport=replay) as client:
        replies = [
            await client.post("http://elsewhere.test/v1/chat/completions", json=body)
            for body in (
                {"model": "m", "messages": []},
                {"model": "m", "messages": []},
                {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            )
        ]
    assert [r.json()["answer"] for r in replies] == [1, 2, 3]
    assert replies[0].headers["x-request-id"] == "req_1"


@pytest.mark.anyio
async def test_credentials_are_never_written(tmp_path: Path) -> None:
    await post(RecordingTransport(counting_upstream(), tmp_path, BASE), {"model": "m"}, auth="Bearer sk-secret-123")
    for path in tmp_path.iterdir():
        assert b"sk-secret-123" not in path.read_bytes()


@pytest.mark.anyio
async def test_a_request_never_recorded_is_a_404_that_says_so(tmp_path: Path) -> None:
    response = await post(ReplayTransport(tmp_path, BASE), {"model": "never"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "replay_miss"


@pytest.mark.anyio
async def test_streamed_bodies_are_recorded_as_they_went_by(tmp_path: Path) -> None:
    sse = b'data: {"a":1}\n\ndata: [DONE]\n\n'
    upstream = httpx.MockTransport(
        lambda r: httpx.Response(200, content=sse, headers={"content-type": "text/event-stream"})
    )
    await post(RecordingTransport(upstream, tmp_path, BASE), {"stream": True})
    (recorded,) = tmp_path.glob("*.json")
    assert "".join(orjson.loads(recorded.read_bytes())["response"]["chunks"]).encode() == sse
    replayed = await post(ReplayTransport(tmp_path, BASE), {"stream": True})
    assert replayed.content == sse and replayed.headers["content-type"] == "text/event-stream"
