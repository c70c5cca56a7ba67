"""The memory tool's commands over a snapshot of one owner's ``/memories`` directory. Pure.

``run_command(tree, arguments)`` answers with the result text and the files it changes, or raises
:class:`CommandError` with the error text: both word for word those of Anthropic's reference implementation
(``anthropic.tools.memory.BetaLocalFilesystemMemoryTool``, anthropic-sdk-python 2.15), which models are trained on:
``File created successfully at: /memories/notes.md``, ``The path /memories/x does not exist. Please provide a
valid path.``, the listing two levels deep with sizes, a file with its line numbers right-aligned in six columns
and a tab. Where the reference fails with an operating-system error a model cannot read (a file where a directory
should be, a directory moved into itself, a missing argument), the error here says so in words.

A directory is what some key lies under (:mod:`.file_paths`): the files in it, or the marker ``create`` and
``rename`` leave for each directory they make, so that it outlives its last file as on a disk. A listing shows a
directory with the size it has on a local disk (``4K``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .file_paths import ROOT, MemoryPath, PathError, is_marker, marker, resolve, under

MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
DIRECTORY_BYTES = 4096  # a directory's size on a local disk, as the reference's listing shows it
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")

Tree = Mapping[str, str]  # key -> text (a directory's marker: "")


class CommandError(Exception):
    """The command cannot be carried out; the message is the tool result the model reads (``is_error``)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    text: str  # the tool result
    changes: dict[str, str | None] = field(default_factory=dict)  # key -> new text; None: the file is deleted
    paths: tuple[MemoryPath, ...] = ()  # the paths the command named


def run_command(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    command = arguments.get("command")
    handler = _COMMANDS.get(command) if isinstance(command, str) else None
    if handler is None:
        raise CommandError(f"Unknown command: {command}" if command is not None else "Missing `command` parameter")
    try:
        return handler(tree, arguments)
    except PathError as exc:
        raise CommandError(str(exc)) from None


# -- view -----------------------------------------------------------------------------------------------------


def _view(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    path = resolve(_text(arguments, "path", "view"))
    if _is_directory(tree, path.key):
        return Outcome(_listing(tree, path), paths=(path,))
    content = tree.get(path.key)
    if content is None:
        raise CommandError(f"The path {path.given} does not exist. Please provide a valid path.")
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise CommandError(f"File {path.given} exceeds maximum line limit of 999,999 lines.")
    shown, first = lines, 1
    view_range = arguments.get("view_range")
    if view_range is not None and not (
        isinstance(view_range, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
    ):
        raise CommandError("Invalid `view_range` parameter: it should be a list of two integers, [start, end]")
    if view_range and len(view_range) == 2:
        start = max(1, view_range[0]) - 1
        end = len(lines) if view_range[1] == -1 else view_range[1]
        shown, first = lines[start:end], start + 1
    numbered = [f"{str(i + first).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(shown)]
    return Outcome(f"Here's the content of {path.given} with line numbers:\n" + "\n".join(numbered), paths=(path,))


def _listing(tree: Tree, path: MemoryPath) -> str:
    """Two levels deep, names in order, hidden ones (a leading dot) left out with what is under them."""
    children: dict[str, dict[str, int | None]] = {}  # directory key -> {name: size in bytes, None for a directory}
    for key, text in tree.items():
        if not under(key, path.key):
            continue
        names = [name for name in key[len(path.key) + 1 :].split("/") if name]
        for depth in range(min(len(names), 2)):
            parent = "/".join((path.key, *names[:depth]))
            is_file = depth == len(names) - 1 and not is_marker(key)
            children.setdefault(parent, {})[names[depth]] = len(text.encode()) if is_file else None
    items: list[tuple[str, str]] = []

    def collect(directory: str, relative: str, depth: int) -> None:
        for name, size in sorted(children.get(directory, {}).items()):
            if name.startswith("."):
                continue
            shown = f"{relative}/{name}" if relative else name
            if size is None:
                items.append((file_size(DIRECTORY_BYTES), f"{shown}/"))
                if depth < 2:
                    collect(f"{directory}/{name}", shown, depth + 1)
            else:
                items.append((file_size(size), shown))

    collect(path.key, "", 1)
    header = f"Here're the files and directories up to 2 levels deep in {path.given}, excluding hidden items:"
    lines = [f"{file_size(DIRECTORY_BYTES)}\t{path.given}", *(f"{size}\t{path.given}/{shown}" for size, shown in items)]
    return f"{header}\n" + "\n".join(lines)


def file_size(size: int) -> str:
    """``0B``, ``512B``, ``4K``, ``1.5K``, ``2.1M``: the reference's sizes."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / (1024**i)
    return f"{int(scaled)}{units[i]}" if scaled == int(scaled) else f"{scaled:.1f}{units[i]}"


# -- writes ---------------------------------------------------------------------------------------------------


def _create(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    path = resolve(_text(arguments, "path", "create"))
    if path.key in tree or _is_directory(tree, path.key):
        raise CommandError(f"File {path.given} already exists")
    _check_parents(tree, path)
    text = _text(arguments, "file_text", "create")
    changes: dict[str, str | None] = {**_directories(tree, path), path.key: text}
    return Outcome(f"File created successfully at: {path.given}", changes, (path,))


def _str_replace(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    path = resolve(_text(arguments, "path", "str_replace"))
    content = _file(tree, path)
    old = _text(arguments, "old_str", "str_replace")
    count = content.count(old)
    if count == 0:
        raise CommandError(f"No replacement was performed, old_str `{old}` did not appear verbatim in {path.given}.")
    if count > 1:
        lines: list[int] = []
        start = 0
        while (position := content.find(old, start)) != -1:
            lines.append(content[:position].count("\n") + 1)
            start = position + 1
        raise CommandError(
            f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
            f"{', '.join(map(str, lines))}. Please ensure it is unique"
        )
    new = _text(arguments, "new_str", "str_replace")
    changed_line = content[: content.find(old)].count("\n")
    edited = content.replace(old, new)
    new_lines = edited.split("\n")
    snippet = [
        f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[number - 1]}"
        for number in range(max(0, changed_line - 2) + 1, min(len(new_lines), changed_line + 3) + 1)
    ]
    text = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
    return Outcome(text + "\n".join(snippet), {path.key: edited}, (path,))


def _insert(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    path = resolve(_text(arguments, "path", "insert"))
    content = _file(tree, path)
    line = arguments.get("insert_line")
    if not isinstance(line, int) or isinstance(line, bool):
        raise CommandError("Invalid `insert_line` parameter: it should be an integer")
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if line < 0 or line > len(lines):
        raise CommandError(f"Invalid `insert_line` parameter: {line}. It should be within the range [0, {len(lines)}].")
    lines.insert(line, _text(arguments, "insert_text", "insert").rstrip("\n"))
    edited = "\n".join(lines)
    if not edited.endswith("\n"):
        edited += "\n"
    return Outcome(f"The file {path.given} has been edited.", {path.key: edited}, (path,))


def _delete(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    path = resolve(_text(arguments, "path", "delete"))
    if path.is_root:
        raise CommandError("Cannot delete the /memories directory itself")
    gone = [key for key in tree if key == path.key or under(key, path.key)]
    if not gone:
        raise CommandError(f"The path {path.given} does not exist")
    return Outcome(f"Successfully deleted {path.given}", dict.fromkeys(gone), (path,))


def _rename(tree: Tree, arguments: Mapping[str, Any]) -> Outcome:
    old = resolve(_text(arguments, "old_path", "rename"))
    new = resolve(_text(arguments, "new_path", "rename"))
    if old.is_root:
        raise CommandError("Cannot rename the /memories directory itself")
    if new.key in tree or _is_directory(tree, new.key):
        raise CommandError(f"The destination {new.given} already exists")
    moved = [key for key in tree if key == old.key or under(key, old.key)]
    if not moved:
        raise CommandError(f"The path {old.given} does not exist")
    if under(new.key, old.key):
        raise CommandError(f"Cannot move {old.given} into itself ({new.given})")
    _check_parents(tree, new)
    changes: dict[str, str | None] = {**dict.fromkeys(moved), **_directories(tree, new)}
    for key in moved:
        changes[new.key + key[len(old.key) :]] = tree[key]
    return Outcome(f"Successfully renamed {old.given} to {new.given}", changes, (old, new))


# -- helpers --------------------------------------------------------------------------------------------------


def _directories(tree: Tree, path: MemoryPath) -> dict[str, str | None]:
    """The markers of the directories ``path`` needs that are not there yet (as ``mkdir -p`` makes them)."""
    made: dict[str, str | None] = {}
    for depth in range(1, len(path.parts)):
        directory = marker("/".join((ROOT, *path.parts[:depth])))
        if directory not in tree:
            made[directory] = ""
    return made


def _is_directory(tree: Tree, key: str) -> bool:
    return key == ROOT or any(under(name, key) for name in tree)


def _file(tree: Tree, path: MemoryPath) -> str:
    content = tree.get(path.key)
    if content is not None:
        return content
    if _is_directory(tree, path.key):
        raise CommandError(f"The path {path.given} is not a file.")
    raise CommandError(f"The path {path.given} does not exist. Please provide a valid path.")


def _check_parents(tree: Tree, path: MemoryPath) -> None:
    """No file may stand where the path needs a directory."""
    for depth in range(1, len(path.parts)):
        parent = "/".join((ROOT, *path.parts[:depth]))
        if parent in tree:
            raise CommandError(f"Cannot write {path.given}: {parent} is a file, not a directory")


def _text(arguments: Mapping[str, Any], name: str, command: str) -> str:
    value = arguments.get(name)
    if value is None:
        raise CommandError(f"Missing required parameter `{name}` for command `{command}`")
    if not isinstance(value, str):
        raise CommandError(f"Invalid `{name}` parameter: it should be a string")
    return value


_COMMANDS: dict[str, Callable[[Tree, Mapping[str, Any]], Outcome]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "delete": _delete,
    "rename": _rename,
}
