"""End to end: an extracted fact in the middle similarity band is judged by the extraction model, through the
extraction process and litellm to the upstream, in the background job; "update" supersedes, and a memory the
user stated through the API is never superseded by an extracted fact."""

from collections.abc import Iterator

import pytest

from proxy.episodes.judgement import JUDGEMENT_PROMPT
from proxy.testing import FakeUpstream, Reply, extraction_reply, is_judgement

from ..conftest import run_proxy
from .episode_client import Chat, Model, end, fake, fake_server, memories, settled_episodes, the_session
from .memory_client import close_clients, remember, sdk, user

__all__ = ["close_clients", "user", "fake", "fake_server"]  # fixtures, in this module's namespace

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
NOMAD = "The billing service is deployed with Nomad"
KUBERNETES = "The billing service is now deployed with Kubernetes on GKE"


@pytest.fixture(scope="module")
def proxy(fake_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_server.base_url) as url:
        yield url


def session_teaching(url: str, user: str, model: Model, fact: str, episodes: int) -> None:
    """A new three-turn session (its opening names its number) whose extraction yields ``fact``; returns once the
    user has ``episodes`` episodes and no job left (its judgement done)."""
    model.extract = lambda transcript: extraction_reply("The user talked about billing.", [fact])
    chat = Chat(sdk(url, user), SYSTEM)
    for said in (f"Let us talk about billing, part {episodes}.", "Here is what changed.", "Thanks."):
        chat.say(said)
    end(url, user, the_session(url, user)["id"])
    settled_episodes(url, user, count=episodes)


def judgement_calls(fake: FakeUpstream) -> list[dict]:
    return [r.json for r in fake.requests if isinstance(r.json, dict) and is_judgement(r.json)]


def test_an_update_judged_by_the_extraction_model_supersedes_the_old_fact(
    proxy: str, fake: FakeUpstream, user: str
) -> None:
    asked: list[tuple[str, str]] = []

    def judge(new: str, existing: str) -> str:
        asked.append((new, existing))
        return "update"

    model = Model(fake, judge=judge)
    session_teaching(proxy, user, model, NOMAD, episodes=1)
    session_teaching(proxy, user, model, KUBERNETES, episodes=2)

    assert [m["text"] for m in memories(proxy, user)] == [KUBERNETES]
    assert asked == [(KUBERNETES, NOMAD)]
    (call,) = judgement_calls(fake)
    assert call["model"] == "fake-model" and call["response_format"] == {"type": "json_object"}
    assert call["messages"][0] == {"role": "system", "content": JUDGEMENT_PROMPT}


def test_a_fact_the_user_stated_is_never_superseded_by_an_extracted_one(
    proxy: str, fake: FakeUpstream, user: str
) -> None:
    model = Model(fake, judge=lambda new, existing: "update")
    stated = remember(proxy, user, NOMAD)
    session_teaching(proxy, user, model, KUBERNETES, episodes=1)

    assert len(judgement_calls(fake)) == 1
    kept = {m["text"]: m for m in memories(proxy, user)}
    assert set(kept) == {NOMAD, KUBERNETES} and kept[NOMAD]["id"] == stated


def test_an_unreadable_judgement_keeps_both(proxy: str, fake: FakeUpstream, user: str) -> None:
    model = Model(fake)
    model.judge = lambda new, existing: "different"
    session_teaching(proxy, user, model, NOMAD, episodes=1)
    fake.respond_with(lambda body: Reply("I think it is an update.") if is_judgement(body) else model(body))
    session_teaching(proxy, user, model, KUBERNETES, episodes=2)

    assert sorted(m["text"] for m in memories(proxy, user)) == sorted([NOMAD, KUBERNETES])
