"""The memory tool's commands answer as Anthropic's reference implementation does, word for word.

The reference (``BetaLocalFilesystemMemoryTool`` from the installed ``anthropic`` SDK) runs each command on a real
directory; ours on the snapshot the store holds. The same script goes through both, errors included, and every
result text must be the same (a directory's size in a listing is what a local disk says; ours is a disk's usual
4K, so the reference's is read as 4K where its filesystem says otherwise).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.tools import ToolError
from anthropic.tools.memory import BetaLocalFilesystemMemoryTool

from proxy.memory.file_commands import CommandError, file_size, run_command
from proxy.memory.file_paths import PathError, resolve

NOTES = "User likes tea\nand cake\n"
SCRIPT: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "create", "path": "/memories/notes.md", "file_text": NOTES},
    {"command": "create", "path": "/memories/notes.md", "file_text": "again"},
    {"command": "view", "path": "/memories/notes.md"},
    {"command": "view", "path": "/memories/notes.md", "view_range": [2, -1]},
    {"command": "view", "path": "/memories/notes.md", "view_range": [1, 1]},
    {"command": "view", "path": "/memories/notes.md", "view_range": [0, 9]},
    {"command": "str_replace", "path": "/memories/notes.md", "old_str": "tea", "new_str": "green tea"},
    {"command": "str_replace", "path": "/memories/notes.md", "old_str": "coffee", "new_str": "tea"},
    {"command": "str_replace", "path": "/memories/notes.md", "old_str": "e", "new_str": "E"},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": 0, "insert_text": "# Likes\n"},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": 3, "insert_text": "and scones"},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": 9, "insert_text": "too far"},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": -1, "insert_text": "before"},
    {"command": "view", "path": "/memories/notes.md"},
    {"command": "create", "path": "/memories/projects/alpha/spec.md", "file_text": "Alpha ships in May.\r\nRust."},
    {"command": "create", "path": "/memories/projects/alpha/deep/x.md", "file_text": "three levels down"},
    {"command": "create", "path": "/memories/projects/b.txt", "file_text": "héllo wörld ✓\n" * 90},
    {"command": "create", "path": "/memories/.hidden", "file_text": "not listed"},
    {"command": "create", "path": "/memories/empty.md", "file_text": ""},
    {"command": "create", "path": "/memories/a/../tidy.md", "file_text": "normalised"},
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/projects"},
    {"command": "view", "path": "/memories/projects/b.txt", "view_range": [89, 91]},
    {"command": "view", "path": "/memories/empty.md"},
    {"command": "str_replace", "path": "/memories/projects", "old_str": "a", "new_str": "b"},
    {"command": "insert", "path": "/memories/missing.md", "insert_line": 0, "insert_text": "x"},
    {"command": "view", "path": "/memories/missing.md"},
    {"command": "rename", "old_path": "/memories/projects/b.txt", "new_path": "/memories/archive/b.txt"},
    {"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/tidy.md"},
    {"command": "rename", "old_path": "/memories/nothing.md", "new_path": "/memories/something.md"},
    {"command": "rename", "old_path": "/memories/projects", "new_path": "/memories/old/projects"},
    {"command": "rename", "old_path": "/memories", "new_path": "/memories/elsewhere"},
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/old/projects/alpha/spec.md"},
    {"command": "delete", "path": "/memories/archive/b.txt"},
    {"command": "delete", "path": "/memories/old"},
    {"command": "delete", "path": "/memories/old"},
    {"command": "delete", "path": "/memories"},
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/etc/passwd"},
    {"command": "create", "path": "/memories/../etc/cron.d/x", "file_text": "* * * * * root sh"},
    {"command": "view", "path": "/memories/../../root"},
    {"command": "delete", "path": "/tmp/x"},
]


def reference(tool: BetaLocalFilesystemMemoryTool, arguments: dict[str, Any]) -> tuple[str, bool]:
    try:
        return str(tool.call(arguments)), False
    except ToolError as exc:
        return str(exc), True


def local_directory_size(text: str, root: Path) -> str:
    """The reference's listing with the size a local disk gives directories read as the usual 4K."""
    size = file_size(os.stat(root).st_size)
    if size == "4K":
        return text
    return re.sub(rf"^{re.escape(size)}\t(/memories(?:/[^\n]*/)?)$", r"4K\t\1", text, flags=re.M)


def test_every_command_answers_as_the_reference_implementation(tmp_path: Path) -> None:
    tool = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path))
    tree: dict[str, str] = {}
    for step, arguments in enumerate(SCRIPT):
        expected, failed = reference(tool, dict(arguments))
        expected = local_directory_size(expected, tmp_path / "memories")
        try:
            outcome = run_command(tree, arguments)
        except CommandError as exc:
            assert (str(exc), True) == (expected, failed), f"step {step}: {arguments}"
            continue
        assert (outcome.text, False) == (expected, failed), f"step {step}: {arguments}"
        for key, text in outcome.changes.items():
            if text is None:
                tree.pop(key, None)
            else:
                tree[key] = text
    on_disk = {
        "/" + str(path.relative_to(tmp_path)): path.read_bytes().decode()
        for path in (tmp_path / "memories").rglob("*")
        if path.is_file()
    }
    assert {key: text for key, text in tree.items() if not key.endswith("/")} == on_disk  # the same texts
    directories = {"/" + str(p.relative_to(tmp_path)) + "/" for p in (tmp_path / "memories").rglob("*") if p.is_dir()}
    assert {key for key in tree if key.endswith("/")} == directories  # and the same directories, empty ones too


@pytest.mark.parametrize(
    "path",
    [
        "/memoriesX/notes.md",  # the reference reads it as /memories/X/notes.md
        "/memories/%2e%2e/%2e%2e/etc/passwd",
        "/memories/%252e%252e/x",
        "/memories/..%2fx",
        "/memories/..\\..\\x",
        "/memories/．．/x",  # full-width dots: NFKC folds them into ..
        "/memories/a／b",  # a full-width solidus
        "/memories/~/.ssh/id_rsa",
        "/memories/a\x00b",
        "/memories/a\nb",
        "memories/notes.md",
        "",
    ],
)
def test_paths_that_could_mean_something_else_later_are_refused(path: str) -> None:
    with pytest.raises(PathError):
        resolve(path)
    with pytest.raises(CommandError):
        run_command({}, {"command": "create", "path": path, "file_text": "x"})


def test_dots_inside_memories_are_read_as_the_reference_reads_them() -> None:
    assert resolve("/memories/a/./b/../c.md").key == "/memories/a/c.md"
    assert resolve("/memories//x//").key == "/memories/x"
    assert resolve("/memories/a/..").is_root
    for escaping in ("/memories/..", "/memories/a/../../b"):  # /memories/.. is the reference's base: outside
        with pytest.raises(PathError, match="would escape /memories directory"):
            resolve(escaping)


def test_a_file_cannot_stand_where_a_directory_is_needed() -> None:
    tree = {"/memories/a": "a file"}
    with pytest.raises(CommandError, match="/memories/a is a file"):
        run_command(tree, {"command": "create", "path": "/memories/a/b.md", "file_text": "x"})
    with pytest.raises(CommandError, match="into itself"):
        run_command(
            {"/memories/d/x": "1"}, {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/e"}
        )


def test_bad_arguments_are_errors_the_model_can_read() -> None:
    tree = {"/memories/a.md": "x\n"}
    for arguments, message in [
        ({}, "Missing `command` parameter"),
        ({"command": "rm"}, "Unknown command: rm"),
        ({"command": "create", "path": "/memories/b.md"}, "Missing required parameter `file_text`"),
        ({"command": "view", "path": 3}, "Invalid `path` parameter"),
        ({"command": "insert", "path": "/memories/a.md", "insert_line": "1", "insert_text": "y"}, "`insert_line`"),
        ({"command": "view", "path": "/memories/a.md", "view_range": "1-2"}, "`view_range`"),
    ]:
        with pytest.raises(CommandError, match=re.escape(message)):
            run_command(tree, arguments)
