"""End to end with ``memory.embeddings.model`` on (the shipped all-MiniLM-L6-v2): a memory that shares no word with
the question reaches the model through a real proxy, found by meaning; never another user's."""

from collections.abc import Iterator

import pytest

from proxy.testing import FakeUpstream

from ..conftest import run_proxy
from ..embedding_model import MODEL, requires_model
from .memory_client import api, ask, close_clients, remember, sdk, sent, user, user_says

pytestmark = requires_model
__all__ = ["close_clients", "user"]

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
LISBON = "I moved to Lisbon last spring"
OTHERS = ["User prefers Python over JavaScript", "Ada's cat is called Biscuit", "Standups are at 9:30 on weekdays"]


@pytest.fixture(scope="module")
def hybrid(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    # A long deadline: a loaded CI box must not make this request a lexical one.
    with run_proxy(
        fake_upstream_server.base_url, {"memory.embeddings": {"model": MODEL, "deadline_ms": 60_000}}
    ) as url:
        yield url


def test_a_memory_sharing_no_word_with_the_question_reaches_the_model(
    hybrid: str, fake_upstream: FakeUpstream, user: str
) -> None:
    lisbon = remember(hybrid, user, LISBON)
    for text in OTHERS:
        remember(hybrid, user, text)
    raw = ask(sdk(hybrid, user), SYSTEM, user_says("Which city do I live in?"))
    assert lisbon in raw.headers["x-memproxy-injected"].split(",")
    block = sent(fake_upstream)[1]["content"]
    assert block.startswith("[Memories]\n") and f"({lisbon}, fact) {LISBON}" in block


def test_search_by_meaning_through_the_api_and_never_anothers_memory(hybrid: str, user: str) -> None:
    lisbon = remember(hybrid, user, LISBON)
    remember(hybrid, f"{user}-other", "I moved to Porto in the autumn")
    found = api(hybrid, user, "GET", "/memory/memories", params={"q": "where is my home"}).json()["memories"]
    assert [m["id"] for m in found] == [lisbon]
    assert "embedding" not in found[0]  # the vector stays in the store


def test_another_user_never_gets_it_by_meaning_either(hybrid: str, fake_upstream: FakeUpstream, user: str) -> None:
    remember(hybrid, user, LISBON)
    raw = ask(sdk(hybrid, f"{user}-other"), SYSTEM, user_says("Which city do I live in?"))
    assert "x-memproxy-injected" not in raw.headers
    assert sent(fake_upstream) == [SYSTEM, user_says("Which city do I live in?")]
