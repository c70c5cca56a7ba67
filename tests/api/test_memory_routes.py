"""The management routes in-process: what they refuse, and that nothing under /memory reaches the upstream."""

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson
import pytest

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services

ADA = {"x-memory-user": "ada"}


class Upstream:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json={"from": "upstream"})


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


@pytest.fixture
async def client(upstream: Upstream, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = load_settings(overrides={"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path)})
    services = build_services(settings, transport=httpx.MockTransport(upstream))
    async with (
        services,
        httpx.AsyncClient(transport=httpx.ASGITransport(create_app(services)), base_url="http://proxy") as c,
    ):
        yield c


def error_of(response: httpx.Response) -> dict[str, object]:
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/memory"),
        ("GET", "/memory/"),
        ("DELETE", "/memory/memories/"),
        ("POST", "/memory/memory"),
        ("GET", "/memory/export/x"),
    ],
)
async def test_a_path_under_memory_that_no_route_serves_is_a_404_and_never_reaches_the_upstream(
    client, upstream, method, path
) -> None:
    response = await client.request(method, path, headers=ADA)
    assert response.status_code == 404 and error_of(response)["code"] == "unknown_route"
    assert "/memory/openapi.json" in str(error_of(response)["message"])
    assert upstream.requests == []


@pytest.mark.anyio
async def test_a_known_path_with_another_method_is_a_405_naming_the_methods_it_takes(client, upstream) -> None:
    response = await client.put("/memory/memories", headers=ADA, json={"text": "x"})
    assert response.status_code == 405 and error_of(response)["code"] == "method_not_allowed"
    assert response.headers["allow"] == "GET, HEAD, POST"
    assert upstream.requests == []


@pytest.mark.anyio
@pytest.mark.parametrize("limit", ["-5", "0", "101", "1e3", "abc"])
async def test_a_limit_out_of_range_is_a_400_that_says_the_range(client, limit) -> None:
    response = await client.get("/memory/memories", params={"limit": limit}, headers=ADA)
    assert response.status_code == 400
    error = error_of(response)
    assert error["param"] == "limit" and "from 1 to 100" in str(error["message"])


@pytest.mark.anyio
async def test_limits_inside_the_range_are_honoured(client) -> None:
    for text in ("User prefers tabs", "The staging DB is Postgres 16"):
        assert (await client.post("/memory/memories", json={"text": text}, headers=ADA)).status_code == 201
    for limit, count in (("1", 1), ("100", 2), ("", 2)):
        response = await client.get("/memory/memories", params={"limit": limit}, headers=ADA)
        assert response.status_code == 200 and response.json()["count"] == count


@pytest.mark.anyio
async def test_an_import_line_whose_session_is_not_a_string_is_reported_and_the_rest_imported(client) -> None:
    """It once reached the store's index (an unhashable key): a 500, and a line on disk nobody could read."""
    lines = [
        orjson.dumps({"text": "User prefers tabs", "session": ["s1"]}),
        orjson.dumps({"text": "The staging DB is Postgres 16", "session": "s1"}),
    ]
    response = await client.post("/memory/import", content=b"\n".join(lines), headers=ADA)
    assert response.status_code == 200
    report = response.json()
    assert report["errors"] == [{"line": 1, "error": "'session' must be 1-200 printable characters"}]
    assert len(report["imported"]) == 1
    listed = await client.get("/memory/memories", headers=ADA)
    assert [m["text"] for m in listed.json()["memories"]] == ["The staging DB is Postgres 16"]


@pytest.mark.anyio
@pytest.mark.parametrize("field", [b"ts", b"scope", b"tags", b"text"])
async def test_an_import_line_nested_too_deep_is_reported_not_a_500(client, field) -> None:
    deep = b"[" * 1000 + b"1" + b"]" * 1000
    line = b'{"text":"User prefers tabs","' + field + b'":' + deep + b"}"
    response = await client.post("/memory/import", content=line, headers=ADA)
    assert response.status_code == 200
    [error] = response.json()["errors"]
    assert error["line"] == 1 and "levels deep" in error["error"]


@pytest.mark.anyio
async def test_the_list_filters_pages_and_scores_as_documented(client) -> None:
    for text, extra in [
        ("The staging database is Postgres 16", {"tags": ["infra"]}),
        ("User prefers tabs", {"pinned": True, "scope": "user", "category": "preference"}),
        ("Deploys go out on Tuesdays", {}),
    ]:
        assert (await client.post("/memory/memories", json={"text": text, **extra}, headers=ADA)).status_code == 201
    listed = (await client.get("/memory/memories", params={"limit": "2"}, headers=ADA)).json()
    assert (listed["count"], listed["total"], listed["offset"], listed["next_offset"]) == (2, 3, 0, 2)
    rest = (await client.get("/memory/memories", params={"limit": "2", "offset": "2"}, headers=ADA)).json()
    assert [m["text"] for m in rest["memories"]] == ["The staging database is Postgres 16"]
    assert rest["next_offset"] is None
    pinned = (await client.get("/memory/memories", params={"pinned": "true"}, headers=ADA)).json()
    assert [m["text"] for m in pinned["memories"]] == ["User prefers tabs"]
    scoped = (await client.get("/memory/memories", params={"scope": "user", "origin": "api"}, headers=ADA)).json()
    assert scoped["total"] == 1
    searched = (await client.get("/memory/memories", params={"q": "staging databases"}, headers=ADA)).json()
    [hit] = searched["memories"]
    assert hit["score"] > 0 and hit["matched"] == ["staging", "databases"]
    unscored = (await client.get("/memory/memories", headers=ADA)).json()["memories"][0]
    assert "score" not in unscored  # no query, no score


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"scope": "planet"}, "scope"),
        ({"origin": "rumour"}, "origin"),
        ({"pinned": "maybe"}, "pinned"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "x"}, "offset"),
    ],  # fmt: skip
)
async def test_a_filter_value_the_list_does_not_know_is_a_400_naming_it(client, params, param) -> None:
    response = await client.get("/memory/memories", params=params, headers=ADA)
    assert response.status_code == 400 and error_of(response)["param"] == param


@pytest.mark.anyio
async def test_one_sessions_lines_in_order_are_its_page_and_history_search_needs_words(client) -> None:
    ask = {"model": "m", "messages": [{"role": "user", "content": "first question about deploys"}]}
    await client.post("/v1/chat/completions", json=ask, headers=ADA | {"x-memory-session": "s1"})
    other = {"model": "m", "messages": [{"role": "user", "content": "another session"}]}
    await client.post("/v1/chat/completions", json=other, headers=ADA | {"x-memory-session": "s2"})
    said = (await client.get("/memory/sessions/s1", headers=ADA)).json()
    assert [(turn["role"], turn["turn"], turn["text"]) for turn in said["turns"]][0] == (
        "user", 1, "first question about deploys"
    )  # fmt: skip
    assert all("another session" not in turn["text"] for turn in said["turns"])
    assert (await client.get("/memory/sessions/s1", headers={"x-memory-user": "grace"})).status_code == 404
    no_words = await client.get("/memory/history", params={"session": "s1"}, headers=ADA)
    assert no_words.status_code == 400 and error_of(no_words)["param"] == "q"


@pytest.mark.anyio
async def test_an_added_memory_that_only_looks_like_a_secret_is_held_and_the_answer_says_why(client) -> None:
    text = "Bank account for the salary: IBAN DE89 3704 0044 0532 0130 00"
    added = await client.post("/memory/memories", json={"text": text}, headers=ADA)
    assert added.status_code == 201
    body = added.json()
    assert body["held"] is True and "an IBAN" in body["reason"] and body["memory"]["reason"] == body["reason"]
    assert (await client.get("/memory/memories", headers=ADA)).json()["count"] == 0
    held = (await client.get("/memory/memories", params={"held": "true"}, headers=ADA)).json()["memories"]
    assert [m["id"] for m in held] == [body["id"]] and held[0]["reason"] == body["reason"]
    approved = await client.post(f"/memory/memories/{body['id']}/approve", headers=ADA)
    assert approved.json()["memory"]["user_approved"] is True
    assert [m["id"] for m in (await client.get("/memory/memories", headers=ADA)).json()["memories"]] == [body["id"]]
    refused = await client.post("/memory/memories", json={"text": "My debit card PIN is 4821."}, headers=ADA)
    assert refused.status_code == 400 and "not stored" in refused.json()["error"]["message"]
    plain = await client.post("/memory/memories", json={"text": "User prefers tabs"}, headers=ADA)
    assert "held" not in plain.json() and plain.json()["memory"]["reason"] is None
