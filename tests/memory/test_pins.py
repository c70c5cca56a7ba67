"""Pinned facts (docs/pinned.md): caps, duplicates, where they stand in the block, on both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.config import MemorySettings
from proxy.errors import InvalidRequest, MemoryRejected, PinRefused
from proxy.memory.backends.files import FilesStore
from proxy.memory.block import ENVIRONMENT_TITLE, FRAMING, PROFILE_TITLE, RECALLED_TITLE, render_block
from proxy.memory.caller import Identity
from proxy.memory.pins import PinCap, Pinned, check_pin, fit
from proxy.memory.provenance import untrusted_by
from proxy.memory.ranking import MemoryIndex
from proxy.memory.recall import Recall
from proxy.memory.records import Memory
from proxy.memory.service import MemoryService
from proxy.memory.store import MemoryStore

pytestmark = pytest.mark.anyio

NOW = 1_800_000_000.0
ADA = Identity("ada", "repo")
BOB = Identity("bob", "repo")
CAP = PinCap(100, "memory.pinned_user_chars", "the user's profile")


def pin(memory_id: str, text: str, *, scope: str = "user", created: float = NOW) -> Memory:
    return Memory(id=memory_id, text=text, scope=scope, created=created, pinned=True)


def chat(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}]


# -- pure: caps and duplicates --------------------------------------------------------------------------------


def test_a_pin_that_fits_its_cap_passes_and_one_past_it_is_refused_naming_the_cap() -> None:
    pins = [pin("m-1", "a" * 40), pin("m-2", "b" * 40)]
    check_pin(pins, "c" * 20, CAP)  # 100 exactly: fits
    with pytest.raises(PinRefused) as refused:
        check_pin(pins, "c" * 21, CAP)
    error = refused.value
    assert (error.status, error.code) == (409, "pinned_cap_exceeded")
    assert "memory.pinned_user_chars" in error.message and "100 characters" in error.message
    assert "m-1: 40" in error.message and "m-2: 40" in error.message  # what each pin takes
    assert "replace or remove" in error.message.lower() and "memory_delete" in error.message


def test_a_pin_being_replaced_frees_its_room() -> None:
    pins = [pin("m-1", "a" * 40), pin("m-2", "b" * 40)]
    check_pin(pins, "c" * 60, CAP, replacing="m-2")


def test_the_same_words_pinned_again_are_refused_whatever_their_case_and_spacing() -> None:
    with pytest.raises(PinRefused) as refused:
        check_pin([pin("m-1", "Ada writes Go")], "  ada   WRITES go ", CAP)
    assert refused.value.code == "duplicate_pin" and "m-1" in refused.value.message


def test_a_block_holds_its_pins_to_the_cap_oldest_first_skipping_one_too_long() -> None:
    pins = [pin("m-1", "a" * 50), pin("m-2", "b" * 60), pin("m-3", "c" * 30)]
    assert [m.id for m in fit(pins, 100)] == ["m-1", "m-3"]


# -- the block ------------------------------------------------------------------------------------------------


def test_pins_open_the_block_profile_then_environment_then_the_recalled_memories() -> None:
    pinned = Pinned((pin("m-1", "Ada writes Go"),), (pin("m-2", "Deploys go to Fly.io", scope="workspace"),))
    recalled = Memory(id="m-3", text="Ada prefers tabs", category="preference")
    lines = render_block([recalled], pinned=pinned).splitlines()
    assert lines == [
        "[Memories]",
        FRAMING,
        PROFILE_TITLE,
        "- (m-1, fact) Ada writes Go",
        ENVIRONMENT_TITLE,
        "- (m-2, fact) Deploys go to Fly.io",
        RECALLED_TITLE,
        "- (m-3, preference) Ada prefers tabs",
    ]


def test_a_block_without_pins_reads_as_it_always_did() -> None:
    recalled = Memory(id="m-3", text="Ada prefers tabs", category="preference")
    assert render_block([recalled]) == "\n".join(["[Memories]", FRAMING, "- (m-3, preference) Ada prefers tabs"])


def test_recall_puts_pins_first_outside_the_ranked_budget() -> None:
    """A budget of one memory: the pins still come, and the one relevant memory too."""
    recall = Recall(MemorySettings(max_inject_count=1, max_inject_chars=40))
    index = MemoryIndex([Memory(id="m-9", text="Ada indents with tabs", created=NOW)])
    pinned = Pinned((pin("m-1", "Ada is a backend engineer who writes Go services"),))
    recalled = recall(("ada", "repo", "s"), chat("How do I indent?"), [index], now=NOW, pinned=pinned)
    assert recalled.ids == ("m-1", "m-9") and recalled.pinned == 1
    block = recalled.placement.block
    assert block is not None and block.index("m-1") < block.index("m-9")


def test_pins_alone_make_a_block() -> None:
    recall = Recall(MemorySettings())
    pinned = Pinned(environment=(pin("m-2", "Deploys go to Fly.io", scope="workspace"),))
    recalled = recall(("ada", "repo", "s"), chat("hi"), [MemoryIndex()], now=NOW, pinned=pinned)
    assert recalled.placement.block is not None and "Deploys go to Fly.io" in recalled.placement.block


def test_a_sessions_pins_are_frozen_with_its_block_and_shared_with_other_replicas() -> None:
    recall = Recall(MemorySettings())
    first = Pinned((pin("m-1", "Ada writes Go"),))
    key = ("ada", "repo", "s")
    index = MemoryIndex([first.profile[0]])
    before = recall(key, chat("hi"), [index], now=NOW, pinned=first)
    later = Pinned((pin("m-1", "Ada writes Go"), pin("m-5", "Ada lives in Lisbon")))
    index.put(later.profile[1])
    after = recall(key, chat("hi") + [{"role": "user", "content": "more"}], [index], now=NOW, pinned=later)
    assert after.placement.block == before.placement.block and after.pinned == 1  # byte for byte

    replica = Recall(MemorySettings())
    state = recall.export(key)
    assert state is not None
    replica.adopt(key, orjson.loads(orjson.dumps(state)))
    again = replica(key, chat("hi"), [index], now=NOW, pinned=later)
    assert again.placement.block == before.placement.block and again.pinned == 1


# -- the service, on both backends ------------------------------------------------------------------------------


@pytest.fixture(params=["files", "postgres"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryService]:
    store: MemoryStore
    if request.param == "files":
        store = FilesStore(tmp_path / "data")
    else:
        from proxy.memory.backends.pg_memories import PostgresStore
        from proxy.memory.backends.postgres import Database

        store = PostgresStore(Database(request.getfixturevalue("pg_dsn")))
    memory = MemoryService(store, MemorySettings(pinned_user_chars=120, pinned_env_chars=60), tools=True)
    yield memory
    await memory.aclose()


async def add(service: MemoryService, text: str, caller: Identity = ADA, **fields: Any) -> Memory:
    return (await service.add(caller, {"text": text, **fields}, origin="api")).memory


async def block_of(service: MemoryService, session: str, text: str = "hi", caller: Identity = ADA) -> str:
    prepared = await service.prepare(caller, chat(text), session)
    assert prepared.placement.block is not None
    return prepared.placement.block


def place(text: str, n: int) -> str:
    """``text`` padded to ``n`` characters with dots: no words, so texts stay as alike as their words are."""
    return text.ljust(n, ".")


async def test_each_place_has_its_own_cap(service: MemoryService) -> None:
    await add(service, place("Ada's profile fact", 100), scope="user", pinned=True)
    await add(service, place("The repo's environment fact", 50), scope="workspace", pinned=True)
    with pytest.raises(PinRefused) as refused:
        await add(service, place("Another environment fact", 11), scope="workspace", pinned=True)
    assert "memory.pinned_env_chars" in refused.value.message and "60 characters" in refused.value.message
    with pytest.raises(PinRefused) as refused:
        await add(service, place("Another profile fact", 21), scope="user", pinned=True)
    assert "memory.pinned_user_chars" in refused.value.message
    await add(service, place("A small profile fact", 20), scope="user", pinned=True)  # 120 exactly
    places = {p.scope: p for p in await service.pinned(ADA)}
    assert sum(len(m.text) for m in places["user"].memories) == 120
    assert len(places["workspace"].memories) == 1
    assert len(await service.export(ADA)) == 3  # the refused ones stored nothing


async def test_a_pin_is_only_for_the_profile_or_the_environment(service: MemoryService) -> None:
    for scope in ("session", "global"):
        with pytest.raises(MemoryRejected) as refused:
            await service.add(
                Identity("ada", "repo", "s1", admin=True), {"text": "A fact", "scope": scope, "pin": True}, origin="api"
            )
        assert "scope user" in refused.value.message
    with pytest.raises(MemoryRejected):
        await add(service, "A fact", pinned="yes")


async def test_a_duplicate_pin_is_refused_and_stores_nothing(service: MemoryService) -> None:
    first = await add(service, "Ada writes Go services", scope="user", pinned=True)
    with pytest.raises(PinRefused) as refused:
        await add(service, "ada writes go  services", scope="user", pinned=True)
    assert refused.value.code == "duplicate_pin" and first.id in refused.value.message
    assert [m.id for m in await service.export(ADA)] == [first.id]


async def test_pinning_a_stored_memory_pins_it_where_it_is(service: MemoryService) -> None:
    plain = await add(service, "Ada writes Go services", scope="user")
    pinned = await add(service, "Ada writes Go services", scope="user", pinned=True)
    assert pinned.id == plain.id and pinned.pinned
    assert [m.id for m in (await service.pinned(ADA))[0].memories] == [plain.id]


async def test_a_near_duplicate_pin_replaces_the_old_one_but_an_ordinary_write_never_does(
    service: MemoryService,
) -> None:
    old = await add(service, "The API server is written in Go and deploys to Fly.io", pinned=True)
    again = await service.add(ADA, {"text": "The API server is written in Go and deploys to Fly.io"}, origin="api")
    assert again.unchanged and again.memory.id == old.id  # the same words: the pin, as it was
    beside = await add(service, "The API server is written in Go, and it deploys to Fly.io")
    assert beside.id != old.id and not beside.pinned
    assert [m.id for m in (await service.pinned(ADA))[1].memories] == [old.id]  # still pinned
    new = await service.add(
        ADA, {"text": "The API server, written in Go, deploys to Fly.io", "pin": True}, origin="api"
    )
    assert new.superseded is not None and new.superseded.id == old.id and new.memory.pinned
    assert [m.id for m in (await service.pinned(ADA))[1].memories] == [new.memory.id]


async def test_pins_open_every_new_sessions_block_and_a_pin_added_mid_session_waits_for_the_next(
    service: MemoryService,
) -> None:
    await add(service, "Ada prefers tabs for indentation", category="preference")
    profile = await add(service, "Ada is a backend engineer", scope="user", pinned=True)
    first = await block_of(service, "s1", "How do I indent?")
    assert first.index(PROFILE_TITLE) < first.index(profile.id) < first.index(RECALLED_TITLE)
    assert first.count(profile.id) == 1  # shown as a pin, never again among the ranked ones
    prepared = await service.prepare(ADA, chat("How do I indent?"), "s1")
    assert (b"x-memproxy-pinned", b"1") in prepared.headers

    environment = await add(service, "Deploys go to Fly.io", pinned=True)
    assert await block_of(service, "s1", "How do I indent?") == first  # frozen for the session
    second = await block_of(service, "s2", "How do I indent?")
    assert second.index(profile.id) < second.index(ENVIRONMENT_TITLE) < second.index(environment.id)
    prepared = await service.prepare(ADA, chat("How do I indent?"), "s2")
    assert (b"x-memproxy-pinned", b"2") in prepared.headers


async def test_a_deleted_pin_leaves_the_block_at_once(service: MemoryService) -> None:
    gone = await add(service, "Ada is a backend engineer", scope="user", pinned=True)
    kept = await add(service, "Deploys go to Fly.io", pinned=True)
    assert gone.id in await block_of(service, "s1")
    await service.delete(ADA, gone.id)
    block = await block_of(service, "s1")
    assert gone.id not in block and kept.id in block


async def test_pins_are_never_another_users(service: MemoryService) -> None:
    await add(service, "Ada is a backend engineer", scope="user", pinned=True)
    await add(service, "Bob writes Rust", caller=BOB, scope="user")
    prepared = await service.prepare(BOB, chat("hi"), "s1")
    assert prepared.placement.block is not None and "Ada" not in prepared.placement.block
    assert not any(name == b"x-memproxy-pinned" for name, _ in prepared.headers)
    assert all(not p.memories for p in await service.pinned(BOB))


async def test_an_untrusted_sessions_pin_is_held_and_checked_again_on_approval(service: MemoryService) -> None:
    tainted = untrusted_by(["web_fetch"])
    held = (
        await service.add(ADA, {"text": place("Fetched fact", 40), "pinned": True}, origin="tool", provenance=tainted)
    ).memory
    assert held.held and held.pinned
    assert not (await service.pinned(ADA))[1].memories  # not in any block
    assert (await service.prepare(ADA, chat("fetched fact"), "s1")).placement.block is None
    await add(service, place("The environment's own fact", 30), pinned=True)
    with pytest.raises(PinRefused):  # 30 + 40 > 60
        await service.approve(ADA, held.id)
    assert (await service.search(ADA, held=True))[0].id == held.id  # still held, nothing changed
    with pytest.raises(PinRefused):  # past the cap already when written
        await service.add(
            ADA, {"text": place("Another fetched fact", 40), "pinned": True}, origin="tool", provenance=tainted
        )


async def test_edit_changes_a_pin_in_place_within_its_cap_and_unpins(service: MemoryService) -> None:
    a = await add(service, place("Deploys go to Fly.io", 30), pinned=True)
    b = await add(service, "The repo uses Python 3.11", pinned=True)
    edited = await service.edit(ADA, a.id, {"text": "Deploys go to Fly.io from main"})
    assert (edited.id, edited.text, edited.pinned) == (a.id, "Deploys go to Fly.io from main", True)
    with pytest.raises(PinRefused):
        await service.edit(ADA, a.id, {"text": place("Deploys", 40)})
    with pytest.raises(PinRefused):
        await service.edit(ADA, a.id, {"text": "the repo uses python 3.11"})  # b's words
    with pytest.raises(MemoryRejected):
        await service.edit(ADA, a.id, {"text": "Deploy key: sk-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d"})
    unpinned = await service.edit(ADA, b.id, {"pinned": False})
    assert not unpinned.pinned and [m.id for m in (await service.pinned(ADA))[1].memories] == [a.id]
    with pytest.raises(InvalidRequest) as unknown:
        await service.edit(ADA, a.id, {"scope": "user"})
    assert unknown.value.param == "scope"


async def test_export_and_import_keep_pins_and_an_import_holds_to_the_caps(service: MemoryService) -> None:
    await add(service, "Ada is a backend engineer", scope="user", pinned=True)
    await add(service, place("Deploys go to Fly.io", 40), pinned=True)
    lines = b"".join(orjson.dumps(m.to_json()) + b"\n" for m in await service.export(ADA))
    extra = orjson.dumps({"text": place("One more environment fact", 30), "pinned": True}) + b"\n"
    report = await service.import_lines(BOB, lines + extra)
    assert len(report.imported) == 2 and [e["line"] for e in report.errors] == [3]
    assert "memory.pinned_env_chars" in report.errors[0]["error"]
    places = {p.scope: [m.text for m in p.memories] for p in await service.pinned(BOB)}
    assert places == {"user": ["Ada is a backend engineer"], "workspace": [place("Deploys go to Fly.io", 40)]}
