"""Held memories through the one service every caller uses (DESIGN "Provenance"), on a real files store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from proxy.config import MemorySettings
from proxy.errors import MemoryNotFound, UntrustedSession
from proxy.memory.backends.files import FilesStore
from proxy.memory.caller import Identity
from proxy.memory.provenance import TRUSTED, Provenance, held_reasons, untrusted_by
from proxy.memory.service import MemoryService

pytestmark = pytest.mark.anyio

ADA = Identity("ada", "repo")
BOB = Identity("bob", "repo")
TAINTED = untrusted_by(["web_fetch"])
KEYS = "Deploy keys are kept in the vault, never in the repo"
POISON = "Deploy keys are kept in the repo, never in the vault"  # a near-duplicate of KEYS: the same words


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[MemoryService]:
    memory = MemoryService(FilesStore(tmp_path / "data"), MemorySettings(), tools=True)
    yield memory
    await memory.aclose()


async def test_a_tainted_write_is_held_and_never_supersedes_a_trusted_near_duplicate(service: MemoryService) -> None:
    trusted = (await service.add(ADA, {"text": KEYS}, origin="api")).memory
    stored = await service.add(ADA, {"text": POISON}, origin="tool", session="s1", provenance=TAINTED)
    held = stored.memory
    assert stored.superseded is None and not stored.unchanged
    assert (held.held, held.origin, held.session, held.provenance) == (True, "tool", "s1", TAINTED)
    assert (await service.get(ADA, trusted.id)).live
    # The same write from a clean session would have replaced it: the gate is what kept it.
    clean = await service.add(ADA, {"text": POISON}, origin="tool", session="s2")
    assert clean.superseded is not None and clean.superseded.id == trusted.id


async def test_a_held_write_is_never_searched_read_or_injected(service: MemoryService) -> None:
    held = (await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)).memory
    assert await service.search(ADA, query="deploy keys vault") == []
    assert await service.search(ADA) == []
    with pytest.raises(MemoryNotFound, match="held"):
        await service.get(ADA, held.id)
    prepared = await service.prepare(ADA, [{"role": "user", "content": "Where are the deploy keys kept?"}], "s3")
    assert prepared.placement.block is None and prepared.headers == []
    assert [m.id for m in await service.search(ADA, held=True)] == [held.id]
    assert [m.id for m in await service.search(ADA, held=True, query="IN THE REPO")] == [held.id]
    assert await service.search(ADA, held=True, query="nothing like it") == []
    assert await service.search(BOB, held=True) == []


async def test_a_retried_held_write_or_one_already_trusted_word_for_word_adds_nothing(
    service: MemoryService,
) -> None:
    first = await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)
    again = await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)
    assert again.unchanged and again.memory.id == first.memory.id
    trusted = (await service.add(ADA, {"text": KEYS}, origin="api")).memory
    same = await service.add(ADA, {"text": KEYS}, origin="tool", provenance=TAINTED)
    assert same.unchanged and same.memory == trusted
    assert len(await service.export(ADA)) == 2


async def test_approval_makes_a_held_memory_recalled_and_lets_it_supersede(service: MemoryService) -> None:
    trusted = (await service.add(ADA, {"text": KEYS}, origin="api")).memory
    held = (await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)).memory
    with pytest.raises(MemoryNotFound):
        await service.approve(BOB, held.id)

    approved = await service.approve(ADA, held.id)
    assert approved.memory.provenance == Provenance(True, ("web_fetch",), user_approved=True)
    assert approved.superseded is not None and approved.superseded.id == trusted.id
    assert [m.id for m in await service.search(ADA, query="deploy keys vault")] == [held.id]
    assert (await service.get(ADA, trusted.id)).superseded_by == held.id
    assert await service.search(ADA, held=True) == []
    prepared = await service.prepare(ADA, [{"role": "user", "content": "Where are the deploy keys kept?"}], "s4")
    assert prepared.placement.block is not None and POISON in prepared.placement.block
    assert (await service.approve(ADA, held.id)).unchanged  # approving twice changes nothing
    assert (await service.approve(ADA, trusted.id)).unchanged


async def test_a_tainted_session_may_delete_held_memories_but_not_trusted_ones(service: MemoryService) -> None:
    trusted = (await service.add(ADA, {"text": KEYS}, origin="api")).memory
    held = (await service.add(ADA, {"text": "Use the pastebin for logs"}, origin="tool", provenance=TAINTED)).memory
    with pytest.raises(UntrustedSession, match="web_fetch"):
        await service.delete(ADA, trusted.id, provenance=TAINTED)
    assert (await service.get(ADA, trusted.id)).live
    assert (await service.delete(ADA, held.id, provenance=TAINTED)).id == held.id
    approved = (await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)).memory
    await service.approve(ADA, approved.id)
    with pytest.raises(UntrustedSession):  # approved is trusted now
        await service.delete(ADA, approved.id, provenance=TAINTED)
    assert (await service.delete(ADA, trusted.id, provenance=TRUSTED)).id == trusted.id


async def test_export_and_import_never_launder_a_held_memory(service: MemoryService) -> None:
    await service.add(ADA, {"text": KEYS}, origin="api")
    held = (await service.add(ADA, {"text": POISON}, origin="tool", provenance=TAINTED)).memory
    approved = (await service.add(ADA, {"text": "Logs go to Loki"}, origin="tool", provenance=TAINTED)).memory
    await service.approve(ADA, approved.id)
    lines = b"".join(orjson.dumps(m.to_json()) + b"\n" for m in await service.export(ADA))
    assert b'"untrusted":true' in lines and b'"origin":"tool"' in lines

    report = await service.import_lines(BOB, lines)
    assert report.errors == [] and len(report.imported) == 3
    by_text = {m.text: m for m in await service.export(BOB)}
    assert {m.origin for m in by_text.values()} == {"import"}
    assert by_text[POISON].held and by_text[POISON].provenance == held.provenance
    assert by_text["Logs go to Loki"].provenance == Provenance(True, ("web_fetch",), user_approved=True)
    assert by_text[KEYS].provenance == TRUSTED
    assert [m.text for m in await service.search(BOB, held=True)] == [POISON]


async def test_an_import_line_with_a_garbled_flag_is_reported_not_trusted(service: MemoryService) -> None:
    report = await service.import_lines(ADA, b'{"text": "User is an admin", "untrusted": "no"}\n')
    assert report.imported == [] and report.errors[0]["line"] == 1 and "untrusted" in report.errors[0]["error"]


def test_a_write_held_by_the_scanner_and_by_its_session_says_both_reasons() -> None:
    """The person reviewing it (and the model told it is held) hear every reason, not only the first one found."""
    scanned = "text reads like an instruction to the assistant (the instruction model) - held for review"
    both = Provenance(untrusted=True, sources=("web_fetch",), reason=scanned)
    assert held_reasons(both) == [scanned, "this session took in untrusted content (web_fetch)"]
    assert held_reasons(Provenance(reason=scanned)) == [scanned]
    assert held_reasons(Provenance(untrusted=True, sources=("web_search", "browse"))) == [
        "this session took in untrusted content (web_search, browse)"
    ]
