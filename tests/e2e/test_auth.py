"""auth.mode: keys end to end: the openai SDK against a real proxy that knows its callers by memproxy key."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from proxy.auth.keys import create_key
from proxy.memory.backends.key_files import FilesKeys
from proxy.testing import FakeUpstream

from ..conftest import RunProxy
from .memory_client import QUESTION, TABS, user_says

_clients: list[openai.OpenAI] = []


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    yield
    while _clients:
        _clients.pop().close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def make_key(data_dir: Path, user: str, kind: str = "personal") -> tuple[str, str]:
    record, key = asyncio.run(create_key(FilesKeys(data_dir), user, kind))
    return record.id, key


@pytest.fixture
def keyed(start_proxy: RunProxy, fake_upstream: FakeUpstream, data_dir: Path) -> Iterator[str]:
    """A proxy in keys mode with no upstream.api_key: clients send their provider key in Authorization."""
    make_key(data_dir, "bootstrap")  # the store exists before the proxy starts
    with start_proxy(fake_upstream.base_url, {"auth.mode": "keys", "store.path": str(data_dir)}) as url:
        yield url


def client(url: str, key: str | None, **headers: str) -> openai.OpenAI:
    extra = {"X-Memproxy-Key": key} if key else {}
    made = openai.OpenAI(base_url=url, api_key="sk-provider", max_retries=0, default_headers={**extra, **headers})
    _clients.append(made)
    return made


def api(url: str, key: str | None, method: str, path: str, **kwargs: object) -> httpx.Response:
    headers: dict[str, str] = {"X-Memproxy-Key": key} if key else {}
    headers.update(kwargs.pop("headers", {}))  # type: ignore[arg-type]
    return httpx.request(method, url.removesuffix("/v1") + path, headers=headers, timeout=10, **kwargs)  # type: ignore[arg-type]


def test_no_key_a_wrong_key_and_a_revoked_key_get_401_and_nothing_reaches_the_upstream(
    keyed: str, fake_upstream: FakeUpstream, data_dir: Path
) -> None:
    key_id, key = make_key(data_dir, "ada")
    wait_until_accepted(keyed, key)
    fake_upstream.requests.clear()
    asyncio.run(FilesKeys(data_dir).revoke(key_id, time.time()))
    wait_until_refused(keyed, key)
    for presented in (None, "mp-" + "x" * 32, key):
        with pytest.raises(openai.AuthenticationError) as caught:
            client(keyed, presented).chat.completions.create(model="m", messages=[user_says()])
        assert caught.value.status_code == 401 and caught.value.code == "invalid_api_key"
        assert api(keyed, presented, "GET", "/memory/memories").status_code == 401
        assert api(keyed, presented, "GET", "/v1/models").status_code == 401  # pass-through too
    assert fake_upstream.requests == []


def test_a_personal_key_naming_another_user_is_403(keyed: str, data_dir: Path) -> None:
    _, key = make_key(data_dir, "ada")
    wait_until_accepted(keyed, key)
    with pytest.raises(openai.PermissionDeniedError):
        client(keyed, key, **{"X-Memory-User": "grace"}).chat.completions.create(model="m", messages=[user_says()])
    assert api(keyed, key, "GET", "/memory/memories", headers={"X-Memory-User": "grace"}).status_code == 403
    assert api(keyed, key, "GET", "/memory/memories", headers={"X-Memory-User": "ada"}).status_code == 200


def test_two_service_keys_naming_the_same_end_user_never_share_memory(
    keyed: str, fake_upstream: FakeUpstream, data_dir: Path
) -> None:
    _, first = make_key(data_dir, "app-one", "service")
    _, second = make_key(data_dir, "app-two", "service")
    wait_until_accepted(keyed, second)
    grace = {"X-Memory-User": "grace"}
    stored = api(keyed, first, "POST", "/memory/memories", json={"text": TABS}, headers=grace)
    assert stored.status_code == 201, stored.text
    assert api(keyed, second, "GET", "/memory/memories", headers=grace).json()["count"] == 0
    assert api(keyed, first, "GET", "/memory/memories", headers=grace).json()["count"] == 1
    client(keyed, second, **grace).chat.completions.create(model="m", messages=[user_says(QUESTION)])
    assert TABS not in str(fake_upstream.requests[-1].json)
    client(keyed, first, **grace).chat.completions.create(model="m", messages=[user_says(QUESTION)])
    assert TABS in str(fake_upstream.requests[-1].json)


def test_the_upstream_never_sees_a_memproxy_key(keyed: str, fake_upstream: FakeUpstream, data_dir: Path) -> None:
    _, key = make_key(data_dir, "ada")
    wait_until_accepted(keyed, key)
    client(keyed, key).chat.completions.create(model="m", messages=[user_says()])
    with client(keyed, key).chat.completions.stream(model="m", messages=[user_says()]) as events:
        events.until_done()
    api(keyed, key, "GET", "/v1/models", headers={"Authorization": "Bearer sk-provider"})
    assert len(fake_upstream.requests) == 3
    for seen in fake_upstream.requests:
        assert key not in str(seen.headers) and "x-memproxy-key" not in seen.headers
        assert seen.headers["authorization"] == "Bearer sk-provider"  # the client's own credential


def test_a_memproxy_key_beside_x_memproxy_key_never_reaches_the_upstream(
    keyed: str, fake_upstream: FakeUpstream, data_dir: Path
) -> None:
    """A client that put its memproxy key in x-api-key (or Authorization) as well: that copy stays here too."""
    _, key = make_key(data_dir, "ada")
    wait_until_accepted(keyed, key)
    fake_upstream.requests.clear()
    both = {"x-api-key": key, "Authorization": "Bearer sk-provider"}
    client(keyed, key, **both).chat.completions.create(model="m", messages=[user_says()])
    api(keyed, key, "GET", "/v1/models", headers=both)
    api(keyed, key, "GET", "/v1/models", headers={"Authorization": f"Bearer {key}", "x-api-key": "sk-ant-provider"})
    assert len(fake_upstream.requests) == 3
    for seen in fake_upstream.requests:
        assert key not in str(seen.headers)
    assert fake_upstream.requests[0].headers["authorization"] == "Bearer sk-provider"
    assert fake_upstream.requests[2].headers["x-api-key"] == "sk-ant-provider"


def test_metrics_need_an_admin_key_in_keys_mode(keyed: str, data_dir: Path) -> None:
    _, personal = make_key(data_dir, "ada")
    _, admin = make_key(data_dir, "ops", "admin")
    wait_until_accepted(keyed, admin)
    assert api(keyed, None, "GET", "/metrics").status_code == 401
    refused = api(keyed, personal, "GET", "/metrics")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_key_required"
    scraped = api(keyed, None, "GET", "/metrics", headers={"Authorization": f"Bearer {admin}"})
    assert scraped.status_code == 200 and "memproxy_" in scraped.text


def test_a_key_in_authorization_sends_the_servers_upstream_key(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, data_dir: Path
) -> None:
    _, key = make_key(data_dir, "ada")
    overrides = {"auth.mode": "keys", "store.path": str(data_dir), "upstream.api_key": "sk-server"}
    with start_proxy(fake_upstream.base_url, overrides) as url:
        sdk = openai.OpenAI(base_url=url, api_key=key, max_retries=0)
        _clients.append(sdk)
        sdk.chat.completions.create(model="m", messages=[user_says()])
    assert fake_upstream.requests[-1].headers["authorization"] == "Bearer sk-server"
    assert key not in str(fake_upstream.requests[-1].headers)


def test_the_cli_follows_the_same_rules(keyed: str, data_dir: Path) -> None:
    key_id, key = make_key(data_dir, "ada")
    base = [sys.executable, "-m", "proxy", "memories", "list", "--data-dir", str(data_dir)]
    env = {"MEMPROXY_AUTH_MODE": "keys"}
    assert run(base + ["--api-key", key], env).returncode == 0
    refused = run(base + ["--api-key", key, "--user", "grace"], env)
    assert refused.returncode == 2 and "may not act for another user" in refused.stderr
    assert (
        run([sys.executable, "-m", "proxy", "keys", "revoke", key_id, "--data-dir", str(data_dir)], {}).returncode == 0
    )
    revoked = run(base + ["--api-key", key], env)
    assert revoked.returncode == 2 and "unknown or revoked" in revoked.stderr
    listed = run([sys.executable, "-m", "proxy", "keys", "list", "--data-dir", str(data_dir)], {})
    assert key_id in listed.stdout and "revoked" in listed.stdout and key not in listed.stdout


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def wait_until_accepted(url: str, key: str) -> None:
    """Keys reach a running proxy on its next poll of the store: wait for that, not for a guessed time."""
    wait_for(lambda: api(url, key, "GET", "/memory/memories").status_code == 200)


def wait_until_refused(url: str, key: str) -> None:
    wait_for(lambda: api(url, key, "GET", "/memory/memories").status_code == 401)


def wait_for(condition: object, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the proxy never picked up the key change"
        time.sleep(0.05)


def test_a_key_an_admin_makes_over_http_works_at_once_and_stops_within_a_second_of_its_revocation_everywhere(
    start_proxy: RunProxy, fake_upstream: FakeUpstream, data_dir: Path
) -> None:
    """Two replicas on one store: the key is made and revoked through the first; both refuse it within a second."""
    _, admin = make_key(data_dir, "root", "admin")
    overrides = {"auth.mode": "keys", "store.path": str(data_dir)}
    with (
        start_proxy(fake_upstream.base_url, overrides) as first,
        start_proxy(fake_upstream.base_url, overrides) as second,
    ):
        created = api(first, admin, "POST", "/memory/keys", json={"user": "ada"})
        assert created.status_code == 201, created.text
        key, key_id = created.json()["key"], created.json()["id"]
        answer = client(first, key).chat.completions.create(model="m", messages=[user_says()])
        assert answer.choices[0].message.content  # at once, on the replica that made it
        assert fake_upstream.requests[-1].headers["authorization"] == "Bearer sk-provider"
        wait_until_accepted(second, key)  # the other replica's next poll of the store

        revoked = api(first, admin, "DELETE", f"/memory/keys/{key_id}")
        assert revoked.status_code == 200 and revoked.json()["active"] is False
        deadline = time.monotonic() + 1.0
        for replica in (first, second):
            while (status := chat_status(replica, key)) != 401:
                assert status == 200 and time.monotonic() < deadline, f"{replica} still takes the revoked key"
                time.sleep(0.02)
        listed = api(first, admin, "GET", "/memory/keys").json()["keys"]
    assert [(k["id"], k["active"]) for k in listed if k["user"] == "ada"] == [(key_id, False)]


def chat_status(url: str, key: str) -> int:
    body = {"model": "m", "messages": [user_says()]}
    headers = {"X-Memproxy-Key": key, "Authorization": "Bearer sk-provider"}
    return httpx.post(url + "/chat/completions", json=body, headers=headers, timeout=10).status_code
