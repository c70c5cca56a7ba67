"""One upstream key shared by every user (keys mode, upstream.api_key): what one user makes upstream is theirs alone.

A real proxy in front of an upstream that keeps objects as OpenAI's and Anthropic's do (stored responses,
conversations, files, message batches): another user naming one of them, in a path or a body, gets a 404 in the
API's own shape and nothing reaches the upstream; lists show each user their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.auth.keys import create_key
from proxy.memory.backends.key_files import FilesKeys
from proxy.memory.backends.pg_keys import PostgresKeys
from proxy.memory.backends.postgres import Database

from ..conftest import run_proxy
from .objects_upstream import ObjectsUpstream, run_objects_upstream


@pytest.fixture(scope="module")
def upstream() -> Iterator[ObjectsUpstream]:
    with run_objects_upstream() as running:
        yield running


@pytest.fixture(scope="module")
def shared(upstream: ObjectsUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A keys-mode proxy holding the server's upstream key, and a personal key each for ada and bob."""
    data = tmp_path_factory.mktemp("tenancy")
    keys = {user: asyncio.run(create_key(FilesKeys(data), user, "personal"))[1] for user in ("ada", "bob")}
    overrides = {"auth.mode": "keys", "store.path": str(data), "upstream.api_key": "sk-server"}
    with run_proxy(upstream.base_url, overrides) as url:
        yield url, keys


def call(shared: tuple[str, dict[str, str]], user: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    url, keys = shared
    headers = {"Authorization": f"Bearer {keys[user]}", **kwargs.pop("headers", {})}
    return httpx.request(method, url.removesuffix("/v1") + path, headers=headers, timeout=60, **kwargs)


def respond(shared: tuple[str, dict[str, str]], user: str, **body: Any) -> httpx.Response:
    return call(shared, user, "POST", "/v1/responses", json={"model": "fake-model", "input": "hello", **body})


def refused_as_openai(response: httpx.Response, param: str | None) -> None:
    assert response.status_code == 404, response.text
    error = response.json()["error"]
    assert (
        error["type"] == "invalid_request_error"
        and error["param"] == param
        and ("not found" in error["message"] or "No such" in error["message"])
    )


def test_another_users_previous_response_id_is_a_404_and_reaches_nothing(
    shared: tuple[str, dict[str, str]], upstream: ObjectsUpstream
) -> None:
    made = respond(shared, "ada")
    assert made.status_code == 200, made.text
    ada_id = made.json()["id"]
    before = len(upstream.fake.requests)
    refused = respond(shared, "bob", previous_response_id=ada_id, input="what did ada say?")
    refused_as_openai(refused, "previous_response_id")
    assert refused.json()["error"]["code"] == "previous_response_not_found"
    assert len(upstream.fake.requests) == before  # bob's request never went upstream
    assert respond(shared, "ada", previous_response_id=ada_id, input="go on").status_code == 200


@pytest.mark.parametrize(
    ("method", "suffix"), [("GET", ""), ("GET", "/input_items"), ("DELETE", ""), ("POST", "/cancel")]
)
def test_a_stored_response_is_read_deleted_or_cancelled_by_its_maker_alone(
    shared: tuple[str, dict[str, str]], upstream: ObjectsUpstream, method: str, suffix: str
) -> None:
    ada_id = respond(shared, "ada").json()["id"]
    upstream.seen.clear()
    refused_as_openai(call(shared, "bob", method, f"/v1/responses/{ada_id}{suffix}"), None)
    assert upstream.seen == []
    assert call(shared, "ada", method, f"/v1/responses/{ada_id}{suffix}").status_code == 200
    assert [(m, p) for m, p, _ in upstream.seen] == [(method, f"/v1/responses/{ada_id}{suffix}")]


def test_a_response_id_nobody_made_here_is_a_404(shared: tuple[str, dict[str, str]]) -> None:
    """Made with the server's key some other way (or before memproxy knew): nobody's, so nobody may use it."""
    refused_as_openai(respond(shared, "ada", previous_response_id="resp_made_elsewhere"), "previous_response_id")


def test_files_and_conversations_are_their_makers_alone(
    shared: tuple[str, dict[str, str]], upstream: ObjectsUpstream
) -> None:
    file_id = call(shared, "ada", "POST", "/v1/files", json={"purpose": "user_data"}).json()["id"]
    conversation = call(shared, "ada", "POST", "/v1/conversations", json={}).json()["id"]
    upstream.seen.clear()
    refused_as_openai(call(shared, "bob", "GET", f"/v1/files/{file_id}/content"), None)
    refused_as_openai(call(shared, "bob", "DELETE", f"/v1/files/{file_id}"), None)
    refused_as_openai(call(shared, "bob", "GET", f"/v1/conversations/{conversation}/items"), None)
    named = [{"role": "user", "content": [{"type": "input_file", "file_id": file_id}]}]
    refused_as_openai(respond(shared, "bob", input=named), "file_id")
    refused_as_openai(respond(shared, "bob", conversation=conversation), "conversation")
    attach = call(shared, "bob", "POST", "/v1/vector_stores", json={"file_ids": [file_id]})
    refused_as_openai(attach, "file_ids")
    assert upstream.seen == []
    assert [f["id"] for f in call(shared, "bob", "GET", "/v1/files").json()["data"]] == []
    assert file_id in [f["id"] for f in call(shared, "ada", "GET", "/v1/files").json()["data"]]
    assert call(shared, "ada", "GET", f"/v1/files/{file_id}").json()["id"] == file_id


def test_anthropic_message_batches_are_their_makers_alone(
    shared: tuple[str, dict[str, str]], upstream: ObjectsUpstream
) -> None:
    batch = call(shared, "ada", "POST", "/v1/messages/batches", json={"requests": []}).json()["id"]
    upstream.seen.clear()
    refused = call(shared, "bob", "GET", f"/v1/messages/batches/{batch}/results")
    assert refused.status_code == 404 and refused.json()["type"] == "error"
    assert refused.json()["error"]["type"] == "not_found_error"
    assert upstream.seen == []
    listed = call(shared, "bob", "GET", "/v1/messages/batches").json()
    assert listed["data"] == [] and listed["first_id"] is None
    assert call(shared, "ada", "GET", f"/v1/messages/batches/{batch}").json()["id"] == batch


def test_with_the_clients_own_key_the_upstream_decides(upstream: ObjectsUpstream, tmp_path: Path) -> None:
    """X-Memproxy-Key with the client's provider key: its objects are its own account's, nothing to check here."""
    key = asyncio.run(create_key(FilesKeys(tmp_path), "ada", "personal"))[1]
    with run_proxy(upstream.base_url, {"auth.mode": "keys", "store.path": str(tmp_path)}) as url:
        headers = {"X-Memproxy-Key": key, "Authorization": "Bearer sk-ada-own"}
        body = {"model": "fake-model", "input": "hi", "previous_response_id": "resp_of_her_own_account"}
        answer = httpx.post(f"{url}/responses", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text


def test_a_response_made_on_one_replica_is_its_makers_alone_on_the_other(
    upstream: ObjectsUpstream, pg_dsn: str
) -> None:
    """Bindings live in PostgreSQL: the other replica knows who made a response it never saw (streamed, here)."""

    async def make_keys() -> dict[str, str]:
        store = PostgresKeys(Database(pg_dsn))
        try:
            return {user: (await create_key(store, user, "personal"))[1] for user in ("ada", "bob")}
        finally:
            await store.aclose()

    keys = asyncio.run(make_keys())
    overrides = {
        "auth.mode": "keys",
        "upstream.api_key": "sk-server",
        "store.backend": "postgres",
        "store.dsn": pg_dsn,
    }
    with run_proxy(upstream.base_url, overrides) as one, run_proxy(upstream.base_url, overrides) as other:
        ada_one, ada_other, bob_other = (
            openai.OpenAI(base_url=url, api_key=keys[user], max_retries=0)
            for url, user in ((one, "ada"), (other, "ada"), (other, "bob"))
        )
        with ada_one.responses.stream(model="fake-model", input="remember the zebra") as events:
            made = events.get_final_response().id
        before = len(upstream.fake.requests)
        with pytest.raises(openai.NotFoundError) as refused:
            bob_other.responses.create(model="fake-model", input="what did ada say?", previous_response_id=made)
        assert refused.value.code == "previous_response_not_found"
        assert len(upstream.fake.requests) == before
        assert ada_other.responses.create(model="fake-model", input="go on", previous_response_id=made).id
        for client in (ada_one, ada_other, bob_other):
            client.close()


def test_a_stored_chat_completion_is_its_makers_alone(
    shared: tuple[str, dict[str, str]], upstream: ObjectsUpstream
) -> None:
    made = call(
        shared,
        "ada",
        "POST",
        "/v1/chat/completions",
        json={"model": "fake-model", "messages": [{"role": "user", "content": "hi"}], "store": True},
    )
    completion = made.json()["id"]
    refused_as_openai(call(shared, "bob", "GET", f"/v1/chat/completions/{completion}"), None)
    before = len(upstream.fake.requests)
    call(shared, "ada", "GET", f"/v1/chat/completions/{completion}")  # the fake's answer is not the point
    assert len(upstream.fake.requests) == before + 1  # ada's own reaches the upstream
