"""Another process writing memory files until it is killed, for ``tests/memory/test_memory_files.py``.

    python -m tests.memory.file_worker files DATA_DIR | postgres DSN

Commits ``/memories/n<N>.md`` holding ``N``, one after the other (each also rewriting the last one, so the files
backend replaces its document while it runs), and prints ``ack <N>`` once each commit has returned.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from proxy.memory.backends.memory_files_json import FilesMemoryFiles
from proxy.memory.backends.pg_memory_files import PostgresMemoryFiles
from proxy.memory.backends.postgres import Database
from proxy.memory.memory_files import MemoryFile, MemoryFileStore
from proxy.memory.store import Owner


async def main(backend: str, target: str) -> None:
    store: MemoryFileStore = (
        FilesMemoryFiles(Path(target)) if backend == "files" else PostgresMemoryFiles(Database(target))
    )
    owner = Owner("ada", "default")
    number = 0
    while True:
        number += 1
        path = f"/memories/n{number}.md"
        written = MemoryFile(path, str(number), 1, 0.0, 0.0)
        await store.commit(
            owner, {path: written, "/memories/last.md": MemoryFile("/memories/last.md", "x", 1, 0, 0)}, {}
        )
        sys.stdout.write(f"ack {number}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
