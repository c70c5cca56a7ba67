"""The gauge of what waits for a person's review, on both backends: read from the census when /metrics is scraped,
never on a request's way; a store that fails leaves the scrape answering."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from proxy.memory.caller import Identity
from proxy.memory.provenance import untrusted_by
from proxy.metrics import Metrics
from proxy.services import Services
from proxy.telemetry.observer import Telemetry

from ..api.served import BACKENDS, served, store_overrides

pytestmark = pytest.mark.anyio
ADA = Identity("ada", "default")


@pytest.fixture(params=BACKENDS)
async def app(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[Services, httpx.AsyncClient]]:
    async with served(store_overrides(request.param, tmp_path, request)) as made:
        yield made


async def test_held_memories_waiting_show_at_metrics(app: tuple[Services, httpx.AsyncClient]) -> None:
    services, client = app
    for text in ("Deploys go through the staging cluster first", "The on-call rota lives in the wiki"):
        stored = await services.memory.add(
            ADA, {"text": text}, origin="tool", session="s1", provenance=untrusted_by(["web_fetch"])
        )
        assert stored.memory.held
    await services.memory.add(ADA, {"text": "Ada prefers tea"}, origin="api")  # trusted: not waiting
    text = (await client.get("/metrics")).text
    assert 'memproxy_held_waiting{kind="memories"} 2.0' in text
    assert 'memproxy_held_waiting{kind="episodes"} 0.0' in text


async def test_a_failing_census_leaves_the_scrape_answering() -> None:
    async def broken() -> tuple[int, int]:
        raise OSError("disk gone")

    metrics = Metrics()
    telemetry = Telemetry(metrics.http, held=broken)
    await telemetry.refresh_held()
    assert b"memproxy_held_waiting" in metrics.render()  # described, without a value
    assert b'memproxy_held_waiting{kind="memories"}' not in metrics.render()
