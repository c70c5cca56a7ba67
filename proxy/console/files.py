"""Memory files: the acting user's ``/memories`` directory (what Anthropic's memory tool reads and writes), its
files with line numbers, editing, creating and deleting them; and approving or rejecting the changes held for review.

Every call is :class:`~proxy.memory.file_service.FileService`'s, as ``/memory/files`` and ``/memory/file-proposals``
make them, for the identity the sign-in acts for: another user's file is not found, whatever the URL names, and a
path outside ``/memories`` is the API's 400. A save or a delete names the version its page showed (``expect``, as
``If-Match``): a file changed meanwhile is not written over, and the page says so with the file as it is now and
what the person typed. Creating expects no file there: an existing one is never replaced by a create.
"""

from __future__ import annotations

import contextlib
import difflib
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import InvalidRequest, MemoryNotFound, MemoryRejected, VersionMismatch
from ..memory.caller import Identity
from ..memory.evidence import Cited, excerpt
from ..memory.file_paths import ROOT
from ..memory.file_service import MAX_FILE_CHARS, Expected, FileNotFound, Written
from ..memory.memory_files import FileProposal, MemoryFile
from .context import FILE_PROPOSAL_ID, Console, back_to, hx
from .forms import MAX_FORM_BYTES, Form
from .render import file_href, page
from .signin import Viewer

# A file's text, percent-encoded at worst (9 bytes a character outside the BMP's first pages), and the form's fields.
MAX_FILE_FORM_BYTES = MAX_FILE_CHARS * 9 + MAX_FORM_BYTES
MAX_DIFF_LINES = 400  # a proposal's diff shown in the queue; the rest counted


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the directory tree: a directory (``file`` None) or a file, at its depth under ``/memories``."""

    name: str
    depth: int
    file: MemoryFile | None = None
    files: int = 0  # a directory's files, at any depth
    pending: bool = False  # a change to this file waits for review


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # add | del | same | hunk
    text: str


@dataclass(frozen=True, slots=True)
class Proposed:
    """A held change as the review queue shows it: the proposal, the file as it stands, the diff, the evidence."""

    proposal: FileProposal
    current: MemoryFile | None
    diff: tuple[DiffLine, ...]
    more: int  # diff lines not shown
    excerpt: tuple[Cited, ...]


def file_routes(console: Console) -> list[Route]:
    files = console.services.files

    async def tree(request: Request, viewer: Viewer) -> Response:
        return await _tree(request, viewer)

    async def _tree(
        request: Request, viewer: Viewer, *, error: str | None = None, form: Form | None = None, status: int = 200
    ) -> Response:
        identity = _who(viewer)
        listed = await files.files(identity)
        waiting = await files.proposals(identity)
        context = {
            **await console.base(request, viewer, "files"),
            "title": "Files",
            "rows": rows_of(listed, {p.path for p, _ in waiting}),
            "count": len(listed),
            "size": sum(f.size for f in listed),
            "proposals": len(waiting),
            "create_error": error,
            "create_path": form.get("path") if form is not None else "",
            "create_text": form.get("text") if form is not None else "",
            "max_chars": MAX_FILE_CHARS,
        }
        return page("files.html", context, status=status)

    async def show(request: Request, viewer: Viewer) -> Response:
        found = await files.read(_who(viewer), request.path_params["path"])
        return await _file(request, viewer, found)

    async def _file(
        request: Request, viewer: Viewer, found: MemoryFile, *, error: str | None = None, typed: str | None = None,
        status: int = 200,
    ) -> Response:  # fmt: skip
        waiting = [p for p, _ in await files.proposals(_who(viewer)) if p.path == found.path]
        context = {
            **await console.base(request, viewer, "files"),
            "title": found.path,
            "file": found,
            "lines": numbered(found.text),
            "edit_text": found.text if typed is None else typed,
            "edit_error": error,
            "pending": waiting,
            "max_chars": MAX_FILE_CHARS,
        }
        return page("file.html", context, status=status)

    async def changed(
        request: Request, viewer: Viewer, key: str, exc: VersionMismatch, form: Form, *, creating: bool = False
    ) -> Response:
        """A save, delete or create made from what is no longer there: nothing written; the file as it is now and
        what the person typed."""
        current = None
        with contextlib.suppress(FileNotFound):
            current = await files.read(_who(viewer), key)
        context = {
            **await console.base(request, viewer, "files"),
            "title": "Changed meanwhile",
            "path": key,
            "current": current,
            "seen": _version_of(form),
            "creating": creating,
            "deleting": form.get("do") == "delete",
            "typed": form.get("text") or None,
        }
        return page("file_changed.html", context, status=exc.status)

    async def create(request: Request, viewer: Viewer, form: Form) -> Response:
        identity = _who(viewer)
        path = form.get("path").strip()
        if not path:
            return await _tree(request, viewer, error="Name the file: a path under /memories, like notes.md.",
                               form=form, status=400)  # fmt: skip
        try:
            written = await files.write(identity, path, _text(form), origin="api", expect=None)
        except VersionMismatch as exc:
            return await changed(request, viewer, _key(path), exc, form, creating=True)
        except (MemoryRejected, InvalidRequest) as exc:
            if isinstance(exc, MemoryNotFound):
                raise
            return await _tree(request, viewer, error=exc.message, form=form, status=exc.status)
        return _after_write(request, console, written, created=True)

    async def act(request: Request, viewer: Viewer, form: Form) -> Response:
        """A file's form: ``do=save`` (the text, from the version shown) or ``do=delete`` (that version)."""
        identity = _who(viewer)
        found = await files.read(identity, request.path_params["path"])  # not there (or not the viewer's): a 404
        expect = _expect(form)
        if form.get("do") == "delete":
            try:
                await files.delete(identity, found.path, expect=expect)
            except VersionMismatch as exc:
                return await changed(request, viewer, found.path, exc, form)
            return console.redirect(request, "/ui/files", done="file-deleted")
        if form.get("do") != "save":
            raise InvalidRequest("This form says neither save nor delete: reload the page and try again.")
        try:
            written = await files.write(identity, found.path, _text(form), origin="api", expect=expect)
        except VersionMismatch as exc:
            return await changed(request, viewer, found.path, exc, form)
        except MemoryRejected as exc:
            return await _file(request, viewer, found, error=exc.message, typed=form.get("text"), status=exc.status)
        return _after_write(request, console, written, created=False)

    def proposal_action(approve: bool) -> Any:
        async def settle(request: Request, viewer: Viewer, form: Form) -> Response:
            identity = _who(viewer)
            ident = request.path_params["proposal_id"]
            if not FILE_PROPOSAL_ID.fullmatch(ident):
                raise MemoryNotFound("There is no held file change with that id here.", param="id")
            settled = await (files.approve(identity, ident) if approve else files.reject(identity, ident))
            if hx(request) and request.headers.get("hx-target", "").startswith("item-"):
                return page("_removed.html", {"waiting": await console.waiting(viewer)})
            done = "file-approved" if approve else "file-rejected"
            return console.redirect(request, back_to(form, "/ui/review"), done=done, ident=settled.id)

        return settle

    big = MAX_FILE_FORM_BYTES
    return [
        Route("/files", console.view(tree), methods=["GET"]),
        Route("/files", console.action(create, max_bytes=big), methods=["POST"]),
        Route("/files/{path:path}", console.view(show), methods=["GET"]),
        Route("/files/{path:path}", console.action(act, max_bytes=big), methods=["POST"]),
        Route("/file-proposals/{proposal_id}/approve", console.action(proposal_action(True)), methods=["POST"]),
        Route("/file-proposals/{proposal_id}/reject", console.action(proposal_action(False)), methods=["POST"]),
    ]


async def proposed(console: Console, identity: Identity) -> list[Proposed]:
    """The identity's held file changes for the review queue, newest first, each with its diff against the file as
    it stands and the history around its session's first untrusted call."""
    waiting = sorted(await console.services.files.proposals(identity), key=lambda pc: pc[0].created_at, reverse=True)
    history = console.services.episodes.history
    sessions = [p.session for p, _ in waiting if p.session is not None]
    lines = await history.lines_of(identity, sessions) if history is not None and sessions else {}
    shown = []
    for proposal, current in waiting:
        diff, more = diff_of(current.text if current is not None else None, proposal.text)
        sources = proposal.provenance.sources
        cited = excerpt(lines[proposal.session], sources) if proposal.session in lines else []
        shown.append(Proposed(proposal, current, diff, more, tuple(cited)))
    return shown


def rows_of(listed: list[MemoryFile], pending: set[str]) -> list[Row]:
    """The tree as rows, directories before what is in them (files come sorted by path)."""
    rows: list[Row] = []
    opened: list[str] = []  # the directories of the row before, outermost first
    counts: dict[str, int] = {}
    for file in listed:
        for depth in range(1, len(_parts(file.path))):
            directory = "/".join(_parts(file.path)[:depth])
            counts[directory] = counts.get(directory, 0) + 1
    for file in listed:
        parts = _parts(file.path)
        for depth, name in enumerate(parts[:-1]):
            directory = "/".join(parts[: depth + 1])
            if len(opened) <= depth or opened[depth] != directory:
                del opened[depth:]
                opened.append(directory)
                rows.append(Row(name, depth, files=counts[directory]))
        del opened[len(parts) - 1 :]
        rows.append(Row(parts[-1], len(parts) - 1, file, pending=file.path in pending))
    return rows


def numbered(text: str) -> list[tuple[int, str]]:
    """A file's lines with their numbers, as the memory tool's ``view`` numbers them (a final newline ends the last
    line rather than starting an empty one)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return list(enumerate(lines, start=1))


def diff_of(before: str | None, after: str | None) -> tuple[tuple[DiffLine, ...], int]:
    """What a proposal changes, as a unified diff's lines (a new file: every line added; a deletion: every line
    removed), at most ``MAX_DIFF_LINES`` of them and how many more there are."""
    old = (before or "").splitlines()
    new = (after or "").splitlines()
    found: list[DiffLine] = []
    for line in difflib.unified_diff(old, new, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            found.append(DiffLine("hunk", line))
        else:
            found.append(DiffLine({"+": "add", "-": "del"}.get(line[:1], "same"), line[1:]))
    return tuple(found[:MAX_DIFF_LINES]), max(len(found) - MAX_DIFF_LINES, 0)


def _after_write(request: Request, console: Console, written: Written, *, created: bool) -> Response:
    if written.proposal is not None:  # the scanner suspects the text: held, as the API's 202
        return console.redirect(request, "/ui/review", done="file-held")
    assert written.file is not None
    return console.redirect(request, file_href(written.file.path), done="file-created" if created else "file-saved")


def _who(viewer: Viewer) -> Identity:
    assert viewer.identity is not None
    return viewer.identity


def _parts(key: str) -> list[str]:
    return key[len(ROOT) + 1 :].split("/")


def _key(path: str) -> str:
    return path if path.startswith(ROOT + "/") else f"{ROOT}/{path.lstrip('/')}"


def _text(form: Form) -> str:
    """A textarea's text as the file holds it: browsers send its line breaks as CR LF (HTML says so), the memory tool
    and everyone else write LF."""
    return form.get("text").replace("\r\n", "\n")


def _expect(form: Form) -> Expected:
    """The version the form was made from. A form without one is never taken as current: version 0 is no file's."""
    seen = _version_of(form)
    return 0 if seen is None else seen


def _version_of(form: Form) -> int | None:
    value = form.get("version")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else None
