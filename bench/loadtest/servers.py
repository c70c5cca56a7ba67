"""The benchmark's child processes: each server on a free port in a process group of its own, so that stopping it
takes down whatever it started, and its CPU and memory can be read off /proc."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .cases import API_KEY
from .paths import BENCH_DIR, LOG_DIR

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the benchmark dies, even by SIGKILL (Linux only; best effort)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Server:
    name: str
    cmd: list[str]
    port: int
    base_path: str = "/v1"  # what a client puts before /chat/completions
    health_path: str = "/v1/models"
    client_key: str = API_KEY  # the bearer token clients send it
    env: dict[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 30.0
    proc: subprocess.Popen[bytes] | None = None
    log_file: TextIO | None = None

    @property
    def log_path(self) -> Path:
        return LOG_DIR / f"{self.name}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    def start(self) -> None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        self.log_file = self.log_path.open("w")
        self.log_file.write(f"$ {' '.join(self.cmd)}\n")
        self.log_file.flush()
        _RUNNING.append(self)
        self.proc = subprocess.Popen(
            self.cmd,
            stdin=subprocess.DEVNULL,
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, **self.env},
            cwd=BENCH_DIR.parent,
            start_new_session=True,  # its own process group: stop() takes down any workers it spawns
            preexec_fn=_die_with_parent,  # no threads exist yet when servers start
        )

    def wait_healthy(self) -> str | None:
        """Poll the health path until it answers 200; returns None, or why the server is not up."""
        assert self.proc is not None
        url = f"http://127.0.0.1:{self.port}{self.health_path}"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return f"exited with status {self.proc.returncode} before it was healthy: {self.log_tail()}"
            with contextlib.suppress(OSError, urllib.error.URLError), opener.open(url, timeout=2) as response:
                if response.status == 200:
                    return None
            time.sleep(0.1)
        return f"not healthy at {url} after {self.startup_timeout_s:.0f}s: {self.log_tail()}"

    def log_tail(self, lines: int = 3) -> str:
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace").strip().splitlines()[1:]
            return " | ".join(line.strip() for line in text[-lines:]) or "(no output)"
        return "(no log)"

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=wait_s)
                    break
        elif proc is not None and _session_processes(proc.pid):  # the leader is gone but something it started lingers
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None

    def cpu_seconds(self) -> float:
        """User + system CPU time of every live process in the server's session."""
        return sum(cpu for _, cpu, _ in _session_processes(self.proc.pid)) if self.proc else 0.0

    def rss_mb(self) -> tuple[float, float]:
        """The server process's resident memory, and that of the processes it started (memproxy's extraction)."""
        found = _session_processes(self.proc.pid) if self.proc else []
        own = sum(rss for pid, _, rss in found if pid == self.proc.pid) if self.proc else 0
        return own / 2**20, (sum(rss for _, _, rss in found) - own) / 2**20


_RUNNING: list[Server] = []  # started and not yet stopped: stop_all() takes them down at exit


def stop_all() -> None:
    while _RUNNING:
        _RUNNING.pop().stop()


def _session_processes(sid: int) -> list[tuple[int, float, int]]:
    """(pid, cpu seconds, rss bytes) of each process whose session id is ``sid``, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is field 3 (state): session is field 6, utime/stime 14/15, rss (pages) 24.
        if int(fields[3]) == sid:
            found.append((int(entry), (int(fields[11]) + int(fields[12])) / CLK_TCK, int(fields[21]) * PAGE_SIZE))
    return found
