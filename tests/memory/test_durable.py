"""Temp files crashed writers leave: told apart from live writers' by their process, removed at start-up."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from proxy.config import load_settings
from proxy.memory.backends.durable import left_by_a_crash, remove_crash_leftovers
from proxy.services import build_services

pytestmark = pytest.mark.anyio


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_temp_file_is_a_crash_s_when_its_writer_is_gone() -> None:
    now = time.time()
    assert left_by_a_crash(f"memories.jsonl.tmp-{dead_pid()}-1", now)
    assert left_by_a_crash("memories.jsonl.tmp-99999999999999999999-1", now)  # no such pid
    assert not left_by_a_crash(f"memories.jsonl.tmp-{os.getppid()}-1", now)  # a live writer
    assert not left_by_a_crash(f"memories.jsonl.tmp-{os.getpid()}-1", now)  # ours, being written
    assert left_by_a_crash(f"memories.jsonl.tmp-{os.getpid()}-1", 0.0)  # our pid, before we started: a restart
    assert not left_by_a_crash("memories.jsonl", 0.0)


def leftovers(root: Path, pid: int) -> list[Path]:
    """A temp file in each place a writer makes them: memories, episodes, jobs."""
    owner = root / "users" / "ab" / "workspaces" / "cd"
    paths = [
        owner / f"memories.jsonl.tmp-{pid}-7",
        owner / "episodes" / f"e-0123456789abcdef.json.tmp-{pid}-7",
        root / "jobs" / f"j-{'0' * 32}.json.tmp-{pid}-7",
    ]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b'{"half": ')
    return paths


def test_start_up_removes_crashed_writers_temp_files_and_nothing_else(tmp_path: Path) -> None:
    crashed = leftovers(tmp_path, dead_pid())
    live = leftovers(tmp_path / "live", os.getppid())
    kept = tmp_path / "users" / "ab" / "workspaces" / "cd" / "memories.jsonl"
    kept.write_bytes(b"{}\n")
    assert remove_crash_leftovers(tmp_path) == 3
    assert not any(path.exists() for path in crashed)
    assert all(path.exists() for path in live) and kept.exists()


async def test_the_proxy_removes_them_when_it_starts(tmp_path: Path) -> None:
    crashed = leftovers(tmp_path, dead_pid())
    settings = load_settings(overrides={"store.path": str(tmp_path), "upstream.base_url": "http://u/v1"})
    services = build_services(settings, transport=httpx.MockTransport(lambda request: httpx.Response(500)))
    async with services:
        assert not any(path.exists() for path in crashed)
