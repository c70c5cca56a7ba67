"""A real PostgreSQL server for tests and benchmarks: ``initdb`` and ``pg_ctl`` in a temporary directory.

The server listens on a free loopback port and a socket in its own directory, with durability off (it is thrown
away). PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user (Debian's package
creates it), else ``nobody``. :class:`PostgresUnavailable` says why a server could not be had.
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
    _databases: Iterator[int] = field(default_factory=lambda: itertools.count(1))

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

        async def create() -> None:
            import asyncpg  # only when a database is made: `import proxy.testing` stays light

            conn = await asyncpg.connect(self.dsn())
            try:
                await conn.execute(f"CREATE DATABASE {name}")
            finally:
                await conn.close()

        # In a thread of its own: fixtures may ask for a database from inside a running event loop.
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, create()).result()
        return self.dsn(name)

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


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway server in a temporary directory, stopped and removed on leaving."""
    folder = find_binaries()
    if folder is None:
        raise PostgresUnavailable(f"no PostgreSQL server found: {INSTALL_HINT}")
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="memproxy-pg-"))
    if user is not None:
        shutil.chown(root, user)
    server = PostgresServer(folder, root, 0, user)
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
