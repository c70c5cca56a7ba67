"""MemoryService over a real files store: what holds on every way in (API, CLI, tools) whatever the store holds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from proxy.config import load_settings
from proxy.memory.backends.files import owner_dir
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService
from proxy.memory.store import Owner
from proxy.metrics import Metrics
from proxy.services import build_store

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "w")


def service_on(root: Path, metrics: Metrics | None = None) -> MemoryService:
    """The service as ``build_services`` wires it: the store reports unreadable lines to ``metrics``."""
    settings = load_settings(overrides={"store.path": str(root)})
    metrics = metrics or Metrics()
    return MemoryService(build_store(settings, metrics), settings.memory, metrics)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[MemoryService]:
    made = service_on(tmp_path)
    yield made
    await made.aclose()


async def test_a_corrupt_line_costs_only_itself_across_restarts(tmp_path: Path) -> None:
    first = service_on(tmp_path)
    kept = (await first.add(ADA, {"text": "User drinks green tea"})).memory
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
    added = (await service.add(ADA, {"text": "User works in Rust"})).memory
    assert [m.id for m in await service.search(ADA)] == [added.id, kept.id]
    await service.delete(ADA, kept.id)  # a rewrite: the unreadable line is left out, as from every read
    assert [m.id for m in await service.export(ADA)] == [added.id]
    assert b"corrupt" not in path.read_bytes()
    await service.aclose()
