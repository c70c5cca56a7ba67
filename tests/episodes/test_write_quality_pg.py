"""Write quality on PostgreSQL: an update judged in the job supersedes in the database, in the same transaction as
the new memory, and every replica sees the link; a stated memory stays live there too."""

from collections.abc import AsyncIterator
from typing import Any

import pytest

from proxy.config import load_settings
from proxy.episodes.pg_jobs import PostgresJobs
from proxy.episodes.service import EpisodeService
from proxy.memory.backends.pg_episodes import PostgresEpisodes
from proxy.memory.backends.pg_memories import PostgresStore
from proxy.memory.backends.postgres import Database
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService
from proxy.metrics import Metrics
from proxy.testing.extractor import FakeExtractor

from .test_write_quality import KUBERNETES, NOMAD, extract, live, model

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "w")


@pytest.fixture
async def replicas(pg_dsn: str) -> AsyncIterator[list[EpisodeService]]:
    """Two replicas' episode services on one database (each its own connections and caches)."""
    settings = load_settings(overrides={"store.backend": "postgres", "store.dsn": pg_dsn})
    built = []
    for _ in range(2):
        database = Database(pg_dsn)
        episodes = PostgresEpisodes(database)
        memory = MemoryService(PostgresStore(database), settings.memory, Metrics(), episodes=episodes)
        built.append(EpisodeService(settings, memory, episodes, PostgresJobs(database), FakeExtractor(),
                                    memory.metrics, proxy_tools=frozenset()))  # fmt: skip
    yield built
    for service in built:
        await service.jobs.aclose()
        await service.memory.aclose()


async def exported(service: EpisodeService) -> dict[str, Any]:
    return {m.text: m for m in await service.memory.export(ADA)}


async def test_an_update_supersedes_in_the_database_and_the_other_replica_sees_it(
    replicas: list[EpisodeService],
) -> None:
    one, two = replicas
    await extract(one, "s1", NOMAD, caller=ADA)
    model(one).verdicts.append("update")
    await extract(one, "s2", KUBERNETES, caller=ADA)
    assert model(one).judged == [(KUBERNETES, NOMAD)]

    for replica in (one, two):
        assert await live(replica, ADA) == [KUBERNETES]
        stored = await exported(replica)
        assert stored[NOMAD].superseded_by == stored[KUBERNETES].id


async def test_a_stated_memory_stays_live_in_the_database(replicas: list[EpisodeService]) -> None:
    one, two = replicas
    said = await one.memory.add(ADA, {"text": NOMAD}, origin="api")
    model(one).verdicts.append("update")
    await extract(one, "s1", KUBERNETES, caller=ADA)

    assert await live(two, ADA) == sorted([NOMAD, KUBERNETES])
    assert (await exported(two))[NOMAD].superseded_by is None
    assert (await exported(two))[NOMAD].id == said.memory.id
