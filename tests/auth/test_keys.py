"""memproxy keys: issued once, stored hashed, known by hash, refused once revoked, in every process."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from proxy.auth.identity import Authenticator, Caller
from proxy.auth.keys import KeyRing, create_key, hash_key, new_key
from proxy.config import load_settings
from proxy.errors import InvalidApiKey, InvalidRequest, UserNotAllowed
from proxy.memory.backends.key_files import FilesKeys
from proxy.memory.keys import KeyStore

pytestmark = pytest.mark.anyio

OpenKeys = Callable[[], KeyStore]


@pytest.fixture(params=["files", "postgres"])
async def open_keys(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OpenKeys]:
    """Builds key stores on one storage, each what another process would build; closes them all."""
    opened: list[KeyStore] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else ""

    def build() -> KeyStore:
        if request.param == "files":
            opened.append(FilesKeys(tmp_path))
        else:
            from proxy.memory.backends.pg_keys import PostgresKeys
            from proxy.memory.backends.postgres import Database

            opened.append(PostgresKeys(Database(dsn)))
        return opened[-1]

    yield build
    for store in opened:
        await store.aclose()


def test_a_key_is_mp_and_32_random_characters() -> None:
    keys = {new_key() for _ in range(200)}
    assert len(keys) == 200
    assert all(key.startswith("mp-") and len(key) == 35 and key[3:].isalnum() for key in keys)


async def test_the_files_store_keeps_the_hash_never_the_key(tmp_path: Path) -> None:
    store = FilesKeys(tmp_path)
    record, key = await create_key(store, "ada", "personal")
    on_disk = (tmp_path / "keys.jsonl").read_text()
    assert key not in on_disk and key[3:] not in on_disk
    assert hash_key(key) in on_disk
    assert [k.id for k in await FilesKeys(tmp_path).keys()] == [record.id]


async def test_a_store_lists_every_key_by_hash_and_never_the_key(open_keys: OpenKeys) -> None:
    first, key = await create_key(open_keys(), "ada", "personal")
    second, _ = await create_key(open_keys(), "grace", "service")
    listed = await open_keys().keys()
    assert sorted(listed, key=lambda r: r.created) == [first, second]
    assert first.hash == hash_key(key) and all(key not in repr(record) for record in listed)


async def test_revoking_reaches_another_processs_ring_on_its_next_refresh(open_keys: OpenKeys) -> None:
    record, key = await create_key(open_keys(), "ada", "personal")
    ring = KeyRing(open_keys())
    await ring.refresh()
    assert ring.lookup(key) == record
    version = await ring.store.version()
    assert await open_keys().revoke(record.id, time.time()) is not None
    assert await ring.store.version() != version
    await ring.refresh()
    assert ring.lookup(key) is None
    listed = await open_keys().keys()
    assert listed[0].revoked is not None  # kept for `keys list`, shown revoked


async def test_revoking_twice_keeps_the_first_time_and_an_unknown_key_is_none(open_keys: OpenKeys) -> None:
    record, _ = await create_key(open_keys(), "ada", "personal")
    first = await open_keys().revoke(record.id, 1_700_000_000.0)
    again = await open_keys().revoke(record.id, 1_800_000_000.0)
    assert first is not None and again == first and first.revoked == 1_700_000_000.0
    assert await open_keys().revoke("k-000000000000", time.time()) is None
    assert [k.revoked for k in await open_keys().keys()] == [1_700_000_000.0]


async def test_the_version_moves_only_when_keys_change(open_keys: OpenKeys) -> None:
    store = open_keys()
    empty = await store.version()
    assert await store.version() == empty
    record, _ = await create_key(store, "ada", "personal")
    added = await open_keys().version()
    assert added != empty and await store.version() == added
    await store.revoke(record.id, time.time())
    assert await open_keys().version() not in (empty, added)


async def test_reserved_and_empty_user_names_get_no_key(open_keys: OpenKeys) -> None:
    for user in ("", "key-abc", "svc:k-1:ada"):
        with pytest.raises(InvalidRequest):
            await create_key(open_keys(), user, "personal")
    assert await open_keys().keys() == []


async def authenticator(open_keys: OpenKeys, **settings: object) -> tuple[Authenticator, dict[str, str]]:
    store = open_keys()
    keys = {kind: (await create_key(store, "ada", kind))[1] for kind in ("personal", "service", "admin")}
    ring = KeyRing(store)
    await ring.refresh()
    overrides = {"auth.mode": "keys", **settings}
    return Authenticator(load_settings(overrides=overrides), ring), keys


def auth_headers(key: str, where: bytes = b"x-memproxy-key", **extra: bytes) -> list[tuple[bytes, bytes]]:
    value = b"Bearer " + key.encode() if where == b"authorization" else key.encode()
    return [(where, value), *((name.replace("_", "-").encode(), v) for name, v in extra.items())]


async def test_no_key_a_wrong_key_and_a_revoked_key_are_401(open_keys: OpenKeys) -> None:
    auth, keys = await authenticator(open_keys)
    for headers in ([], auth_headers("mp-" + "x" * 32), [(b"authorization", b"Bearer sk-provider")]):
        with pytest.raises(InvalidApiKey) as caught:
            auth.authenticate(headers)
        assert caught.value.status == 401 and caught.value.code == "invalid_api_key"


async def test_a_personal_key_may_not_name_another_user(open_keys: OpenKeys) -> None:
    auth, keys = await authenticator(open_keys)
    assert auth.authenticate(auth_headers(keys["personal"], x_memory_user=b"ada")).identity.user == "ada"  # type: ignore[union-attr]
    with pytest.raises(UserNotAllowed) as caught:
        auth.authenticate(auth_headers(keys["personal"], x_memory_user=b"grace"))
    assert caught.value.status == 403


async def test_a_service_keys_end_users_are_namespaced_under_the_key(open_keys: OpenKeys) -> None:
    auth, keys = await authenticator(open_keys)
    other, other_key = await create_key(open_keys(), "billing-app", "service")
    await auth.keyring.refresh()  # type: ignore[union-attr]
    mine = auth.authenticate(auth_headers(keys["service"], x_memory_user=b"grace")).identity
    theirs = auth.authenticate(auth_headers(other_key, x_memory_user=b"grace")).identity
    assert mine is not None and theirs is not None
    assert mine.user != theirs.user and mine.user.endswith(":grace") and theirs.user == f"svc:{other.id}:grace"


async def test_only_an_admin_key_is_admin_and_the_admin_header_counts_for_nothing(open_keys: OpenKeys) -> None:
    auth, keys = await authenticator(open_keys, **{"memory.admin_key": "secret"})
    assert auth.authenticate(auth_headers(keys["admin"])).identity.admin  # type: ignore[union-attr]
    personal = auth.authenticate(auth_headers(keys["personal"], x_memory_admin_key=b"secret")).identity
    assert personal is not None and not personal.admin


async def test_a_key_in_x_memproxy_key_sends_the_clients_own_authorization_upstream(open_keys: OpenKeys) -> None:
    auth, keys = await authenticator(open_keys, **{"upstream.api_key": "sk-server"})
    caller = auth.authenticate([*auth_headers(keys["personal"]), (b"authorization", b"Bearer sk-client")])
    assert caller == Caller(caller.identity, None, frozenset({b"x-memproxy-key"}), "sk-client")


async def test_a_key_in_authorization_sends_the_servers_key_upstream_or_asks_for_x_memproxy_key(
    open_keys: OpenKeys,
) -> None:
    auth, keys = await authenticator(open_keys, **{"upstream.api_key": "sk-server"})
    caller = auth.authenticate(auth_headers(keys["personal"], b"authorization"))
    assert caller.upstream_key == "sk-server" and caller.client_key is None
    via_x_api_key = auth.authenticate(auth_headers(keys["personal"], b"x-api-key"))
    assert b"x-api-key" in via_x_api_key.strip  # the memproxy key never reaches the upstream
    keyless, keys = await authenticator(open_keys)
    with pytest.raises(InvalidRequest, match="X-Memproxy-Key"):
        keyless.authenticate(auth_headers(keys["personal"], b"authorization"))
