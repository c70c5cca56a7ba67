import asyncio
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from proxy.cli import main
from proxy.memory.backends.trust_files import FilesSessionState


def run(tmp_path: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path)], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_add_list_search_and_delete(tmp_path: Path) -> None:
    assert run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada", "--tag", "style") == (0, "m-1\n", "")
    assert run(tmp_path, "memories", "add", "Staging DB is Postgres 16", "--user", "ada")[1] == "m-2\n"
    code, out, _ = run(tmp_path, "memories", "list", "--user", "ada")
    assert code == 0 and out.splitlines() == [
        "m-2\tfact\tStaging DB is Postgres 16",
        "m-1\tfact [style]\tUser prefers tabs",
    ]
    code, out, _ = run(tmp_path, "memories", "search", "which database for staging", "--user", "ada", "--json")
    assert [m["id"] for m in orjson.loads(out)["memories"]] == ["m-2"]
    assert run(tmp_path, "memories", "delete", "m-2", "--user", "ada")[:2] == (0, "deleted m-2\n")
    assert run(tmp_path, "memories", "list", "--user", "bob")[1] == ""


def test_an_unsafe_memory_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, out, err = run(tmp_path, "memories", "add", "my password: hunter2hunter2", "--user", "ada")
    assert code == 2 and err == "memproxy: text appears to contain a secret (a password) - not stored\n"
    assert run(tmp_path, "memories", "list", "--user", "ada")[1] == ""


def test_a_command_needs_to_know_whose_memories(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, "memories", "list")
    assert code == 2 and "--user" in err


def test_an_api_key_names_the_same_user_the_proxy_derives(tmp_path: Path) -> None:
    from proxy.auth.identity import identify

    run(tmp_path, "memories", "add", "User prefers tabs", "--api-key", "sk-abc")
    user = identify([(b"authorization", b"Bearer sk-abc")]).user  # type: ignore[union-attr]
    assert "User prefers tabs" in run(tmp_path, "memories", "list", "--user", user)[1]


def test_export_and_import_report_bad_lines(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada")
    exported = run(tmp_path, "memories", "export", "--user", "ada")[1]
    code, out, err = run(tmp_path, "memories", "import", "-", "--user", "bob", input=exported + "{oops\n")
    assert code == 0 and out == "imported 1, skipped 1\n" and err.startswith("line 2: not valid JSON")
    assert "User prefers tabs" in run(tmp_path, "memories", "list", "--user", "bob")[1]


def test_held_lists_what_waits_for_approval_and_approve_lets_it_through(tmp_path: Path) -> None:
    planted = "The user switched banks to Northwind Credit Union"
    held = {"text": planted, "untrusted": True, "sources": ["web_fetch"], "session": "s1"}
    line = orjson.dumps(held).decode() + "\n"
    assert run(tmp_path, "memories", "import", "-", "--user", "ada", input=line)[1] == "imported 1, skipped 0\n"
    assert run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada")[1] == "m-2\n"
    assert run(tmp_path, "memories", "held", "--user", "ada") == (
        0,
        "m-1\tfact\tfrom web_fetch (import, session s1)\tThe user switched banks to Northwind Credit Union\n",
        "",
    )
    assert run(tmp_path, "memories", "held", "--user", "bob")[1] == ""
    assert run(tmp_path, "memories", "list", "--user", "ada")[1] == "m-2\tfact\tUser prefers tabs\n"
    code, _, err = run(tmp_path, "memories", "approve", "m-1", "--user", "bob")
    assert code == 2 and "no memory 'm-1' here" in err
    assert run(tmp_path, "memories", "approve", "m-1", "--user", "ada")[:2] == (0, "approved m-1\n")
    assert run(tmp_path, "memories", "held", "--user", "ada")[1] == ""
    listed = orjson.loads(run(tmp_path, "memories", "list", "--user", "ada", "--json")[1])["memories"]
    assert [(m["id"], m["origin"], m["untrusted"], m["user_approved"]) for m in listed] == [
        ("m-2", "cli", False, False),
        ("m-1", "import", True, True),
    ]


def test_the_cli_imports_past_max_import_lines(tmp_path: Path) -> None:
    lines = "".join(orjson.dumps({"text": f"User fact {n}"}).decode() + "\n" for n in range(3))
    result = CliRunner().invoke(
        main,
        ["memories", "import", "-", "--user", "ada", "--data-dir", str(tmp_path)],
        input=lines,
        env={"MEMPROXY_MEMORY_MAX_IMPORT_LINES": "2"},
    )
    assert (result.exit_code, result.stdout) == (0, "imported 3, skipped 0\n")


def test_the_cli_imports_an_export_twice_without_duplicating_it(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada")
    _, exported, _ = run(tmp_path, "memories", "export", "--user", "ada")
    assert run(tmp_path, "memories", "import", "-", "--user", "bob", input=exported)[1] == "imported 1, skipped 0\n"
    again = run(tmp_path, "memories", "import", "-", "--user", "bob", input=exported)
    assert again[1] == "imported 0, unchanged 1 (already there), skipped 0\n"
    assert len(run(tmp_path, "memories", "export", "--user", "bob")[1].splitlines()) == 1


def test_forget_all_asks_first(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada")
    code, _, _ = run(tmp_path, "memories", "forget-all", "--user", "ada", input="n\n")
    assert code == 1 and run(tmp_path, "memories", "list", "--user", "ada")[1]
    assert (
        run(tmp_path, "memories", "forget-all", "--user", "ada", "--yes")[1]
        == "deleted 1 memories, 0 episodes, 0 pending jobs, 0 history lines, 0 memory files\n"
    )
    assert run(tmp_path, "memories", "list", "--user", "ada")[1] == ""


def test_forget_all_removes_the_users_session_taints_too(tmp_path: Path) -> None:
    """What the proxy kept of the user's untrusted sessions (proxy.memory.backends.trust_files) is theirs too."""
    state = FilesSessionState(tmp_path)
    asyncio.run(state.add_taint(("ada", "default"), "s1", ["web_fetch"]))
    asyncio.run(state.add_taint(("bob", "default"), "s1", ["web_fetch"]))
    assert run(tmp_path, "memories", "forget-all", "--user", "ada", "--yes")[0] == 0
    assert asyncio.run(FilesSessionState(tmp_path).taint(("ada", "default"), "s1")) == ()
    assert asyncio.run(FilesSessionState(tmp_path).taint(("bob", "default"), "s1")) == ("web_fetch",)


def test_the_demo_shows_a_memory_stored_injected_and_recalled() -> None:
    result = CliRunner().invoke(main, ["demo"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'proxy > the model called memory_store({"text":"Ada indents Python with tabs' in out
    assert 'the proxy ran it -> {"ok":true,"id":"m-1"}' in out
    assert "proxy > injected m-1 (x-memproxy-injected)" in out
    assert "[1] system    [Memories]" in out
    assert "model > Tabs: you told me before that you indent Python with tabs (m-1)." in out
    bob = out.split("== Another user asks the same ==")[1]
    assert "proxy > nothing injected" in bob and "m-1" not in bob


@pytest.mark.parametrize("command", [["list"], ["search", "tabs"]])
@pytest.mark.parametrize("limit", ["0", "-5", "101"])
def test_a_limit_out_of_range_is_one_line_and_exit_2(tmp_path: Path, command: list[str], limit: str) -> None:
    code, out, err = run(tmp_path, "memories", *command, "--user", "ada", "--limit", limit)
    assert (code, out) == (2, "") and err == f"memproxy: --limit must be from 1 to 100, got {limit}\n"


def test_a_limit_inside_the_range_is_honoured(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "User prefers tabs", "--user", "ada")
    run(tmp_path, "memories", "add", "Staging DB is Postgres 16", "--user", "ada")
    assert len(run(tmp_path, "memories", "list", "--user", "ada", "--limit", "1")[1].splitlines()) == 1


def test_pin_list_edit_and_unpin_pinned_facts(tmp_path: Path) -> None:
    assert run(tmp_path, "memories", "pin", "Ada writes Go", "--scope", "user", "--user", "ada")[:2] == (0, "m-1\n")
    assert run(tmp_path, "memories", "add", "Deploys go to Fly.io", "--pin", "--user", "ada")[:2] == (0, "m-2\n")
    code, out, _ = run(tmp_path, "memories", "pinned", "--user", "ada")
    assert code == 0 and out.splitlines() == [
        "the user's profile: 13 of 1200 characters (memory.pinned_user_chars)",
        "m-1\tfact\tAda writes Go",
        "the workspace's environment: 20 of 800 characters (memory.pinned_env_chars)",
        "m-2\tfact\tDeploys go to Fly.io",
    ]
    code, _, err = run(tmp_path, "memories", "pin", "ada writes go", "--scope", "user", "--user", "ada")
    assert code == 2 and err.startswith("memproxy: already pinned as m-1")
    assert run(tmp_path, "memories", "pin", "x" * 450, "--user", "ada")[0] == 0
    assert run(tmp_path, "memories", "pin", "y" * 400, "--user", "ada")[0] == 2  # 20 + 450 + 400 > 800
    assert run(tmp_path, "memories", "edit", "m-2", "--text", "Deploys go to Fly.io from main", "--user", "ada")[
        :2
    ] == (
        0,
        "edited m-2 (pinned)\n",
    )
    assert run(tmp_path, "memories", "unpin", "m-1", "--user", "ada")[:2] == (0, "unpinned m-1\n")
    code, out, _ = run(tmp_path, "memories", "pinned", "--user", "ada", "--json")
    listed = orjson.loads(out)
    assert listed["user"]["memories"] == []
    assert [m["text"] for m in listed["workspace"]["memories"]][0] == "Deploys go to Fly.io from main"
    assert run(tmp_path, "memories", "edit", "m-2", "--user", "ada")[0] == 2  # nothing to edit


def test_versions_list_every_change_and_restore_undoes_a_delete(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "Ada deploys with Fabric", "--user", "ada")
    run(tmp_path, "memories", "edit", "m-1", "--text", "Ada deploys with Ansible", "--user", "ada")
    assert run(tmp_path, "memories", "delete", "m-1", "--user", "ada")[:2] == (0, "deleted m-1\n")

    code, out, _ = run(tmp_path, "memories", "versions", "m-1", "--user", "ada")
    lines = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and [(v, change, by, text) for v, _, change, by, text in lines] == [
        ("v3", "deleted", "person via=cli", "Ada deploys with Ansible"),
        ("v2", "edited", "person via=cli", "Ada deploys with Ansible"),
        ("v1", "created", "person via=cli", "Ada deploys with Fabric"),
    ]
    assert run(tmp_path, "memories", "restore", "m-1", "--version", "1", "--user", "ada")[:2] == (
        0,
        "restored m-1 to version 1 (now version 4)\n",
    )
    assert run(tmp_path, "memories", "list", "--user", "ada")[1] == "m-1\tfact\tAda deploys with Fabric\n"
    versions = orjson.loads(run(tmp_path, "memories", "versions", "m-1", "--user", "ada", "--json")[1])
    assert [v["change"] for v in versions["versions"]] == ["restored", "deleted", "edited", "created"]
    assert versions["versions"][0]["actor"] == {"kind": "person", "via": "cli"}


def test_a_version_that_is_not_there_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run(tmp_path, "memories", "add", "Ada deploys with Fabric", "--user", "ada")
    code, _, err = run(tmp_path, "memories", "restore", "m-1", "--version", "5", "--user", "ada")
    assert code == 2 and err.startswith("memproxy: m-1 has no version 5") and len(err.splitlines()) == 1
    assert run(tmp_path, "memories", "versions", "m-1", "--user", "bob")[0] == 2  # not Bob's
    assert run(tmp_path, "memories", "restore", "m-1", "--version", "0", "--user", "ada")[0] == 2


def test_a_memproxy_key_names_its_user_without_auth_mode_set(tmp_path: Path) -> None:
    """`--api-key mp-...` is a memproxy key whatever `auth.mode` the CLI was given: its user's memories."""
    created = run(tmp_path, "keys", "create", "--user", "ada")[1]
    [key] = [word for word in created.split() if word.startswith("mp-")]
    assert run(tmp_path, "memories", "add", "Ada deploys on Fridays", "--user", "ada")[0] == 0
    code, out, err = run(tmp_path, "memories", "list", "--api-key", key)
    assert (code, err) == (0, "") and "Ada deploys on Fridays" in out
    assert run(tmp_path, "memories", "add", "Ada uses tabs", "--api-key", key)[0] == 0
    assert "Ada uses tabs" in run(tmp_path, "memories", "list", "--user", "ada")[1]


@pytest.mark.parametrize("command", [["list"], ["add", "Ada deploys on Fridays"]])
def test_an_unknown_or_revoked_memproxy_key_is_refused_and_writes_nothing(tmp_path: Path, command: list[str]) -> None:
    created = run(tmp_path, "keys", "create", "--user", "ada")[1]
    [key_id] = [word for word in created.split() if word.startswith("k-")]
    [key] = [word for word in created.split() if word.startswith("mp-")]
    assert run(tmp_path, "keys", "revoke", key_id)[0] == 0
    unknown = "mp-" + "a" * (len(key) - 3)
    for refused in (unknown, key):
        code, out, err = run(tmp_path, "memories", *command, "--api-key", refused)
        assert (code, out) == (2, "") and "unknown or revoked memproxy key" in err
    assert not list(tmp_path.rglob("memories.jsonl"))  # no user was made up for it
