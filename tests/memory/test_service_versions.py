"""Versions through MemoryService, on files and PostgreSQL: each way in names its actor, a stale If-Match changes
nothing, a restore is checked like an edit and undoes a delete, and forget-all leaves no version behind."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.config import load_settings
from proxy.errors import AdminOnly, InvalidRequest, MemoryNotFound, MemoryRejected, PinRefused, VersionMismatch
from proxy.memory.caller import Identity
from proxy.memory.provenance import untrusted_by
from proxy.memory.records import MemoryDraft
from proxy.memory.service import MemoryService
from proxy.memory.store import Owner
from proxy.memory.versions import Actor
from proxy.services import build_store
from proxy.tools.memory_tools import MemoryTools

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "w", key_id="k-ada", key_kind="personal")
BOB = Identity("bob", "w")
ADMIN = Identity("root", "w", admin=True, key_id="k-root", key_kind="admin")
TAINTED = untrusted_by(["web_fetch"])


@pytest.fixture(params=["files", "postgres"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryService]:
    overrides: dict[str, Any] = {"store.path": str(tmp_path), "memory.pinned_user_chars": 60}
    if request.param == "postgres":
        overrides |= {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn")}
    settings = load_settings(overrides=overrides)
    made = MemoryService(build_store(settings), settings.memory)
    yield made
    await made.aclose()


def changes(versions: list[Any]) -> list[tuple[int, str, str]]:
    return [(v.version, v.change, v.text) for v in versions]


async def test_an_edit_is_a_version_by_the_person_with_their_key(service: MemoryService) -> None:
    stored = (await service.add(ADA, {"text": "Ada deploys with Fabric"}, origin="api")).memory
    edited = await service.edit(ADA, stored.id, {"text": "Ada deploys with Ansible"}, expect={1})
    console = Actor.person(ADA, via="console")
    tagged = await service.edit(ADA, stored.id, {"tags": ["deploy"]}, actor=console, expect={2})

    assert (edited.version, tagged.version) == (2, 3)
    versions = await service.versions(ADA, stored.id)
    assert changes(versions) == [(3, "edited", "Ada deploys with Ansible"), (2, "edited", "Ada deploys with Ansible"),
                                 (1, "created", "Ada deploys with Fabric")]  # fmt: skip
    assert [v.actor for v in versions] == [console, Actor.person(ADA), Actor.person(ADA)]
    assert versions[0].actor.to_json() == {"kind": "person", "key_id": "k-ada", "via": "console"}
    assert versions[0].tags == ("deploy",) and versions[1].tags == ()
    with pytest.raises(MemoryNotFound):
        await service.versions(BOB, stored.id)  # one user's history never reaches another


async def test_a_stale_version_is_refused_and_changes_nothing(service: MemoryService) -> None:
    stored = (await service.add(ADA, {"text": "Ada deploys with Fabric"}, origin="api")).memory
    await service.edit(ADA, stored.id, {"text": "Ada deploys with Ansible"})

    with pytest.raises(VersionMismatch):
        await service.edit(ADA, stored.id, {"text": "Ada deploys with Salt"}, expect={1})
    with pytest.raises(VersionMismatch):
        await service.delete(ADA, stored.id, expect={1})
    with pytest.raises(VersionMismatch):
        await service.restore(ADA, stored.id, 1, expect={1})
    assert (await service.get(ADA, stored.id)).text == "Ada deploys with Ansible"
    assert [v.version for v in await service.versions(ADA, stored.id)] == [2, 1]
    assert (await service.edit(ADA, stored.id, {"text": "Ada deploys with Ansible"}, expect={2})).version == 2


async def test_pin_changes_are_pinned_and_unpinned_versions(service: MemoryService) -> None:
    stored = (await service.add(ADA, {"text": "Ada writes Go", "scope": "user"}, origin="api")).memory
    await service.edit(ADA, stored.id, {"pinned": True})
    await service.edit(ADA, stored.id, {"pinned": False})
    assert [v.change for v in await service.versions(ADA, stored.id)] == ["unpinned", "pinned", "created"]


async def test_the_model_s_writes_and_deletes_name_it_and_its_session(service: MemoryService) -> None:
    tools = MemoryTools(service)
    first = orjson.loads(await tools.run(ADA, "s-7", "memory_store", '{"text": "Deploy keys live in the vault"}'))
    second = orjson.loads(await tools.run(ADA, "s-7", "memory_store", '{"text": "Deploy keys live in the vault now"}'))
    assert second["superseded"] == first["id"]
    model = Actor("model", key_id="k-ada", session="s-7")

    old = await service.versions(ADA, first["id"])
    assert [(v.change, v.actor, v.superseded_by) for v in old] == [
        ("superseded", model, second["id"]),
        ("created", model, None),
    ]
    assert orjson.loads(await tools.run(ADA, "s-8", "memory_delete", orjson.dumps({"id": second["id"]}).decode()))["ok"]
    deleted = (await service.versions(ADA, second["id"]))[0]
    assert (deleted.change, deleted.actor) == ("deleted", Actor("model", key_id="k-ada", session="s-8"))


async def test_an_approval_is_a_version_and_so_is_the_supersede_it_makes(service: MemoryService) -> None:
    trusted = (await service.add(ADA, {"text": "Deploy keys live in the vault"}, origin="api")).memory
    held = (await service.add(ADA, {"text": "Deploy keys live in the vault now"}, origin="tool",
                              provenance=TAINTED)).memory  # fmt: skip
    assert (await service.get(ADA, held.id, held=True)).held
    with pytest.raises(MemoryNotFound):
        await service.get(ADA, held.id)  # a model never reads it

    approved = await service.approve(ADA, held.id, actor=Actor.person(ADA, via="cli"))
    assert approved.superseded is not None and approved.superseded.id == trusted.id
    [now, before] = await service.versions(ADA, held.id)
    assert (now.change, now.held, before.held) == ("approved", False, True)
    assert now.actor == Actor("person", key_id="k-ada", via="cli")
    retired = (await service.versions(ADA, trusted.id))[0]
    assert (retired.change, retired.superseded_by, retired.actor) == ("superseded", held.id, now.actor)


async def test_a_restore_undoes_a_delete_under_the_same_id(service: MemoryService) -> None:
    stored = (await service.add(ADA, {"text": "Ada deploys with Fabric", "tags": ["ops"]}, origin="api")).memory
    await service.edit(ADA, stored.id, {"text": "Ada deploys with Ansible", "tags": []})
    await service.delete(ADA, stored.id, expect={2})
    with pytest.raises(MemoryNotFound):
        await service.get(ADA, stored.id)
    assert [v.change for v in await service.versions(ADA, stored.id)] == ["deleted", "edited", "created"]

    back = await service.restore(ADA, stored.id, 1, expect={3})
    assert (back.id, back.version, back.text, back.tags) == (stored.id, 4, "Ada deploys with Fabric", ("ops",))
    assert [m.id for m in await service.search(ADA, query="Fabric")] == [stored.id]  # recalled again
    latest = (await service.versions(ADA, stored.id))[0]
    assert (latest.change, latest.actor) == ("restored", Actor.person(ADA))


async def test_a_restore_is_checked_like_an_edit(service: MemoryService) -> None:
    with pytest.raises(InvalidRequest):
        await service.restore(ADA, "m-1", 0)
    stored = (await service.add(ADA, {"text": "Ada writes Go", "scope": "user", "pinned": True}, origin="api")).memory
    await service.edit(ADA, stored.id, {"pinned": False})
    await service.add(ADA, {"text": "Ada's editor is Helix with vim keys", "scope": "user", "pinned": True},
                      origin="api")  # fmt: skip
    await service.add(ADA, {"text": "Ada lives in Lisbon", "scope": "user", "pinned": True}, origin="api")
    with pytest.raises(PinRefused):  # version 1 was pinned: there is no room for it now
        await service.restore(ADA, stored.id, 1)
    with pytest.raises(MemoryNotFound) as missing:
        await service.restore(ADA, stored.id, 9)
    assert missing.value.code == "version_not_found" and missing.value.param == "version"
    assert [v.version for v in await service.versions(ADA, stored.id)] == [2, 1]

    # A version that the scanner refuses now (written before a rule caught it) is refused, not brought back.
    owner = Owner("ada", "w")
    unsafe = await service.store.add(owner, MemoryDraft("deploy password: hunter2hunter2"), max_total=100)
    await service.edit(ADA, unsafe.id, {"text": "the deploy password is in the vault"})
    with pytest.raises(MemoryRejected):
        await service.restore(ADA, unsafe.id, 1)
    assert (await service.get(ADA, unsafe.id)).text == "the deploy password is in the vault"


async def test_restoring_a_version_from_before_a_supersede_makes_it_live_again(service: MemoryService) -> None:
    old = (await service.add(ADA, {"text": "Deploy keys live in the vault"}, origin="api")).memory
    new = (await service.add(ADA, {"text": "Deploy keys live in the vault now"}, origin="api")).memory
    assert (await service.get(ADA, old.id)).superseded_by == new.id

    back = await service.restore(ADA, old.id, 1)
    assert back.live and {m.id for m in await service.search(ADA)} == {old.id, new.id}


async def test_only_an_admin_restores_a_global_memory(service: MemoryService) -> None:
    stored = (await service.add(ADMIN, {"text": "The office is in Lisbon", "scope": "global"}, origin="api")).memory
    await service.delete(ADMIN, stored.id)
    assert [v.change for v in await service.versions(ADA, stored.id)] == ["deleted", "created"]  # readable by all
    with pytest.raises(AdminOnly):
        await service.restore(ADA, stored.id, 1)
    assert (await service.restore(ADMIN, stored.id, 1)).version == 3


async def test_an_import_names_the_importer(service: MemoryService) -> None:
    report = await service.import_lines(ADA, b'{"text": "Staging runs Postgres 16"}\n',
                                        actor=Actor.importer(ADA, via="cli"))  # fmt: skip
    [version] = await service.versions(ADA, report.imported[0])
    assert (version.change, version.actor) == ("created", Actor("import", key_id="k-ada", via="cli"))


async def test_forget_all_leaves_no_version_to_restore(service: MemoryService) -> None:
    live = (await service.add(ADA, {"text": "Ada deploys with Fabric"}, origin="api")).memory
    await service.edit(ADA, live.id, {"text": "Ada deploys with Ansible"})
    gone = (await service.add(ADA, {"text": "Ada's laptop is a Mac", "scope": "user"}, origin="api")).memory
    await service.delete(ADA, gone.id)
    kept = (await service.add(BOB, {"text": "Bob deploys with Nomad"}, origin="api")).memory

    assert await service.forget_all(ADA) == 1
    for memory_id in (live.id, gone.id):
        with pytest.raises(MemoryNotFound):
            await service.versions(ADA, memory_id)
        with pytest.raises(MemoryNotFound):
            await service.restore(ADA, memory_id, 1)
    assert [v.change for v in await service.versions(BOB, kept.id)] == ["created"]
