"""NUL characters against PostgreSQL, which refuses them in jsonb and text: stored as U+FFFD, never an error; and a
history line a store refuses for what it holds is dropped alone, never holding back the lines behind it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest

from proxy.config import HistorySettings
from proxy.errors import UnstorableInput
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.backends.pg_sessions import PostgresSessionState
from proxy.memory.backends.postgres import Database, jsonb_text, without_nul
from proxy.memory.history import HistoryLine
from proxy.memory.history_service import HistoryService
from proxy.memory.store import Owner

pytestmark = pytest.mark.anyio
ADA = Owner("ada", "w")


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("a\x00b", "a\ufffdb"),
        ("a\\u0000", "a\\u0000"),  # a backslash and 'u0000' typed out: text, kept as it is
        ("\\\x00", "\\\ufffd"),
        ({"k\x00": ["x\x00"]}, {"k\ufffd": ["x\ufffd"]}),
    ],
)
def test_jsonb_gets_each_nul_as_the_replacement_character_and_nothing_else_changes(
    value: object, stored: object
) -> None:
    assert orjson.loads(jsonb_text(value)) == stored
    assert jsonb_text("plain") == '"plain"'


def test_a_text_column_gets_the_replacement_character() -> None:
    assert without_nul("call_\x00id") == "call_\ufffdid" and without_nul("call_1") == "call_1"


async def test_session_state_and_kept_turns_with_a_nul_are_written(pg_dsn: str) -> None:
    state = PostgresSessionState(Database(pg_dsn), ttl_s=60)
    try:
        await state.put(("ada", "w", "s1"), {"block": "a memory with \x00 in it"})  # type: ignore[arg-type]
        await state.keep_turn(("ada", "w"), "s1", ["call_\x00a"], {"text": "kept \x00 turn"})
        assert await state.get(("ada", "w", "s1")) == {"block": "a memory with \ufffd in it"}
        assert await state.kept_turns(("ada", "w"), "s1") == {"call_\ufffda": {"text": "kept \ufffd turn"}}
    finally:
        await state.aclose()


class RefusingHistory(FilesHistory):
    """A store that can never hold a line saying BAD, and refuses a batch holding one (as PostgreSQL did a NUL)."""

    async def append(self, owner: Owner, lines: Sequence[HistoryLine]) -> int:
        if any("BAD" in line.text for line in lines):
            raise UnstorableInput("refused")
        return await super().append(owner, lines)


async def test_a_line_the_store_refuses_is_dropped_alone_and_the_lines_behind_it_are_kept(tmp_path: Path) -> None:
    service = HistoryService(RefusingHistory(tmp_path), HistorySettings())
    said = [HistoryLine("s1", n, "user", 1000.0 + n, text) for n, text in enumerate(["one", "BAD two", "three"], 1)]
    service.note(ADA, lambda: said)
    await service.flush()
    service.note(ADA, lambda: [HistoryLine("s1", 4, "user", 1004.0, "four")])
    await service.flush()
    kept = [line.text for line in (await service.store.view(ADA)).lines]
    assert kept == ["one", "three", "four"]
    assert service.metrics.registry.get_sample_value("memproxy_history_lines_total", {"outcome": "dropped"}) == 1
    await service.aclose()
