"""What a version is, who made it, the tags that name it on the wire, and how a history is settled from what a
store kept (crash leftovers included)."""

from __future__ import annotations

import dataclasses

import pytest

from proxy.errors import InvalidRequest
from proxy.memory import versions
from proxy.memory.caller import Identity
from proxy.memory.records import Memory
from proxy.memory.versions import Actor, Version, etag, history, kept_archive, parse_if_match, restorable

KEYED = Identity("ada", key_id="k-1234", key_kind="personal")


def memory(version: int, text: str = "Ada writes Go", change: str = "edited", memory_id: str = "m-7") -> Memory:
    return Memory(memory_id, text, created=1_700_000_000.0, version=version, change=change, changed=1.7e9 + version)


def test_each_way_in_names_its_actor() -> None:
    assert Actor.person(KEYED, via="console") == Actor("person", key_id="k-1234", via="console")
    assert Actor.of_origin("api", KEYED) == Actor("person", key_id="k-1234", via="api")
    assert Actor.of_origin("cli", KEYED) == Actor("person", key_id="k-1234", via="cli")
    assert Actor.of_origin("tool", KEYED, "s-1") == Actor("model", key_id="k-1234", session="s-1")
    assert Actor.of_origin("extraction", None, "s-1") == Actor("extraction", session="s-1")
    assert Actor.extraction("e-1", "s-1").to_json() == {"kind": "extraction", "session": "s-1", "episode": "e-1"}
    assert Actor.of_origin("import", KEYED) == Actor("import", key_id="k-1234", via="api")
    for actor in (Actor.person(KEYED, via="mcp"), Actor.model("s-2"), Actor.importer(None, via="cli")):
        assert Actor.from_json(actor.to_json()) == actor


@pytest.mark.parametrize("bad", [None, {}, {"kind": "admin"}, {"kind": "person", "key_id": 5}])
def test_a_garbled_actor_does_not_read_back(bad: object) -> None:
    with pytest.raises(ValueError):
        Actor.from_json(bad)


def test_a_record_from_before_versions_reads_as_its_first_version_by_its_origin() -> None:
    old = Memory.from_json({"id": "m-3", "text": "Uses tabs", "ts": "2025-01-02T03:04:05.000Z", "origin": "tool",
                            "session": "s-9"})  # fmt: skip
    assert (old.version, old.change, old.changed_at) == (1, "created", old.created)
    assert old.changed_by == Actor("model", session="s-9")
    assert Version.of(old).to_json()["actor"] == {"kind": "model", "session": "s-9"}


def test_a_stored_line_keeps_what_made_its_version_and_an_answer_says_only_the_version() -> None:
    edited = dataclasses.replace(memory(3), actor=Actor.person(KEYED))
    line = edited.to_json(stored=True)
    assert Memory.from_json(line) == edited
    answer = edited.to_json()
    assert (answer["version"], answer["held"]) == (3, False)
    assert not {"change", "changed", "actor", "embedding"} & set(answer)
    for bad in ({"version": 0}, {"version": True}, {"change": "renamed"}):
        with pytest.raises(ValueError):
            Memory.from_json(line | bad)


def test_if_match_names_versions_of_one_memory() -> None:
    assert etag("m-12", 3) == '"m-12.v3"'
    assert parse_if_match(None) is None
    assert parse_if_match('"m-12.v3"').versions("m-12") == {3}  # type: ignore[union-attr]
    listed = parse_if_match(' "m-12.v3" , "m-12.v4",,"m-9.v1"')
    assert listed is not None and listed.versions("m-12") == {3, 4} and listed.versions("m-9") == {1}
    assert parse_if_match("*").versions("m-12") is None  # type: ignore[union-attr]  # any version
    assert parse_if_match('W/"m-12.v3"').versions("m-12") == set()  # type: ignore[union-attr]  # weak: never
    assert parse_if_match('"something-else"').versions("m-12") == set()  # type: ignore[union-attr]


@pytest.mark.parametrize("bad", ["", "   ", "m-12.v3", '"m-12.v3', '"m-12.v3" x', '*, "m-1.v1"', '"a"b"'])
def test_a_malformed_if_match_is_a_400(bad: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        parse_if_match(bad)
    assert raised.value.status == 400 and raised.value.param == "If-Match"


def test_a_history_is_newest_first_one_per_number_the_last_written_winning() -> None:
    first, second = memory(1, change="created"), memory(2, "Ada writes Go and Rust")
    rewritten = memory(2, "Ada writes Rust")  # the same number written again: the later line wins
    current = memory(3, "Ada writes Zig")
    assert history([first, second, rewritten], current) == [current, rewritten, first]


def test_crash_leftovers_are_not_versions() -> None:
    """A change archives before it writes the record: a crash in between leaves a copy of the current version
    (archived, not yet replaced) or a tombstone newer than the record (a delete that did not happen)."""
    first, current = memory(1, change="created"), memory(2)
    orphan = memory(3, change="deleted")
    assert history([first, current, orphan], current) == [current, first]


def test_a_deleted_memory_s_history_ends_at_its_tombstone_and_a_pruned_one_has_none() -> None:
    first, tombstone = memory(1, change="created"), memory(2, change="deleted")
    assert history([first, tombstone], None) == [tombstone, first]
    assert history([first, memory(2)], None) == []  # no tombstone: what a prune left behind


def test_a_memory_keeps_its_newest_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(versions, "MAX_VERSIONS", 3)
    archived = [memory(n) for n in range(1, 6)]
    assert [m.version for m in history(archived, memory(6))] == [6, 5, 4]
    assert [m.version for m in kept_archive(archived, {"m-7": 6})] == [4, 5]


def test_an_archive_keeps_what_histories_can_show(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(versions, "KEPT_DELETED", 2)
    pruned = [memory(1, change="created", memory_id="m-1")]  # no tombstone, not there: a prune's leftover
    deleted = [
        m
        for n in (2, 3, 4)
        for m in (
            dataclasses.replace(memory(1, change="created", memory_id=f"m-{n}"), changed=float(n)),
            dataclasses.replace(memory(2, change="deleted", memory_id=f"m-{n}"), changed=float(n)),
        )
    ]
    live = [memory(1, change="created", memory_id="m-5"), memory(2, memory_id="m-5")]
    kept = kept_archive([*pruned, *deleted, *live], {"m-5": 3})
    assert [(m.id, m.version) for m in kept] == [("m-3", 1), ("m-3", 2), ("m-4", 1), ("m-4", 2), ("m-5", 1),
                                                 ("m-5", 2)]  # fmt: skip
    assert restorable({"m-2": 2.0, "m-3": 3.0, "m-4": 4.0}) == {"m-3", "m-4"}  # the newest deletes
