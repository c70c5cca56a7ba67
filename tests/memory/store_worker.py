"""Another process writing to a :class:`~proxy.memory.backends.files.FilesStore`, for ``tests/test_files_store.py``.

Run from the repository root::

    python -m tests.store_worker DATA_DIR --user U --workspace W [--count N] [--wait] [--scratch-every K]
        [--max-file-size BYTES] [--text-size CHARS] [--edit-every K]

Prints ``ready`` once its store is built; with ``--wait`` it then waits for a line on stdin (a barrier, so
that several workers start writing together). It then adds ``--count`` memories (0: until killed) and
prints ``ack <id>`` for each as soon as ``add`` has returned, flushed, so the parent knows exactly which
writes were acknowledged. ``--scratch-every K`` also adds and deletes a throw-away memory every K adds, so
that the file is rewritten (temp file + rename) while it runs. ``--edit-every K`` edits every K-th memory
just after adding it (a new version: its old one archived, then the record), printing ``edited <id> <version>``.
``--max-file-size`` sets ``RLIMIT_FSIZE`` (SIGXFSZ ignored) just before adding, so writes past that size are cut
short by the kernel; an add that fails prints ``refused <exception type>``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import resource
import signal
import sys

from proxy.memory.backends.files import FilesStore
from proxy.memory.records import MemoryDraft
from proxy.memory.revisions import Revision
from proxy.memory.store import Owner
from proxy.memory.versions import Actor


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(args: argparse.Namespace) -> None:
    store = FilesStore(args.data_dir)
    owner = Owner(args.user, args.workspace)
    say("ready")
    if args.wait:
        sys.stdin.readline()
    if args.max_file_size is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (args.max_file_size, resource.RLIM_INFINITY))
    padding = "x" * args.text_size
    number = 0
    try:
        while args.count == 0 or number < args.count:
            number += 1
            draft = MemoryDraft(f"memory {number} of worker {os.getpid()} {padding}", session=f"worker-{os.getpid()}")
            try:
                memory = await store.add(owner, draft, max_total=args.max_total)
            except Exception as exc:  # reported to the parent, which decides what it means
                say(f"refused {type(exc).__name__}")
                return
            say(f"ack {memory.id}")
            if args.edit_every and number % args.edit_every == 0:
                text = f"edited {memory.text}"
                retext = lambda m, t=text: dataclasses.replace(m, text=t)  # noqa: E731
                change = Revision(memory.id, "edited", Actor("person"), retext)
                [edited] = await store.revise(owner, [change], max_total=args.max_total)
                say(f"edited {edited.id} {edited.version}")
            if args.scratch_every and number % args.scratch_every == 0:
                scratch = await store.add(owner, MemoryDraft("scratch, deleted at once"), max_total=args.max_total)
                await store.delete(owner, [scratch.id])
    finally:
        await store.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("--user", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--wait", action="store_true")
    parser.add_argument("--scratch-every", type=int, default=0)
    parser.add_argument("--max-total", type=int, default=5000)
    parser.add_argument("--max-file-size", type=int, default=None)
    parser.add_argument("--text-size", type=int, default=0)
    parser.add_argument("--edit-every", type=int, default=0)
    asyncio.run(main(parser.parse_args()))
