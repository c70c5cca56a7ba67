"""MemoryService over a real files store: what holds on every way in (API, CLI, tools) whatever the store holds."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from proxy.config import load_settings
from proxy.errors import InvalidRequest
from proxy.memory.backends import files as files_module
from proxy.memory.backends.files import owner_dir
from proxy.memory.caller import Identity
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import format_ts
from proxy.memory.service import MemoryService
from proxy.memory.store import Owner
from proxy.metrics import Metrics
from proxy.services import build_store

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "w")


def service_on(root: Path, metrics: Metrics | None = None) -> MemoryService:
    """The service as ``build_services`` wires it: the store reports unreadable lines to ``metrics``."""
    settings = load_settings(overrides={"store.path": str(root), "memory.store_deadline_ms": 10_000})  # loaded CI
    metrics = metrics or Metrics()
    return MemoryService(build_store(settings, metrics=metrics), settings.memory, metrics)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[MemoryService]:
    made = service_on(tmp_path)
    yield made
    await made.aclose()


async def test_a_corrupt_line_costs_only_itself_across_restarts(tmp_path: Path) -> None:
    first = service_on(tmp_path)
    kept = (await first.add(ADA, {"text": "User drinks green tea"}, origin="api")).memory
    path = tmp_path / owner_dir(Owner("ada", "w")) / "memories.jsonl"
    with path.open("ab") as handle:  # "²".isdigit() is true, int("²") raises
        handle.write(orjson.dumps({"id": "m-\u00b2", "text": "tea in a corrupt line", "ts": "2025-01-01T00:00:00Z"}))
        handle.write(b"\n")
    await first.aclose()

    for _ in range(2):  # a restart reads the same file again
        metrics = Metrics()
        service = service_on(tmp_path, metrics)
        assert [m.id for m in await service.search(ADA)] == [kept.id]
        assert [m.id for m in await service.search(ADA, query="tea")] == [kept.id]
        assert [m.id for m in await service.export(ADA)] == [kept.id]
        assert b"memproxy_store_unreadable_lines_total 1.0" in metrics.render()
        await service.aclose()
    service = service_on(tmp_path)
    added = (await service.add(ADA, {"text": "User works in Rust"}, origin="api")).memory
    assert [m.id for m in await service.search(ADA)] == [added.id, kept.id]
    await service.delete(ADA, kept.id)  # a rewrite: the unreadable line is left out, as from every read
    assert [m.id for m in await service.export(ADA)] == [added.id]
    assert b"corrupt" not in path.read_bytes()
    await service.aclose()


BAD_IMPORT_LINES = {
    "a session that is a number": ({"session": 5}, "session"),
    "a session that is a bool": ({"session": True}, "session"),
    "a session that is an object": ({"session": {"a": 1}}, "session"),
    "a session that is a list": ({"session": ["s"]}, "session"),
    "an empty session": ({"session": ""}, "session"),
    "a ts in year 9999": ({"ts": "9999-01-01T00:00:00Z"}, "ts"),
    "a ts two days ahead": ({"ts": "+2d"}, "ts"),
    "a ts that is no time": ({"ts": "yesterday"}, "ts"),
    "a last_used in the future": ({"last_used": "9999-01-01T00:00:00Z"}, "last_used"),
    "a use_count that is text": ({"use_count": "3"}, "use_count"),
    "an injected_count below zero": ({"injected_count": -1}, "injected_count"),
    "a last_injected in the future": ({"last_injected": "9999-01-01T00:00:00Z"}, "last_injected"),
    "an id that is a number": ({"id": 7}, "id"),
    "a superseded_by that is an object": ({"superseded_by": {"id": "m-1"}}, "superseded_by"),
}


def future(days: float) -> str:
    return format_ts(time.time() + days * 86400)


@pytest.mark.parametrize(("extra", "field"), BAD_IMPORT_LINES.values(), ids=BAD_IMPORT_LINES.keys())
async def test_an_import_line_with_a_bad_field_is_refused_and_nothing_of_it_written(
    tmp_path: Path, service: MemoryService, extra: dict[str, object], field: str
) -> None:
    extra = {k: future(2) if v == "+2d" else v for k, v in extra.items()}
    lines = [{"text": "User likes tea", "session": "s-1"}, {"text": "A bad line", **extra}, {"text": "User uses vim"}]
    report = await service.import_lines(ADA, b"\n".join(orjson.dumps(line) for line in lines))
    assert len(report.imported) == 2
    assert [e["line"] for e in report.errors] == [2] and f"'{field}'" in report.errors[0]["error"]
    path = tmp_path / owner_dir(Owner("ada", "w")) / "memories.jsonl"
    assert b"A bad line" not in path.read_bytes()
    restarted = service_on(tmp_path)  # what was acknowledged is all there after a restart
    assert sorted(m.text for m in await restarted.export(ADA)) == ["User likes tea", "User uses vim"]
    await restarted.aclose()


async def test_an_imported_line_keeps_its_session_and_a_time_within_a_day_of_clock_skew(
    service: MemoryService,
) -> None:
    ahead = future(0.5)
    line = {"text": "User likes tea", "scope": "session", "session": "s-1", "ts": ahead, "last_used": ahead}
    report = await service.import_lines(ADA, orjson.dumps(line))
    assert report.errors == []
    (memory,) = await service.export(ADA)
    assert (memory.session, format_ts(memory.created)) == ("s-1", ahead)


def import_body(count: int, **extra: object) -> bytes:
    return b"\n".join(orjson.dumps({"text": f"User fact number {n}", **extra}) for n in range(count))


async def test_an_import_past_max_import_lines_is_a_400_and_nothing_is_imported(tmp_path: Path) -> None:
    settings = load_settings(overrides={"store.path": str(tmp_path), "memory.max_import_lines": 3})
    service = MemoryService(build_store(settings), settings.memory)
    with pytest.raises(InvalidRequest) as refused:
        await service.import_lines(ADA, import_body(4))
    assert refused.value.status == 400 and refused.value.code == "too_many_lines"
    assert "at most 3 lines (memory.max_import_lines), this one has 4" in refused.value.message
    assert await service.export(ADA) == []
    assert len((await service.import_lines(ADA, import_body(3) + b"\n\n  \n")).imported) == 3  # blanks don't count
    lifted = await service.import_lines(ADA, import_body(5), bounded=False)  # the CLI's
    assert (len(lifted.imported), len(lifted.unchanged)) == (2, 3)  # the first three were there already
    await service.aclose()


async def test_an_import_is_one_write_per_owner_not_one_per_line(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    fsyncs: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        fsyncs.append(fd)
        real(fd)

    monkeypatch.setattr(files_module.os, "fsync", counted)
    body = import_body(300) + b"\n" + import_body(200, scope="user")
    report = await service.import_lines(ADA, body)
    assert len(report.imported) == 500 and report.errors == []
    # Per owner: the id counter, the file, its directory (new), and its names recorded (owner.json, once per new
    # owner: the file and the directory); nothing per line.
    assert len(fsyncs) <= 12
    texts = {m.id: m.text for m in await service.export(ADA)}
    assert [texts[memory_id] for memory_id in report.imported[:3]] == [f"User fact number {n}" for n in range(3)]
    assert [texts[memory_id] for memory_id in report.imported[300:302]] == ["User fact number 0", "User fact number 1"]


async def test_an_import_keeps_the_supersede_links_inside_it(service: MemoryService) -> None:
    lines = [
        {"id": "m-7", "text": "Staging runs Postgres 15", "superseded_by": "m-8"},
        {"id": "m-8", "text": "Staging runs Postgres 16"},
        {"id": "m-9", "text": "Deploys go through Nomad", "superseded_by": "m-99"},  # outside the import: dropped
    ]
    report = await service.import_lines(ADA, b"\n".join(orjson.dumps(line) for line in lines))
    moved = {m.text: m for m in await service.export(ADA)}
    assert [moved[line["text"]].id for line in lines] == report.imported
    assert moved["Staging runs Postgres 15"].superseded_by == moved["Staging runs Postgres 16"].id
    assert moved["Staging runs Postgres 16"].live and moved["Deploys go through Nomad"].live


async def test_injection_counts_of_many_sessions_read_each_owner_once(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every new session's block is counted, and a flush asks the store for each owner's memories at most once (on
    PostgreSQL a read is a query: asked per session, each new conversation cost three round trips)."""
    tea = (await service.add(ADA, {"text": "User drinks green tea every morning"}, origin="api")).memory
    asked: list[Owner] = []
    real = service.store.view

    async def view(owner: Owner) -> MemoryIndex:
        asked.append(owner)
        return await real(owner)

    monkeypatch.setattr(service.store, "view", view)
    for session in ("s1", "s2", "s3", "s4"):
        prepared = await service.prepare(ADA, [{"role": "user", "content": "what tea do I drink?"}], session)
        assert (b"x-memproxy-injected", tea.id.encode()) in prepared.headers
    await service.flush_uses()
    assert len(asked) == len(set(asked)) <= 3  # each owner once at most (none while its view is current)
    [counted] = [m for m in await service.export(ADA) if m.id == tea.id]
    assert counted.injected_count == 4
