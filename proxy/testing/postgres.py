"""A real PostgreSQL server for tests and benchmarks: ``initdb`` and ``pg_ctl`` in a temporary directory.

The server listens on a free loopback port and a socket in its own directory, with durability off (it is thrown
away). PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user (Debian's package
creates it), else ``nobody``. :class:`PostgresUnavailable` says why a server could not be had.

The tests keep their server's files in memory (:func:`memory_folder`): a disk, under the gigabytes a suite's
databases write, made a server's stop and removal take 100 s and each new database 0.1 s (0.01 s in memory).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

INSTALL_HINT = "install PostgreSQL (apt-get install postgresql) or set MEMPROXY_PG_BIN to the folder holding pg_ctl"
START_TIMEOUT_S = 60
SUPERUSER = "memproxy"
MEMORY_FOLDER = Path("/dev/shm")  # Linux's tmpfs, there on every distribution
MEMORY_ROOM = 2 * 1024**3  # what a run's databases may fill at once (~8 MB each, dropped when their test ends)


def find_binaries() -> Path | None:
    """The folder with initdb and pg_ctl: $MEMPROXY_PG_BIN, else PATH, else Debian's /usr/lib/postgresql/N/bin."""
    candidates = []
    if os.environ.get("MEMPROXY_PG_BIN"):
        candidates.append(Path(os.environ["MEMPROXY_PG_BIN"]))
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: _major(p.parent.name), reverse=True)
    candidates.extend(debian)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "pg_isready", "postgres")):
            return folder
    return None


def _major(name: str) -> int:
    return int(name) if name.isdigit() else -1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    bin: Path
    root: Path
    port: int
    user: str | None  # who the server runs as: None for the test process's own user
    in_memory: bool = False  # its files on a tmpfs: copying a template's files beats writing them to the WAL
    _databases: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _version: int = 0  # server_version_num, read with the first database made

    @property
    def data(self) -> Path:
        return self.root / "data"

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / command[0]), *command[1:]]
        if self.user is not None:
            runuser = shutil.which("runuser") or "/usr/sbin/runuser"  # util-linux; sbin may be off PATH
            argv = [runuser, "-u", self.user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=START_TIMEOUT_S)

    def ready(self) -> bool:
        return self.run("pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-t", "10", check=False).returncode == 0

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c full_page_writes=off -c max_connections=300"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database (``test_<n>`` unless named); its DSN."""
        name = name or f"test_{next(self._databases)}"

        # STRATEGY (PostgreSQL 15+): FILE_COPY copies the template's files, then checkpoints; fast in memory only.
        file_copy = self.in_memory and self._version >= 150000
        self._admin(f"CREATE DATABASE {name}" + (" STRATEGY FILE_COPY" if file_copy else ""))
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, ending whatever is still connected to it (PostgreSQL 13+ can; older ones wait)."""
        self._admin(f"DROP DATABASE IF EXISTS {name}" + (" WITH (FORCE)" if self._version >= 130000 else ""))

    def _admin(self, statement: str) -> None:
        async def execute() -> None:
            import asyncpg  # only when a database is made: `import proxy.testing` stays light

            conn = await asyncpg.connect(self.dsn())
            try:
                if not self._version:
                    self._version = int(await conn.fetchval("SHOW server_version_num"))
                await conn.execute(statement)
            finally:
                await conn.close()

        # In a thread of its own: fixtures may ask for a database from inside a running event loop.
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, execute()).result()

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "log").read_text()[-2000:]
        return ""


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresUnavailable(
        "running as root, PostgreSQL needs a user to run as: create one (useradd --system postgres)"
    )


class PostgresUnavailable(Exception):
    """No server could be had here; the message says why and how to get one."""


def memory_folder(room: int = MEMORY_ROOM) -> Path | None:
    """A folder in memory (a tmpfs) with ``room`` bytes free for a throwaway server's files, if there is one."""
    try:
        stat = os.statvfs(MEMORY_FOLDER)
    except OSError:
        return None
    if stat.f_bavail * stat.f_frsize < room or not os.access(MEMORY_FOLDER, os.W_OK | os.X_OK):
        return None
    return MEMORY_FOLDER


@contextlib.contextmanager
def postgres_server(*, in_memory: bool = False) -> Iterator[PostgresServer]:
    """A throwaway server in a temporary directory, stopped and removed on leaving; ``in_memory``: on a tmpfs when
    there is one with room (:func:`memory_folder`), else on disk."""
    folder = find_binaries()
    if folder is None:
        raise PostgresUnavailable(f"no PostgreSQL server found: {INSTALL_HINT}")
    user = _server_user()
    parent = memory_folder() if in_memory else None
    root = Path(tempfile.mkdtemp(prefix="memproxy-pg-", dir=parent))
    if user is not None:
        shutil.chown(root, user)
    server = PostgresServer(folder, root, 0, user, in_memory=parent is not None)
    try:
        server.run("initdb", "-D", str(server.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync")
        for _attempt in range(5):  # a free port can be taken by another process before the server binds it
            server.port = _free_port()
            try:
                server.start()
            except subprocess.CalledProcessError:
                continue
            break
        else:
            raise PostgresUnavailable(f"PostgreSQL did not start:\n{server.log_tail()}")
        if not server.ready():
            raise PostgresUnavailable(f"pg_isready says the server is not accepting connections:\n{server.log_tail()}")
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
