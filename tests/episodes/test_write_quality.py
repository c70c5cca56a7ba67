"""Write quality: an extracted fact in the 0.3-0.7 similarity band goes to the extraction model for a judgement
inside the background job (same merges, update supersedes, different adds); a stated memory is never superseded
by an extracted fact. The model is proxy.testing's FakeExtractor, as a user's test would script it."""

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from proxy.config import load_settings
from proxy.episodes.extraction import ExtractionFailed
from proxy.episodes.extraction_wire import Credential
from proxy.episodes.jobs import JobQueue
from proxy.episodes.judgement import JUDGEMENT_PROMPT
from proxy.episodes.service import EpisodeService
from proxy.episodes.sessions import Followed
from proxy.memory.backends.episode_files import FilesEpisodes
from proxy.memory.backends.files import FilesStore
from proxy.memory.caller import Identity
from proxy.memory.episodes import EpisodeStore
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Memory
from proxy.memory.service import MemoryService
from proxy.memory.similarity import Similarity, lexical
from proxy.memory.store import MemoryStore
from proxy.metrics import Metrics
from proxy.testing.extractor import FakeExtractor

from ..embedding_model import embeddings, requires_model

pytestmark = pytest.mark.anyio

ADA = Identity("ada")
NOMAD = "The billing service is deployed with Nomad"
KUBERNETES = "The billing service is now deployed with Kubernetes on GKE"  # 0.42 from NOMAD: judged
NOMAD_AGAIN = "Nomad deploys the billing service"  # the same words: the same memory, 0.7 and above
EDITOR = "User edits code in Neovim"  # below 0.3: different, never judged
AWS = "Deploy target is AWS us-east-1"
GCP = "We moved the deploy target to GCP europe-west1"  # lexically below 0.3 from AWS; an embedding sees the move
SECRET = "sk-proj-" + "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d"

Build = Callable[..., EpisodeService]


def build_service(
    store: MemoryStore, episodes: EpisodeStore, jobs: JobQueue, settings_path: Path, **options: Any
) -> EpisodeService:
    similarity, embedded = options.pop("similarity", None), options.pop("embeddings", None)
    settings = load_settings(overrides={"store.path": str(settings_path), **options})
    memory = MemoryService(
        store, settings.memory, Metrics(), episodes=episodes, similarity=similarity, embeddings=embedded
    )
    return EpisodeService(
        settings, memory, episodes, jobs, FakeExtractor(), memory.metrics, proxy_tools=frozenset({"memory_store"})
    )


@pytest.fixture
async def build(tmp_path: Path) -> AsyncIterator[Build]:
    built: list[EpisodeService] = []

    def make(**options: Any) -> EpisodeService:
        built.append(build_service(FilesStore(tmp_path), FilesEpisodes(tmp_path), JobQueue(tmp_path), tmp_path,
                                   **options))  # fmt: skip
        return built[-1]

    yield make
    for service in built:
        await service.memory.aclose()


@pytest.fixture
def service(build: Build) -> EpisodeService:
    return build()


def model(service: EpisodeService) -> FakeExtractor:
    assert isinstance(service.extractor, FakeExtractor)
    return service.extractor


async def extract(service: EpisodeService, session: str, *facts: str, caller: Identity = ADA) -> None:
    """A three-turn session ends and its job runs, the model extracting ``facts``."""
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are a coding agent."}]
    for text in ("Let us talk about the project", "Here is what changed", "Thanks"):
        messages = [*messages, {"role": "user", "content": text}]
        service.observe(caller, session, messages)
        service.confirm(caller, session, "gpt-test", Credential("sk-ada-key"))
        messages = [*messages, {"role": "assistant", "content": "ok"}]
    await service.end(caller, session)
    model(service).answer(f"Session {session}.", *facts)
    assert await service.run_due() == 1


async def everything(service: EpisodeService, caller: Identity = ADA) -> dict[str, Memory]:
    """The caller's memories by text, superseded ones included."""
    return {m.text: m for m in await service.memory.export(caller)}


async def live(service: EpisodeService, caller: Identity = ADA) -> list[str]:
    return sorted(m.text for m in await service.memory.search(caller, limit=50))


def count(service: EpisodeService, name: str, label: str, value: str) -> float:
    return service.metrics.registry.get_sample_value(name, {label: value}) or 0.0


async def test_an_update_in_the_band_supersedes_the_extracted_memory_it_replaces(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    model(service).verdicts.append("update")
    await extract(service, "s2", KUBERNETES)

    assert await live(service) == [KUBERNETES]
    stored = await everything(service)
    assert stored[NOMAD].superseded_by == stored[KUBERNETES].id
    assert model(service).judged == [(KUBERNETES, NOMAD)]
    judgement = model(service).calls[-1]
    assert judgement["messages"][0]["content"] == JUDGEMENT_PROMPT
    assert (judgement["session_model"], judgement["client_key"]) == ("gpt-test", "sk-ada-key")  # the job's route
    assert count(service, "memproxy_extraction_judgements_total", "verdict", "update") == 1
    assert count(service, "memproxy_extraction_facts_total", "outcome", "superseded") == 1


async def test_same_in_the_band_merges_the_fact_into_the_memory_already_there(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    model(service).verdicts.append("same")
    await extract(service, "s2", KUBERNETES)

    assert await live(service) == [NOMAD]
    assert KUBERNETES not in await everything(service)
    assert count(service, "memproxy_extraction_facts_total", "outcome", "merged") == 1


async def test_different_in_the_band_adds_the_fact_beside_the_memory(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    model(service).verdicts.append("different")
    await extract(service, "s2", KUBERNETES)

    assert await live(service) == sorted([NOMAD, KUBERNETES])
    assert model(service).judged == [(KUBERNETES, NOMAD)]


async def test_outside_the_band_nobody_is_asked(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    await extract(service, "s2", EDITOR)  # below 0.3: added
    await extract(service, "s3", NOMAD_AGAIN)  # 0.7 and above, both extracted: the new wording supersedes

    assert model(service).judged == []
    assert await live(service) == sorted([EDITOR, NOMAD_AGAIN])
    stored = await everything(service)
    assert stored[NOMAD].superseded_by == stored[NOMAD_AGAIN].id


@pytest.mark.parametrize("origin", ["api", "tool", "cli", "import"])
async def test_a_stated_memory_is_never_superseded_by_an_extracted_fact(service: EpisodeService, origin: str) -> None:
    said = await service.memory.add(ADA, {"text": NOMAD, "source": "inferred"}, origin=origin)
    model(service).verdicts.append("update")
    await extract(service, "s1", KUBERNETES)  # judged an update: kept beside what was stated
    await extract(service, "s2", NOMAD_AGAIN)  # the same memory: merged into it

    assert model(service).judged == [(KUBERNETES, NOMAD)]
    assert await live(service) == sorted([NOMAD, KUBERNETES])
    stored = await everything(service)
    assert stored[NOMAD].id == said.memory.id and stored[NOMAD].superseded_by is None
    assert NOMAD_AGAIN not in stored


@pytest.mark.parametrize(
    "answer",
    ["probably an update", '{"verdict": "replace"}', ExtractionFailed("upstream down", upstream_status=503)],
    ids=["prose", "unknown verdict", "failed call"],
)
async def test_an_unreadable_or_failed_judgement_keeps_both_and_the_job_finishes(
    service: EpisodeService, answer: str | Exception
) -> None:
    await extract(service, "s1", NOMAD)
    model(service).verdicts.append(answer)
    await extract(service, "s2", KUBERNETES)  # asserts the job ran to completion

    assert await live(service) == sorted([NOMAD, KUBERNETES])
    assert await service.jobs.all() == []
    outcome = "failed" if isinstance(answer, Exception) else "unreadable"
    assert count(service, "memproxy_extraction_judgements_total", "verdict", outcome) == 1


def cosine_of(table: dict[frozenset[str], float]) -> Similarity:
    """Stands in for an embedding model's cosine: the pairs it knows get their number, the rest the lexical one."""

    async def similarity(text: str, view: MemoryIndex, *, now: float) -> tuple[Memory, float] | None:
        for memory in view.newest():
            if frozenset((text, memory.text)) in table:
                return memory, table[frozenset((text, memory.text))]
        return await lexical(text, view, now=now)

    return similarity


async def test_with_embeddings_a_move_told_in_other_words_is_judged_and_supersedes(build: Build) -> None:
    lexical_only = build()
    await extract(lexical_only, "s1", AWS)
    await extract(lexical_only, "s2", GCP)
    assert model(lexical_only).judged == []  # words alone cannot see that these two are one thing
    assert await live(lexical_only) == sorted([AWS, GCP])

    embedded = build(similarity=cosine_of({frozenset((AWS, GCP)): 0.62}))
    await embedded.memory.forget_all(ADA)
    await extract(embedded, "s3", AWS)
    model(embedded).verdicts.append("update")
    await extract(embedded, "s4", GCP)
    assert model(embedded).judged == [(GCP, AWS)]
    assert await live(embedded) == [GCP]


@requires_model
async def test_with_the_embedding_model_a_move_told_in_other_words_is_judged_and_supersedes(build: Build) -> None:
    model_embeddings = embeddings()
    try:
        service = build(embeddings=model_embeddings)
        await extract(service, "s1", AWS)
        await extract(service, "s2", EDITOR)  # nothing like it: added, nobody asked
        model(service).verdicts.append("update")
        await extract(service, "s3", GCP)
        assert model(service).judged == [(GCP, AWS)]
        assert await live(service) == sorted([EDITOR, GCP])
        stored = await everything(service)
        assert stored[AWS].superseded_by == stored[GCP].id and stored[GCP].embedding is not None
    finally:
        model_embeddings.close()


async def test_equal_thresholds_never_ask_the_model(build: Build) -> None:
    service = build(**{"memory.add_threshold": 0.7})
    await extract(service, "s1", NOMAD)
    await extract(service, "s2", KUBERNETES)
    assert model(service).judged == []
    assert await live(service) == sorted([NOMAD, KUBERNETES])


async def test_approving_an_untrusted_episode_asks_no_model_and_keeps_both(service: EpisodeService) -> None:
    """An approval is a person's request: no model call on it, so the band falls back to keeping both."""
    await extract(service, "s1", NOMAD)
    messages = [{"role": "system", "content": "agent"}]
    for text in ("read the notes", "what else", "thanks"):
        messages = [*messages, {"role": "user", "content": text}]
        service.observe(ADA, "s2", messages, Followed("s2", "resp_0", (("", "read_file"),)))
        messages = [*messages, {"role": "assistant", "content": "ok"}]
    await service.end(ADA, "s2")
    model(service).answer("Read the notes.", KUBERNETES)
    await service.run_due()
    held = [e for e in (await service.of(ADA))[0] if e.provenance.untrusted]
    assert await live(service) == [NOMAD]  # held: not a memory yet

    await service.approve(ADA, held[0].id)
    assert model(service).judged == []
    assert await live(service) == sorted([NOMAD, KUBERNETES])


async def test_a_fact_carrying_a_secret_is_dropped_before_any_judgement(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    await extract(service, "s2", f"The billing service is now deployed with Kubernetes using key {SECRET}")
    assert model(service).judged == []
    assert all(SECRET not in str(call["messages"]) for call in model(service).calls)
    assert await live(service) == [NOMAD]


async def test_the_judgement_only_ever_sees_the_users_own_memories(service: EpisodeService) -> None:
    bob = Identity("bob")
    await extract(service, "s1", NOMAD, caller=bob)
    await extract(service, "s2", KUBERNETES)  # ada has nothing like it: added, nobody asked
    assert model(service).judged == []
    assert await live(service) == [KUBERNETES] and await live(service, bob) == [NOMAD]


async def test_a_forget_all_while_a_fact_is_judged_keeps_nothing_more(service: EpisodeService) -> None:
    await extract(service, "s1", NOMAD)
    fake = model(service)
    ask = fake.extract

    async def forgetting(messages: list[dict[str, str]], **call: Any) -> Any:
        answer = await ask(messages, **call)
        if fake.judged and len(fake.judged) == 1:  # the user forgets everything while the model judges
            await service.forget(ADA)
            await service.memory.forget_all(ADA)
        return answer

    fake.extract = forgetting  # type: ignore[method-assign]
    fake.verdicts.append("different")
    await extract(service, "s2", KUBERNETES, EDITOR)
    assert await live(service) == [] and await service.memory.export(ADA) == []
    assert await service.jobs.all() == []
