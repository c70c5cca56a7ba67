"""A throwaway PostgreSQL server for the benchmarks: ``initdb`` and ``pg_ctl`` in a temporary directory.

The same startup as the tests' (``tests/postgres_server.py``), without pytest: a free loopback port, trust
auth, fsync off; as root the server runs as the ``postgres`` user (else ``nobody``). ``start_postgres`` returns
None with the reason when the binaries (or a user to run them as) are missing, so a benchmark can skip.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "install PostgreSQL (apt-get install postgresql) or set MEMPROXY_PG_BIN to the folder holding pg_ctl"
START_TIMEOUT_S = 60
SUPERUSER = "memproxy"
DATABASE = "memproxy_bench"
_BINARIES = ("initdb", "pg_ctl", "pg_isready", "postgres")


def find_binaries() -> Path | None:
    """The folder with initdb and pg_ctl: $MEMPROXY_PG_BIN, else PATH, else Debian's /usr/lib/postgresql/N/bin."""
    candidates = []
    if os.environ.get("MEMPROXY_PG_BIN"):
        candidates.append(Path(os.environ["MEMPROXY_PG_BIN"]))
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    versions = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(versions, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1, reverse=True)
    return next((folder for folder in candidates if all((folder / n).is_file() for n in _BINARIES)), None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    bin: Path
    root: Path
    port: int
    user: str | None  # who the server runs as: None for this process's own user

    @property
    def data(self) -> Path:
        return self.root / "data"

    def dsn(self, database: str = DATABASE) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / command[0]), *command[1:]]
        if self.user is not None:
            runuser = shutil.which("runuser") or "/usr/sbin/runuser"  # util-linux; sbin may be off PATH
            argv = [runuser, "-u", self.user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=START_TIMEOUT_S)

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c full_page_writes=off -c max_connections=300"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        """Stop the server and remove its directory; safe to call twice."""
        if (self.data / "postmaster.pid").exists():
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "log").read_text()[-1000:]
        return ""


_STARTED: list[PostgresServer] = []  # stop_all() takes them down


def stop_all() -> None:
    while _STARTED:
        _STARTED.pop().stop()


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise LookupError("running as root, PostgreSQL needs a user to run as (useradd --system postgres)")


def start_postgres() -> tuple[PostgresServer | None, str]:
    """A running server with an empty database ``DATABASE``, or (None, why not)."""
    folder = find_binaries()
    if folder is None:
        return None, f"no PostgreSQL binaries found: {INSTALL_HINT}"
    try:
        user = _server_user()
    except LookupError as exc:
        return None, str(exc)
    root = Path(tempfile.mkdtemp(prefix="memproxy-bench-pg-"))
    if user is not None:
        shutil.chown(root, user)
    server = PostgresServer(folder, root, 0, user)
    _STARTED.append(server)
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
            raise RuntimeError(f"PostgreSQL did not start: {server.log_tail()}")
        asyncio.run(_create_database(server.dsn("postgres")))
    except Exception as exc:  # whatever it was, the benchmark skips the target and says why
        _STARTED.remove(server)
        server.stop()
        return None, f"PostgreSQL did not start: {exc}"
    return server, ""


async def _create_database(dsn: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f"CREATE DATABASE {DATABASE}")
    finally:
        await conn.close()
