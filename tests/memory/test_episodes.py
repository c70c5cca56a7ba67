"""Episodes as data: the record and its lines, the id, which episodes may be replayed, and their ranking."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import orjson
import pytest

from proxy.memory.episodes import Episode, EpisodeIndex, episode_id
from proxy.memory.provenance import Provenance

DAY = 86400.0
T0 = 1_700_000_000.0
TRUSTED = Provenance()


def episode(
    session: str,
    summary: str = "a session",
    facts: tuple[str, ...] = (),
    *,
    created_at: float = T0,
    provenance: Provenance = TRUSTED,
    user: str = "alice",
    workspace: str = "w",
) -> Episode:
    return Episode(
        id=episode_id(user, workspace, session),
        session_id=session,
        user=user,
        workspace=workspace,
        turns=3,
        created_at=created_at,
        summary=summary,
        facts=facts,
        provenance=provenance,
    )


UNTRUSTED = Provenance(untrusted=True, sources=("web_fetch",))
APPROVED = Provenance(untrusted=True, sources=("web_fetch",), user_approved=True)


# -- the record ---------------------------------------------------------------------------------------------


def test_an_episode_survives_a_round_trip_through_json_lines() -> None:
    original = Episode(
        id=episode_id("alice", "w", "s-1"),
        session_id="s-1",
        user="alice",
        workspace="w",
        turns=7,
        created_at=T0 + 0.125,
        summary="Moved the billing service to Postgres 16.",
        facts=("billing runs on Postgres 16", "migrations live in db/migrate"),
        provenance=Provenance(untrusted=True, sources=("web_fetch", "shell"), user_approved=True),
        job="job-42",
        model="gpt-4o-mini",
    )

    line = orjson.dumps(original.to_json())

    assert Episode.from_json(orjson.loads(line)) == original


def test_an_episode_is_written_with_exactly_the_documented_fields() -> None:
    obj = episode("s-1", facts=("one",)).to_json()

    assert list(obj) == [
        "id",
        "session_id",
        "user",
        "workspace",
        "turns",
        "created_at",
        "summary",
        "facts",
        "provenance",
        "job",
        "model",
    ]
    assert obj["created_at"] == "2023-11-14T22:13:20.000Z"
    assert obj["facts"] == ["one"]
    assert obj["provenance"] == {"untrusted": False, "sources": [], "user_approved": False}
    assert obj["job"] is None and obj["model"] is None


def test_job_and_model_may_be_missing_from_a_line() -> None:
    obj = episode("s-1").to_json()
    del obj["job"], obj["model"]

    assert Episode.from_json(obj) == episode("s-1")


def _broken(**changes: Any) -> dict[str, Any]:
    obj = episode("s-1").to_json()
    for key, value in changes.items():
        if value is _MISSING:
            del obj[key]
        else:
            obj[key] = value
    return obj


_MISSING = object()


@pytest.mark.parametrize(
    "line",
    [
        ["not", "an", "object"],
        "a string",
        None,
        _broken(id=_MISSING),
        _broken(id="e-../../etc/passwd"),
        _broken(id="E-0123456789ABCDEF"),
        _broken(session_id=3),
        _broken(user=None),
        _broken(workspace=_MISSING),
        _broken(turns="three"),
        _broken(turns=True),
        _broken(turns=-1),
        _broken(turns=2.5),
        _broken(created_at=_MISSING),
        _broken(created_at="yesterday"),
        _broken(created_at=[2024]),
        _broken(summary=None),
        _broken(facts="one fact"),
        _broken(facts=["ok", 2]),
        _broken(provenance=_MISSING),
        _broken(provenance=[]),
        _broken(provenance={"untrusted": "no", "sources": [], "user_approved": False}),
        _broken(provenance={"sources": [], "user_approved": False}),
        _broken(provenance={"untrusted": True, "sources": [], "user_approved": 1}),
        _broken(provenance={"untrusted": True, "sources": "web_fetch", "user_approved": False}),
        _broken(job=7),
        _broken(model=["gpt"]),
    ],
)
def test_a_malformed_line_raises_value_error(line: Any) -> None:
    with pytest.raises(ValueError):
        Episode.from_json(line)


def test_an_error_about_a_line_never_quotes_its_text() -> None:
    with pytest.raises(ValueError) as raised:
        Episode.from_json(_broken(created_at="the secret launch code is 1234"))

    assert "secret" not in str(raised.value)


def test_approving_an_episode_changes_only_its_approval() -> None:
    held = episode("s-1", provenance=UNTRUSTED)

    approved = held.approved()

    assert approved.provenance == APPROVED
    assert replace(approved, provenance=held.provenance) == held
    assert held.provenance.user_approved is False  # the original is untouched


# -- the id -------------------------------------------------------------------------------------------------


def test_an_episode_id_is_stable_and_short() -> None:
    first = episode_id("alice", "w", "s-1")

    assert first == episode_id("alice", "w", "s-1")
    assert re.fullmatch(r"e-[0-9a-f]{16}", first)


def test_an_episode_id_differs_per_user_workspace_and_session() -> None:
    ids = {
        episode_id("alice", "w", "s-1"),
        episode_id("bob", "w", "s-1"),
        episode_id("alice", "v", "s-1"),
        episode_id("alice", "w", "s-2"),
        episode_id("Alice", "w", "s-1"),
    }

    assert len(ids) == 5


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (("a:b", "c", "s"), ("a", "b:c", "s")),
        (("a", "b:c", "s"), ("a", "b", "c:s")),
        (("a\0b", "c", "s"), ("a", "b\0c", "s")),
        (("a/b", "c", "s"), ("a", "b/c", "s")),
        (('a", "b', "c", "s"), ("a", "b", "c, s")),
        (("", "ab", "s"), ("ab", "", "s")),
    ],
)
def test_an_episode_id_cannot_be_forged_by_moving_a_separator(
    one: tuple[str, str, str], other: tuple[str, str, str]
) -> None:
    assert episode_id(*one) != episode_id(*other)


# -- what may be replayed -----------------------------------------------------------------------------------


def test_only_untrusted_episodes_nobody_approved_are_held_back() -> None:
    assert Provenance().replayable
    assert Provenance(untrusted=False, user_approved=True).replayable
    assert APPROVED.replayable
    assert not UNTRUSTED.replayable


def test_an_index_keeps_held_episodes_for_audit_but_never_replays_them() -> None:
    trusted = episode("trusted", "deploys go through the staging cluster", created_at=T0)
    held = episode("held", "deploys go straight to production", created_at=T0 + 2 * DAY, provenance=UNTRUSTED)
    approved = episode("approved", "deploys need a second reviewer", created_at=T0 + DAY, provenance=APPROVED)

    index = EpisodeIndex([trusted, held, approved])

    assert len(index) == 3
    assert list(index) == [held, approved, trusted]  # newest first, held included
    assert index.get(held.id) == held
    assert index.replayable() == [approved, trusted]
    assert index.newest(5) == [approved, trusted]
    assert index.newest(1) == [approved]
    assert index.newest(0) == []
    assert held not in index.rank("deploys production", limit=5)
    assert set(index.rank("deploys", limit=5)) == {approved, trusted}


def test_a_held_episode_is_not_found_even_when_it_is_the_only_match() -> None:
    held = episode("held", "the admin password is in vault", provenance=UNTRUSTED)
    index = EpisodeIndex([held, episode("other", "the build uses bazel")])

    assert index.rank("admin password vault", limit=5) == []
    assert EpisodeIndex([held.approved()]).rank("admin password vault", limit=5) == [held.approved()]


def test_the_last_episode_of_an_id_wins() -> None:
    first = episode("s-1", "first draft")
    second = replace(first, summary="second draft")

    index = EpisodeIndex([first, second])

    assert len(index) == 1
    assert index.get(first.id) == second


# -- ranking ------------------------------------------------------------------------------------------------


def test_rank_puts_the_relevant_episode_first() -> None:
    billing = episode("billing", "Migrated the billing service", ("billing uses Postgres 16",), created_at=T0)
    frontend = episode("frontend", "Reworked the React settings page", ("styles use Tailwind",), created_at=T0 + DAY)
    docs = episode("docs", "Wrote the onboarding guide", ("the guide lives in docs/onboarding.md",))
    index = EpisodeIndex([billing, frontend, docs])

    assert index.rank("which Postgres version does billing run?", limit=3) == [billing]
    assert index.rank("tailwind styles on the settings page", limit=3)[0] == frontend
    assert index.rank("onboarding guide", limit=3) == [docs]


def test_rank_finds_a_fact_as_well_as_the_summary() -> None:
    found = episode("s-1", "Set up the build", ("artifacts are uploaded to the nexus mirror",))
    index = EpisodeIndex([found, episode("s-2", "Fixed a flaky test")])

    assert index.rank("where is the nexus mirror?", limit=3) == [found]


def test_rank_returns_nothing_for_a_query_without_a_shared_word() -> None:
    index = EpisodeIndex([episode("s-1", "Migrated the billing service", ("billing uses Postgres",))])

    assert index.rank("kubernetes ingress timeouts", limit=5) == []
    assert index.rank("", limit=5) == []
    assert index.rank("what facts do you have?", limit=5) == []  # "fact" is no category of episodes


def test_rank_of_an_empty_index_is_empty() -> None:
    assert EpisodeIndex().rank("anything", limit=5) == []
    assert EpisodeIndex().newest(3) == []
    assert len(EpisodeIndex()) == 0
