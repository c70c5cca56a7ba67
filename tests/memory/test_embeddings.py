"""Hybrid ranking with the shipped all-MiniLM-L6-v2: the model, and what MemoryService does with it."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.config import load_settings
from proxy.memory.backends.files import owner_dir
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService
from proxy.memory.store import Owner
from proxy.metrics import Metrics
from proxy.services import build_store
from tests.embedding_model import MODEL, embeddings, requires_model, shared_encoder

pytestmark = [pytest.mark.anyio, requires_model]

ADA = Identity("ada", "w")
LISBON = "I moved to Lisbon last spring"
QUESTION = "which city do I live in"
OTHERS = [
    "User prefers Python over JavaScript",
    "The deploy target is AWS us-east-1",
    "Ada's cat is called Biscuit",
    "Standups are at 9:30 on weekdays",
    "User is allergic to peanuts",
]
# all-MiniLM-L6-v2 as sentence-transformers computes it (transformers 5.23, torch 2.15): mean pooling, unit length.
REFERENCE_TEXTS = [LISBON, QUESTION, "I indent Python with tabs"]
REFERENCE_COSINES = [[1.0, 0.442098, -0.076885], [0.442098, 1.0, 0.029189], [-0.076885, 0.029189, 1.0]]
REFERENCE_HEAD = [0.109656, -0.047725, 0.05351, 0.048086]  # the first vector's first components


def service_on(root: Path, *, hybrid: bool = True) -> MemoryService:
    # a generous store deadline: on a loaded CI machine a fresh service's first read of its files can take
    # longer than the default 250 ms, and a chat request then goes on without memory (and starts no backfill)
    settings = load_settings(overrides={"store.path": str(root), "memory.store_deadline_ms": 10_000})
    metrics = Metrics()
    return MemoryService(
        build_store(settings, metrics=metrics), settings.memory, metrics, embeddings=embeddings() if hybrid else None
    )


def ask(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": text}]


async def injected(service: MemoryService, text: str, session: str) -> list[str]:
    prepared = await service.prepare(ADA, ask(text), session)
    ids = dict(prepared.headers).get(b"x-memproxy-injected", b"").decode()
    return ids.split(",") if ids else []


def stored_lines(root: Path) -> list[dict[str, Any]]:
    path = root / owner_dir(Owner("ada", "w")) / "memories.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_the_numpy_encoder_computes_what_sentence_transformers_computes() -> None:
    vectors = shared_encoder().encode(REFERENCE_TEXTS)
    assert vectors.shape == (3, 384)
    assert (vectors @ vectors.T).ravel().tolist() == pytest.approx(sum(REFERENCE_COSINES, []), abs=1e-4)
    assert vectors[0, :4].tolist() == pytest.approx(REFERENCE_HEAD, abs=1e-4)


async def test_a_memory_sharing_no_word_with_the_question_is_injected(tmp_path: Path) -> None:
    lexical = service_on(tmp_path, hybrid=False)
    service = service_on(tmp_path)
    lisbon = (await service.add(ADA, {"text": LISBON}, origin="api")).memory
    for text in OTHERS:
        await service.add(ADA, {"text": text}, origin="api")
    assert lisbon.id in await injected(service, QUESTION, "s1")
    assert lisbon.id not in await injected(lexical, QUESTION, "s1")  # words alone cannot find it
    await lexical.aclose()
    await service.aclose()


async def test_a_memory_that_becomes_relevant_by_meaning_mid_session_comes_in_a_note(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    lisbon = (await service.add(ADA, {"text": LISBON}, origin="api")).memory
    for text in OTHERS:
        await service.add(ADA, {"text": text}, origin="api")
    first = ask("Which language do I prefer for scripts?")
    assert lisbon.id not in await injected(service, first[1]["content"], "s1")
    later = [*first, {"role": "assistant", "content": "Python."}, {"role": "user", "content": QUESTION}]
    prepared = await service.prepare(ADA, later, "s1")
    assert lisbon.id in dict(prepared.headers)[b"x-memproxy-injected"].decode().split(",")
    assert any(LISBON in text for _, text in prepared.placement.notes)
    await service.aclose()


async def test_a_memory_is_stored_with_its_embedding_and_shown_without_it(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    stored = (await service.add(ADA, {"text": LISBON}, origin="api")).memory
    [line] = stored_lines(tmp_path)
    assert line["embedding"]["model"] == MODEL
    assert len(line["embedding"]["f16"]) == 1024  # 384 float16 values in base64
    assert stored.embedding is not None and "embedding" not in stored.to_json()
    assert all("embedding" not in m.to_json() for m in await service.export(ADA))
    await service.aclose()


async def test_memories_written_before_embeddings_were_on_are_embedded_in_the_background(tmp_path: Path) -> None:
    before = service_on(tmp_path, hybrid=False)
    lisbon = (await before.add(ADA, {"text": LISBON}, origin="api")).memory
    for text in OTHERS:
        await before.add(ADA, {"text": text}, origin="api")
    await before.aclose()
    assert all("embedding" not in line for line in stored_lines(tmp_path))

    service = service_on(tmp_path)
    await injected(service, QUESTION, "s1")  # lexical this time: the vectors are being computed
    assert service.embeddings is not None
    await service.embeddings.drain()
    assert {line["id"] for line in stored_lines(tmp_path) if "embedding" in line} == {
        lisbon.id,
        *(m.id for m in await service.search(ADA) if m.id != lisbon.id),
    }
    assert lisbon.id in await injected(service, QUESTION, "s2")
    await service.aclose()


async def test_an_import_is_embedded_in_batches_before_it_is_written(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    lines = b"\n".join(orjson.dumps({"text": f"Fact number {n} about the garden"}) for n in range(70))
    lines += b"\n" + orjson.dumps({"text": LISBON, "embedding": {"model": MODEL, "f16": "AAAA"}})
    report = await service.import_lines(ADA, lines)
    assert len(report.imported) == 71 and not report.errors
    stored = stored_lines(tmp_path)
    assert all(line["embedding"]["model"] == MODEL for line in stored)
    assert stored[-1]["embedding"]["f16"] != "AAAA"  # an import's vector is computed here, never taken from it
    assert report.imported[-1] in [m.id for m in await service.search(ADA, query=QUESTION)]
    await service.aclose()


async def test_search_finds_by_meaning(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    lisbon = (await service.add(ADA, {"text": LISBON}, origin="api")).memory
    for text in OTHERS:
        await service.add(ADA, {"text": text}, origin="api")
    found = await service.search(ADA, query="where is my home")
    assert found and found[0].id == lisbon.id
    assert await service.search(ADA, query="where is my home", category="preference") == []  # filters still hold
    await service.aclose()


async def test_similarity_to_existing_memories_for_write_quality(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    old = (await service.add(ADA, {"text": "Deploy target is AWS us-east-1"}, origin="api")).memory
    cat = (await service.add(ADA, {"text": "Ada's cat is called Biscuit"}, origin="api")).memory
    assert service.embeddings is not None
    near, far = await service.embeddings.similarity("We moved the deploy target to GCP europe-west1", [old, cat])
    assert near is not None and far is not None and near > 0.5 > far
    await service.aclose()


async def test_only_a_request_that_ranks_embeds_its_message_never_a_retry_or_a_tool_hop(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    for text in [LISBON, *OTHERS]:
        await service.add(ADA, {"text": text}, origin="api")
    assert service.embeddings is not None
    embedded: list[str] = []
    encode = service.embeddings._encode_query

    def counted(text: str) -> Any:
        embedded.append(text)
        return encode(text)

    service.embeddings._encode_query = counted  # type: ignore[method-assign]
    first = ask(QUESTION)
    await service.prepare(ADA, first, "s1")  # the block is chosen: its message is embedded
    service.embeddings._cache.clear()  # so that only ranking, not the cache, can spare the model
    await service.prepare(ADA, first, "s1")  # a retry
    hop = [*first, {"role": "assistant", "content": None, "tool_calls": []}, {"role": "tool", "content": "42"}]
    await service.prepare(ADA, hop, "s1")  # the tool loop's next hop: the same newest user message
    assert embedded == [QUESTION]
    later = [*first, {"role": "assistant", "content": "Lisbon."}, {"role": "user", "content": "and my cat's name?"}]
    await service.prepare(ADA, later, "s1")  # a new user message: its note is ranked by meaning too
    assert embedded == [QUESTION, "and my cat's name?"]
    await service.aclose()


async def test_a_slow_model_costs_the_request_its_embedding_not_its_time(tmp_path: Path) -> None:
    service = service_on(tmp_path)
    await service.add(ADA, {"text": "The deploy target is AWS us-east-1"}, origin="api")
    assert service.embeddings is not None and service.embeddings.encoder is not None
    encoder, release = service.embeddings.encoder, threading.Event()
    real = encoder.encode

    class Stuck:
        def encode(self, texts: list[str]) -> Any:
            release.wait()
            return real(texts)

    service.embeddings.encoder = Stuck()  # type: ignore[assignment]
    service.embeddings.deadline_s = 0.01
    assert await service.embeddings.query("where do we deploy") is None
    assert await injected(service, "where do we deploy", "s1")  # ranked lexically, without waiting
    release.set()
    while await service.embeddings.query("where do we deploy") is None:  # the late answer is cached
        await asyncio.sleep(0.01)
    await service.aclose()


def test_an_owners_vectors_follow_every_change_to_the_owner() -> None:
    import numpy as np

    from proxy.memory.ranking import MemoryIndex
    from proxy.memory.records import Embedding, Memory

    made = embeddings()

    def memory(n: int, model: str = MODEL) -> Memory:
        return Memory(id=f"m-{n}", text=f"memory {n}", embedding=Embedding(model, bytes([n % 60]) * 768))

    index = MemoryIndex([memory(n) for n in range(1, 6)])
    assert len(made.vectors(index).memories) == 5
    index.drop("m-2")
    index.put(memory(7))
    index.put(Memory(id="m-8", text="not embedded yet"))
    index.put(memory(9, model="another-model"))
    index.put(dataclasses.replace(memory(3), superseded_by="m-7"))
    vectors = made.vectors(index)
    assert [m.id for m in vectors.memories] == ["m-1", "m-4", "m-5", "m-7"]
    assert {m.id for m in vectors.missing} == {"m-8", "m-9"}  # embedded in the background
    expected = [[float(n)] * 4 for n in (0x0101, 0x0404, 0x0505, 0x0707)]  # each byte pair read as one float16
    assert [[float(x) for x in row[:4].view(np.uint16)] for row in vectors.matrix.astype("<f2")] == expected
    made.close()


def test_a_memory_embedded_as_its_sentences_is_as_near_as_its_whole_lifted_toward_its_best_sentence() -> None:
    import numpy as np

    from proxy.memory.embeddings import PIECE_SHARE
    from proxy.memory.ranking import MemoryIndex
    from proxy.memory.records import Embedding, Memory

    made = embeddings()
    axes = np.eye(384, dtype=np.float32)
    whole = (axes[0] + axes[1]) / np.sqrt(2)  # a turn that tells two things is halfway between them

    def memory(n: int, *rows: np.ndarray[Any, Any]) -> Memory:
        vector = np.stack(rows).astype("<f2").tobytes()
        return Memory(id=f"m-{n}", text=f"memory {n}", embedding=Embedding(MODEL, vector))

    index = MemoryIndex(
        [memory(1, whole, axes[0], axes[1]), memory(2, axes[2]), memory(3, axes[1] * 0.6 + axes[3] * 0.8)]
    )
    query = axes[1]
    near = made.bind(query).cosines(index, {}, keep=10)
    assert near["m-1"] == pytest.approx(0.7071 + PIECE_SHARE * (1 - 0.7071), abs=1e-3)
    assert near["m-2"] == pytest.approx(0.0, abs=1e-3)
    assert near["m-3"] == pytest.approx(0.6, abs=1e-3)
    index.drop("m-2")  # the matrix is rebuilt from the rows it had: each memory keeps its own
    index.put(memory(4, axes[5], axes[1] * 0.8 + axes[6] * 0.6))
    near = made.bind(query).cosines(index, {}, keep=10)
    assert near == pytest.approx({"m-1": near["m-1"], "m-3": 0.6, "m-4": PIECE_SHARE * 0.8}, abs=1e-3)
    assert [s.memory.id for s in made.bind(query).similar([index], limit=3, visible=lambda m: True)] == [
        "m-1",
        "m-3",
        "m-4",
    ]
    whole = made.bind(query).similar([index], limit=3, visible=lambda m: True, whole=True)  # as merge on write reads
    assert [(s.memory.id, round(s.score, 2)) for s in whole] == [("m-1", 0.71), ("m-3", 0.6), ("m-4", 0.0)]
    made.close()


async def test_a_memory_that_tells_several_things_is_found_by_a_question_about_one_of_them() -> None:
    from proxy.memory.ranking import MemoryIndex
    from proxy.memory.records import Memory

    made = embeddings()
    texts = [
        "Ada: The quarterly report went out on Monday after a long review with finance. My sister finally adopted a "
        "golden retriever puppy called Biscuit. The office coffee machine is broken again.",
        "Ada: My sister is visiting next month.",  # near the question as a whole, about neither dog nor adoption
        "Ada: I walked past a pet shop full of puppies today.",
    ]
    vectors = await made.embed(texts)
    index = MemoryIndex(
        [Memory(id=f"m-{n}", text=t, embedding=v) for n, (t, v) in enumerate(zip(texts, vectors, strict=True))]
    )
    query = await made.query("What kind of dog did Ada's sister get?")
    assert query is not None
    nearest = made.bind(query).similar([index], limit=3, visible=lambda m: True)
    assert nearest[0].memory.id == "m-0"  # its whole text alone is the least near of the three (0.48 against 0.57)
    made.close()
