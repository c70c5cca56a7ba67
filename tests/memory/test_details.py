"""The detail store's contract, on every backend: offloaded tool outputs kept per owner, durably, by content."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.memory.backends.detail_files import FilesDetails
from proxy.memory.backends.pg_details import PostgresDetails
from proxy.memory.backends.postgres import Database
from proxy.memory.details import Detail, DetailStore, detail_id
from proxy.memory.store import Owner

pytestmark = pytest.mark.anyio
ADA, BOB = Owner("ada", "default"), Owner("bob", "default")
OUTPUT = "compiled module_1.py\n" * 2000


def detail(owner: Owner, content: str = OUTPUT, **fields: object) -> Detail:
    values = {"tool": "bash", "arguments": '{"cmd": "make"}', "created_at": 1_700_000_000.0, **fields}
    return Detail(detail_id(owner, content), content=content, **values)  # type: ignore[arg-type]


@pytest.fixture(params=["files", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DetailStore]:
    built: DetailStore
    if request.param == "files":
        built = FilesDetails(tmp_path)
    else:
        built = PostgresDetails(Database(request.getfixturevalue("pg_dsn")))
    yield built
    await built.aclose()


async def test_a_detail_comes_back_whole_with_its_tool_and_trust(store: DetailStore) -> None:
    web = detail(ADA, "page text " * 1000, tool="web_fetch", untrusted=True, sources=("web_fetch",), session="s1")
    await store.put(ADA, [detail(ADA), web])
    assert await store.get(ADA, detail(ADA).id) == detail(ADA)
    assert await store.get(ADA, web.id) == web
    assert await store.count(ADA) == 2


async def test_the_same_content_is_stored_once(store: DetailStore) -> None:
    await store.put(ADA, [detail(ADA)])
    await store.put(ADA, [detail(ADA, tool="other")])  # already there under its id: left as it is
    assert (await store.get(ADA, detail(ADA).id)).tool == "bash"  # type: ignore[union-attr]
    assert await store.count(ADA) == 1


async def test_another_owner_never_reads_a_detail(store: DetailStore) -> None:
    await store.put(ADA, [detail(ADA)])
    assert await store.get(BOB, detail(ADA).id) is None
    assert await store.get(Owner("ada", "other"), detail(ADA).id) is None
    assert detail_id(BOB, OUTPUT) != detail_id(ADA, OUTPUT)


async def test_forget_removes_only_the_owners_details(store: DetailStore) -> None:
    await store.put(ADA, [detail(ADA)])
    await store.put(BOB, [detail(BOB)])
    assert await store.forget(ADA) == 1
    assert await store.get(ADA, detail(ADA).id) is None and await store.count(ADA) == 0
    assert await store.get(BOB, detail(BOB).id) == detail(BOB)


async def test_an_id_that_is_not_a_detail_id_finds_nothing(store: DetailStore) -> None:
    assert await store.get(ADA, "../../etc/passwd") is None
    assert await store.get(ADA, "m-1") is None
