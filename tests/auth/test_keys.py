"""memproxy keys: issued once, stored hashed, known by hash, refused once revoked, in every process."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from proxy.auth.identity import Authenticator, Caller
from proxy.auth.keys import KeyRing, create_key, hash_key, new_key
from proxy.config import load_settings
from proxy.errors import InvalidApiKey, InvalidRequest, UserNotAllowed
from proxy.memory.backends.key_files import FilesKeys

pytestmark = pytest.mark.anyio


def test_a_key_is_mp_and_32_random_characters() -> None:
    keys = {new_key() for _ in range(200)}
    assert len(keys) == 200
    assert all(key.startswith("mp-") and len(key) == 35 and key[3:].isalnum() for key in keys)


async def test_the_store_keeps_the_hash_never_the_key(tmp_path: Path) -> None:
    store = FilesKeys(tmp_path)
    record, key = await create_key(store, "ada", "personal")
    on_disk = (tmp_path / "keys.jsonl").read_text()
    assert key not in on_disk and key[3:] not in on_disk
    assert hash_key(key) in on_disk
    assert [k.id for k in await FilesKeys(tmp_path).keys()] == [record.id]


async def test_revoking_reaches_another_processs_ring_on_its_next_refresh(tmp_path: Path) -> None:
    record, key = await create_key(FilesKeys(tmp_path), "ada", "personal")
    ring = KeyRing(FilesKeys(tmp_path))
    await ring.refresh()
    assert ring.lookup(key) == record
    assert await FilesKeys(tmp_path).revoke(record.id, time.time()) is not None
    await ring.refresh()
    assert ring.lookup(key) is None
    listed = await FilesKeys(tmp_path).keys()
    assert listed[0].revoked is not None  # kept for `keys list`, shown revoked


async def test_reserved_and_empty_user_names_get_no_key(tmp_path: Path) -> None:
    for user in ("", "key-abc", "svc:k-1:ada"):
        with pytest.raises(InvalidRequest):
            await create_key(FilesKeys(tmp_path), user, "personal")


async def authenticator(tmp_path: Path, **settings: object) -> tuple[Authenticator, dict[str, str]]:
    store = FilesKeys(tmp_path)
    keys = {kind: (await create_key(store, "ada", kind))[1] for kind in ("personal", "service", "admin")}
    ring = KeyRing(store)
    await ring.refresh()
    overrides = {"auth.mode": "keys", "store.path": str(tmp_path), **settings}
    return Authenticator(load_settings(overrides=overrides), ring), keys


def auth_headers(key: str, where: bytes = b"x-memproxy-key", **extra: bytes) -> list[tuple[bytes, bytes]]:
    value = b"Bearer " + key.encode() if where == b"authorization" else key.encode()
    return [(where, value), *((name.replace("_", "-").encode(), v) for name, v in extra.items())]


async def test_no_key_a_wrong_key_and_a_revoked_key_are_401(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path)
    for headers in ([], auth_headers("mp-" + "x" * 32), [(b"authorization", b"Bearer sk-provider")]):
        with pytest.raises(InvalidApiKey) as caught:
            auth.authenticate(headers)
        assert caught.value.status == 401 and caught.value.code == "invalid_api_key"


async def test_a_personal_key_may_not_name_another_user(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path)
    assert auth.authenticate(auth_headers(keys["personal"], x_memory_user=b"ada")).identity.user == "ada"  # type: ignore[union-attr]
    with pytest.raises(UserNotAllowed) as caught:
        auth.authenticate(auth_headers(keys["personal"], x_memory_user=b"grace"))
    assert caught.value.status == 403


async def test_a_service_keys_end_users_are_namespaced_under_the_key(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path)
    other, other_key = await create_key(FilesKeys(tmp_path), "billing-app", "service")
    await auth.keyring.refresh()  # type: ignore[union-attr]
    mine = auth.authenticate(auth_headers(keys["service"], x_memory_user=b"grace")).identity
    theirs = auth.authenticate(auth_headers(other_key, x_memory_user=b"grace")).identity
    assert mine is not None and theirs is not None
    assert mine.user != theirs.user and mine.user.endswith(":grace") and theirs.user == f"svc:{other.id}:grace"


async def test_only_an_admin_key_is_admin_and_the_admin_header_counts_for_nothing(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path, **{"memory.admin_key": "secret"})
    assert auth.authenticate(auth_headers(keys["admin"])).identity.admin  # type: ignore[union-attr]
    personal = auth.authenticate(auth_headers(keys["personal"], x_memory_admin_key=b"secret")).identity
    assert personal is not None and not personal.admin


async def test_a_key_in_x_memproxy_key_sends_the_clients_own_authorization_upstream(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path, **{"upstream.api_key": "sk-server"})
    caller = auth.authenticate([*auth_headers(keys["personal"]), (b"authorization", b"Bearer sk-client")])
    assert caller == Caller(caller.identity, None, frozenset({b"x-memproxy-key"}), "sk-client")


async def test_a_key_in_authorization_sends_the_servers_key_upstream_or_asks_for_x_memproxy_key(tmp_path: Path) -> None:
    auth, keys = await authenticator(tmp_path, **{"upstream.api_key": "sk-server"})
    caller = auth.authenticate(auth_headers(keys["personal"], b"authorization"))
    assert caller.upstream_key == "sk-server" and caller.client_key is None
    via_x_api_key = auth.authenticate(auth_headers(keys["personal"], b"x-api-key"))
    assert b"x-api-key" in via_x_api_key.strip  # the memproxy key never reaches the upstream
    keyless, keys = await authenticator(tmp_path / "other")
    with pytest.raises(InvalidRequest, match="X-Memproxy-Key"):
        keyless.authenticate(auth_headers(keys["personal"], b"authorization"))
