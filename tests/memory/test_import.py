"""Importing is idempotent and an identical write keeps what is there, on both backends: an export imported twice
changes nothing the second time, and the same text written again without its tags keeps the memory and its tags."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.config import MemorySettings
from proxy.memory.backends.files import FilesStore
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService
from proxy.memory.store import MemoryStore

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "w")
BOB = Identity("bob", "w")


@pytest.fixture(params=["files", "postgres"])
async def service(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryService]:
    store: MemoryStore
    if request.param == "files":
        store = FilesStore(tmp_path / "data")
    else:
        from proxy.memory.backends.pg_memories import PostgresStore
        from proxy.memory.backends.postgres import Database

        store = PostgresStore(Database(request.getfixturevalue("pg_dsn")))
    memory = MemoryService(store, MemorySettings(), tools=True)
    yield memory
    await memory.aclose()


async def exported(service: MemoryService, caller: Identity) -> bytes:
    return b"".join(orjson.dumps(m.to_json()) + b"\n" for m in await service.export(caller))


def state(lines: bytes) -> list[dict[str, Any]]:
    """What an export says, without what a write may touch by itself (use counts)."""
    return [
        {k: v for k, v in orjson.loads(line).items() if k not in ("use_count", "last_used")}
        for line in lines.splitlines()
    ]


async def test_importing_the_same_export_twice_changes_nothing_the_second_time(service: MemoryService) -> None:
    await service.add(ADA, {"text": "User prefers tabs", "tags": ["style"], "category": "preference"}, origin="api")
    await service.add(ADA, {"text": "The staging DB is Postgres 16", "scope": "user"}, origin="api")
    older = {"id": "m-90", "text": "Deploys go out on Fridays", "superseded_by": "m-91"}
    await service.import_lines(
        ADA, b"\n".join(map(orjson.dumps, [older, {"id": "m-91", "text": "Deploys go out daily"}]))
    )
    export = await exported(service, ADA)
    assert sum(m.superseded_by is not None for m in await service.export(ADA)) == 1

    first = await service.import_lines(BOB, export)
    assert len(first.imported) == 4 and first.errors == []
    after_first = await exported(service, BOB)
    second = await service.import_lines(BOB, export)
    assert second.imported == [] and second.errors == []
    assert sorted(second.unchanged) == sorted(m.id for m in await service.export(BOB))
    assert state(await exported(service, BOB)) == state(after_first)

    again = await service.import_lines(ADA, export)  # into the store it came from: nothing new either
    assert again.imported == [] and state(await exported(service, ADA)) == state(export)


async def test_an_import_keeps_a_supersede_link_to_a_memory_that_was_already_there(service: MemoryService) -> None:
    older = {"id": "m-1", "text": "User prefers tabs", "superseded_by": "m-2"}
    newer = {"id": "m-2", "text": "User prefers spaces"}
    (there,) = (await service.import_lines(BOB, orjson.dumps(newer))).imported
    report = await service.import_lines(BOB, orjson.dumps(older) + b"\n" + orjson.dumps(newer))
    assert len(report.imported) == 1 and report.unchanged == [there]
    by_text = {m.text: m for m in await service.export(BOB)}
    assert by_text["User prefers tabs"].superseded_by == there == by_text["User prefers spaces"].id


async def test_an_identical_text_without_tags_keeps_the_memory_and_its_tags(service: MemoryService) -> None:
    tagged = (await service.add(ADA, {"text": "User prefers tabs", "tags": ["style", "editor"]}, origin="api")).memory
    again = await service.add(ADA, {"text": "user prefers  tabs"}, origin="tool", session="s1")
    assert again.unchanged and again.superseded is None and again.memory.id == tagged.id
    (kept,) = await service.search(ADA)
    assert (kept.id, kept.tags, kept.live) == (tagged.id, ("style", "editor"), True)
    fewer = await service.add(ADA, {"text": "User prefers tabs", "tags": ["style"]}, origin="api")
    assert fewer.unchanged and fewer.memory.tags == ("style", "editor")


async def test_an_identical_text_with_new_tags_still_replaces_the_memory(service: MemoryService) -> None:
    tagged = (await service.add(ADA, {"text": "User prefers tabs", "tags": ["style"]}, origin="api")).memory
    retagged = await service.add(ADA, {"text": "User prefers tabs", "tags": ["editor"]}, origin="api")
    assert retagged.superseded is not None and retagged.superseded.id == tagged.id
    assert retagged.memory.tags == ("editor",)
