"""Every way in to memory files, with the rules that hold on all of them: the model's memory tool, a person through
the API, an import.

- Owners: a caller's files are their workspace's (``Owner(user, workspace)``), as a memory's default scope is.
- Scanning: every text a write would store, and every path, is scanned first (:func:`proxy.scanning.scan`). A
  certain secret or injection refuses the write (nothing stored); a suspect text makes the change a proposal.
- Provenance: a change by a session that took in untrusted content, or that the scanner suspects, is a
  :class:`~proxy.memory.memory_files.FileProposal` until a person approves it: the directory as other sessions
  read it stays as it was. The proposing session reads its own proposals over the directory (it sees what it
  wrote), and any later change it makes to such a path is held too, so a held text can never reach the directory
  through a trusted edit of it.
- Concurrency: a command reads the directory, works out its change (:mod:`.file_commands`) and commits it naming
  the versions it read; a writer that lost the race reads again and retries. Writers of one owner in one process
  take turns (a lock per owner's stripe), so retries are for races between processes and replicas.
- Limits: ``MAX_FILES`` files, ``MAX_FILE_CHARS`` characters a file, ``MAX_PROPOSALS`` proposals an owner: a
  write past them is an error the model or the person reads.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import EllipsisType
from typing import Any

import orjson

from ..errors import InvalidRequest, MemoryNotFound, MemoryRejected, VersionMismatch
from ..scanning import Finding, scan
from .caller import Identity
from .file_commands import CommandError, Outcome, Tree, run_command
from .file_paths import ROOT, PathError, is_marker, resolve, under
from .file_search import Passage, search
from .memory_files import FileConflict, FileProposal, MemoryFile, MemoryFileStore
from .provenance import TRUSTED, Provenance, held_reasons
from .store import Owner

MAX_FILES = 1000
MAX_FILE_CHARS = 100_000
MAX_PROPOSALS = 200
COMMIT_TRIES = 8
RETRY_PAUSE_S = 0.01  # times the try and a random share: racing processes do not meet again at once
STRIPES = 64  # writer locks, an owner's chosen by its hash
SCAN_INLINE_CHARS = 8_000  # more than this is scanned in a thread: the event loop keeps serving meanwhile


Expected = int | None | EllipsisType  # a file's version a change was made from; None: no file; ``...``: unchecked


class FileNotFound(MemoryNotFound):
    code = "file_not_found"


class ProposalNotFound(MemoryNotFound):
    code = "proposal_not_found"


@dataclass(frozen=True, slots=True)
class Writer:
    """Who writes, as the proxy saw it: the way in, the session and the key behind it."""

    origin: str  # tool | api | import
    session: str | None = None
    key_id: str | None = None

    @classmethod
    def of(cls, caller: Identity, origin: str, session: str | None = None) -> Writer:
        return cls(origin, session or caller.session, caller.key_id)


@dataclass(frozen=True, slots=True)
class Written:
    """What a person's write did: the file as it now stands, or the proposal that holds the change."""

    file: MemoryFile | None = None
    proposal: FileProposal | None = None
    unchanged: bool = False


@dataclass(slots=True)
class FileImport:
    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)


def owner_of(caller: Identity) -> Owner:
    return Owner(caller.user, caller.workspace)


class FileService:
    def __init__(self, store: MemoryFileStore) -> None:
        self.store = store
        self._turns = [asyncio.Lock() for _ in range(STRIPES)]

    def _turn(self, owner: Owner) -> asyncio.Lock:
        return self._turns[hash(owner) % STRIPES]

    # -- the model's memory tool ------------------------------------------------------------------------------

    async def run(
        self, caller: Identity, session: str | None, arguments: Mapping[str, Any], provenance: Provenance = TRUSTED
    ) -> str:
        """One command of the memory tool: its result text, or :class:`CommandError` with the error text."""
        owner = owner_of(caller)
        if arguments.get("command") == "view":  # a read: no turn to wait for
            return await self._run(owner, caller, session, arguments, provenance)
        async with self._turn(owner):
            return await self._run(owner, caller, session, arguments, provenance)

    async def _run(
        self, owner: Owner, caller: Identity, session: str | None, arguments: Mapping[str, Any], provenance: Provenance
    ) -> str:
        writer = Writer.of(caller, "tool", session)
        for attempt in range(COMMIT_TRIES):
            live = {file.path: file for file in await self.store.files(owner)}
            mine = [p for p in await self.store.proposals(owner) if writer.session and p.session == writer.session]
            tree: dict[str, str] = {path: file.text for path, file in live.items()}
            for proposal in mine:  # the session reads what it proposed
                if proposal.text is None:
                    tree.pop(proposal.path, None)
                else:
                    tree[proposal.path] = proposal.text
            outcome = run_command(tree, arguments)
            if not outcome.changes:
                return outcome.text
            _check_limits(tree, outcome.changes)
            finding = await _scanned(outcome, tree)
            if finding is not None and finding.certain:
                raise CommandError(f"Nothing was written: {finding.reason}")
            reason = finding.reason if finding is not None else None
            pending = {p.path for p in mine}
            if provenance.held or reason is not None or pending & set(outcome.changes):
                held = provenance.flagged(reason) if reason is not None else provenance
                await self._propose(owner, outcome.changes, live, held, writer)
                return f"{outcome.text}\n{_held_note(held)}"
            changes = {path: _written(path, live.get(path), text, writer) for path, text in outcome.changes.items()}
            expect = {path: _version(live.get(path)) for path in outcome.changes}
            try:
                await self.store.commit(owner, changes, expect)
            except FileConflict:
                await _pause(attempt)
                continue
            return outcome.text
        raise CommandError("Nothing was written: /memories is busy with other writes; try again")

    async def _propose(
        self,
        owner: Owner,
        changes: Mapping[str, str | None],
        live: Mapping[str, MemoryFile],
        provenance: Provenance,
        writer: Writer,
    ) -> list[FileProposal]:
        waiting = await self.store.proposals(owner)
        ids = {p.id: p for p in waiting}
        now = time.time()
        made = []
        for path, text in changes.items():
            if is_marker(path):  # a directory the change would make: its file's path makes it when approved
                continue
            ident = proposal_id(owner, writer.session, path)
            earlier = ids.get(ident)
            base = earlier.base if earlier is not None else _version(live.get(path))
            made.append(
                FileProposal(ident, path, text, now, writer.session, provenance, base, writer.origin, writer.key_id)
            )
        if len({*ids, *(p.id for p in made)}) > MAX_PROPOSALS:
            raise CommandError(
                f"Nothing was written: {MAX_PROPOSALS} changes to /memories already wait for the user's approval"
            )
        await self.store.propose(owner, made)
        return made

    # -- a person's --------------------------------------------------------------------------------------------

    async def files(self, caller: Identity) -> list[MemoryFile]:
        """The caller's files by path (not the markers that keep empty directories)."""
        return sorted((f for f in await self.store.files(owner_of(caller)) if not is_marker(f.path)), key=_path)

    async def read(self, caller: Identity, path: str) -> MemoryFile:
        key = _person_path(path)
        for file in await self.store.files(owner_of(caller)):
            if file.path == key:
                return file
        raise FileNotFound(f"no memory file {key} here", param="path")

    async def write(
        self, caller: Identity, path: str, text: Any, *, origin: str = "api", expect: Expected = ...
    ) -> Written:
        """A person writes a whole file (new or replaced): scanned, a suspect text held as a proposal. ``expect``:
        the version the person's page showed (None: that there was no file), checked as ``If-Match`` is: a file
        changed (or made, or deleted) meanwhile is :class:`VersionMismatch` and nothing is written; ``...``: any."""
        key = _person_path(path)
        if not isinstance(text, str):
            raise InvalidRequest("'text' must be a string", param="text")
        if len(text) > MAX_FILE_CHARS:
            raise MemoryRejected(f"'text' is {len(text)} characters; a memory file holds at most {MAX_FILE_CHARS}")
        finding = await _scan_all([key, text])
        if finding is not None and finding.certain:
            raise MemoryRejected(finding.reason, param="text")
        owner = owner_of(caller)
        async with self._turn(owner):
            return await self._write(owner, key, text, finding, Writer.of(caller, origin), expect)

    async def _write(
        self, owner: Owner, key: str, text: str, finding: Finding | None, writer: Writer, expect: Expected
    ) -> Written:
        for attempt in range(COMMIT_TRIES):
            live = {file.path: file for file in await self.store.files(owner)}
            _check_expected(key, live.get(key), expect)
            try:
                _check_limits({path: file.text for path, file in live.items()}, {key: text})
                _check_parents(live, key)
            except CommandError as exc:
                raise MemoryRejected(str(exc), param="path") from None
            current = live.get(key)
            if finding is not None:
                [proposal] = await self._propose(owner, {key: text}, live, TRUSTED.flagged(finding.reason), writer)
                return Written(proposal=proposal)
            if current is not None and current.text == text:
                return Written(current, unchanged=True)
            file = _written(key, current, text, writer)
            assert file is not None
            try:
                await self.store.commit(owner, {key: file}, {key: _version(current)})
            except FileConflict:
                await _pause(attempt)
                continue
            return Written(file)
        raise InvalidRequest("the memory directory is busy with other writes; try again")

    async def delete(self, caller: Identity, path: str, *, expect: Expected = ...) -> list[str]:
        """A person deletes a file, or a directory with every file under it; the paths deleted. ``expect``: the
        file's version the person's page showed, checked as :meth:`write` checks it."""
        key = resolve_or_400(path).key
        owner = owner_of(caller)
        for attempt in range(COMMIT_TRIES):
            live = {file.path: file for file in await self.store.files(owner)}
            gone = sorted(p for p in live if p == key or under(p, key))
            if not gone:
                raise FileNotFound(f"no memory file or directory {key} here", param="path")
            _check_expected(key, live.get(key), expect)
            try:
                await self.store.commit(owner, dict.fromkeys(gone), {p: live[p].version for p in gone})
            except FileConflict:
                await _pause(attempt)
                continue
            return gone
        raise InvalidRequest("the memory directory is busy with other writes; try again")

    async def proposals(self, caller: Identity) -> list[tuple[FileProposal, MemoryFile | None]]:
        """What waits for approval, each with the file as it stands now (None: there is none)."""
        owner = owner_of(caller)
        live = {file.path: file for file in await self.store.files(owner)}
        return [(p, live.get(p.path)) for p in await self.store.proposals(owner)]

    async def approve(self, caller: Identity, proposal_id: str) -> FileProposal:
        """Write the proposed change (a person's word over the file as it stands: the newest text wins)."""
        owner = owner_of(caller)
        for attempt in range(COMMIT_TRIES):
            found = {p.id: p for p in await self.store.proposals(owner)}.get(proposal_id)
            if found is None:
                raise ProposalNotFound(f"no proposal {proposal_id!r} here", param="id")
            live = {file.path: file for file in await self.store.files(owner)}
            current = live.get(found.path)
            change: MemoryFile | None = None
            if found.text is not None:
                _check_parents_or_409(live, found.path)
                writer = Writer(found.origin, found.session, found.key_id)
                approved = replace(found.provenance, reason=None).approved()
                written = _written(found.path, current, found.text, writer)
                assert written is not None
                change = replace(written, provenance=approved)
            expect = {found.path: _version(current)}
            try:
                settled = await self.store.settle(owner, proposal_id, {found.path: change}, expect)
            except FileConflict:
                await _pause(attempt)
                continue
            if settled is None:
                raise ProposalNotFound(f"no proposal {proposal_id!r} here", param="id")
            return settled
        raise InvalidRequest("the memory directory is busy with other writes; try again")

    async def reject(self, caller: Identity, proposal_id: str) -> FileProposal:
        settled = await self.store.settle(owner_of(caller), proposal_id)
        if settled is None:
            raise ProposalNotFound(f"no proposal {proposal_id!r} here", param="id")
        return settled

    async def held_count(self, caller: Identity) -> int:
        return len(await self.store.proposals(owner_of(caller)))

    # -- everywhere else -----------------------------------------------------------------------------------------

    async def search(self, caller: Identity, query: str, *, limit: int) -> list[Passage]:
        """Passages of the caller's files (never a proposal) that answer ``query``."""
        found = [(file.path, file.text) for file in await self.files(caller)]
        if not found:
            return []
        if sum(len(text) for _, text in found) > SCAN_INLINE_CHARS * 4:
            return await asyncio.to_thread(search, found, query, limit=limit)
        return search(found, query, limit=limit)

    async def export(self, caller: Identity) -> list[bytes]:
        """The caller's files as export lines (``{"kind": "file", ...}``, after the memories); proposals stay."""
        return [orjson.dumps({"kind": "file", **file.to_json()}) + b"\n" for file in await self.files(caller)]

    async def import_lines(self, caller: Identity, lines: Sequence[tuple[int, bytes]]) -> FileImport:
        """An export's file lines: each file written where none is, unchanged where the same text is, refused where
        another text is (nothing is overwritten); scanned as a person's write, a suspect one held."""
        report = FileImport()
        for number, line in lines:
            try:
                obj = orjson.loads(line)
                if not isinstance(obj, dict):
                    raise InvalidRequest("each line must be a JSON object")
                path, text = obj.get("path"), obj.get("text")
                if not isinstance(path, str):
                    raise InvalidRequest("'path' must be a string", param="path")
                current = await self._current(caller, path)
                if current is not None and current.text == text:
                    report.unchanged.append(current.path)
                    continue
                if current is not None:
                    raise InvalidRequest(f"{current.path} holds another text here; delete it first to import this one")
                written = await self.write(caller, path, text, origin="import")
            except orjson.JSONDecodeError as exc:
                report.errors.append({"line": number, "error": f"not valid JSON: {exc}"})
                continue
            except InvalidRequest as exc:
                report.errors.append({"line": number, "error": exc.message})
                continue
            if written.proposal is not None:
                report.held.append(written.proposal.path)
            elif written.file is not None:
                report.imported.append(written.file.path)
        return report

    async def _current(self, caller: Identity, path: str) -> MemoryFile | None:
        try:
            return await self.read(caller, path)
        except FileNotFound:
            return None


async def _pause(attempt: int) -> None:
    await asyncio.sleep(RETRY_PAUSE_S * (attempt + random.random()))


def proposal_id(owner: Owner, session: str | None, path: str) -> str:
    """One proposal per session and path: JSON-encoded, so no separator can be forged."""
    return "fp-" + hashlib.sha256(orjson.dumps([owner.user, owner.workspace, session, path])).hexdigest()[:16]


def resolve_or_400(path: str) -> Any:
    """A path a person typed: ``notes.md``, ``/notes.md`` and ``/memories/notes.md`` name the same file."""
    given = path if path == ROOT or path.startswith(ROOT + "/") else f"{ROOT}/{path.lstrip('/')}"
    try:
        return resolve(given)
    except PathError as exc:
        raise InvalidRequest(str(exc), param="path") from None


def _person_path(path: str) -> str:
    resolved = resolve_or_400(path)
    if resolved.is_root:
        raise InvalidRequest("/memories is the directory itself; name a file in it", param="path")
    return str(resolved.key)


def _check_expected(key: str, current: MemoryFile | None, expect: Expected) -> None:
    if expect is ... or _version(current) == expect:
        return
    now = f"is at version {current.version}" if current is not None else "is not there"
    seen = f"version {expect}" if expect is not None else "no file"
    raise VersionMismatch(f"{key} changed meanwhile: it {now}, and the change was made from {seen}", param="version")


def _version(file: MemoryFile | None) -> int | None:
    return file.version if file is not None else None


def _written(path: str, current: MemoryFile | None, text: str | None, writer: Writer) -> MemoryFile | None:
    if text is None:
        return None
    now = time.time()
    if current is None:
        return MemoryFile(path, text, 1, now, now, writer.origin, writer.session, writer.key_id)
    return replace(
        current, text=text, version=current.version + 1, updated_at=now, origin=writer.origin,
        session=writer.session, key_id=writer.key_id, provenance=TRUSTED,
    )  # fmt: skip


def _path(file: MemoryFile) -> str:
    return file.path


def _check_limits(tree: Tree, changes: Mapping[str, str | None]) -> None:
    after = {**tree, **changes}
    count = sum(1 for path, text in after.items() if text is not None and not is_marker(path))
    if count > MAX_FILES and count > sum(1 for path in tree if not is_marker(path)):
        raise CommandError(f"Nothing was written: /memories would hold more than {MAX_FILES} files")
    for path, text in changes.items():
        if text is not None and len(text) > MAX_FILE_CHARS:
            raise CommandError(
                f"Nothing was written: {path} would be {len(text)} characters long; "
                f"a memory file holds at most {MAX_FILE_CHARS}"
            )


def _check_parents(live: Mapping[str, MemoryFile], key: str) -> None:
    if any(under(other, key) for other in live):
        raise CommandError(f"{key} is a directory")
    parts = key.split("/")
    for depth in range(3, len(parts)):
        parent = "/".join(parts[:depth])
        if parent in live:
            raise CommandError(f"Cannot write {key}: {parent} is a file, not a directory")


def _check_parents_or_409(live: Mapping[str, MemoryFile], key: str) -> None:
    try:
        _check_parents(live, key)
    except CommandError as exc:
        raise InvalidRequest(f"the proposal cannot be written as things stand: {exc}", param="id") from None


async def _scanned(outcome: Outcome, tree: Tree) -> Finding | None:
    """The scanner's worst finding over what the command would newly store: new paths and texts (a file renamed
    keeps its text, already scanned when it was written)."""
    there = set(tree.values())
    parts = [path for path, text in outcome.changes.items() if text is not None and path not in tree]
    parts += [text for text in outcome.changes.values() if text is not None and text not in there]
    return await _scan_all(parts)


async def _scan_all(parts: Sequence[str]) -> Finding | None:
    def worst() -> Finding | None:
        found = [finding for part in parts if (finding := scan(part)) is not None]
        certain = [finding for finding in found if finding.certain]
        return (certain or found)[0] if found else None

    if sum(len(part) for part in parts) > SCAN_INLINE_CHARS:
        return await asyncio.to_thread(worst)
    return worst()


def _held_note(provenance: Provenance) -> str:
    """Every reason it waits: the scanner's and the session's both, where both hold it."""
    why = "; ".join(held_reasons(provenance))
    return f"(held for the user's approval: {why}; other sessions see this change once a person approves it)"
