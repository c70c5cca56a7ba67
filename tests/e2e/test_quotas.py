"""Per-owner limits through a real proxy: one caller opening sessions past its share, or sending conversations past
its bytes, ends only its own sessions; history past its quota loses its oldest lines and stays searchable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from proxy.testing import FakeUpstream

from ..conftest import run_proxy
from .episode_client import sessions
from .memory_client import api

LIMITS = {
    "sessions.max_live": 60,
    "sessions.max_live_per_key": 20,
    "sessions.max_bytes_per_key": 1_000_000,
    "history.max_chars_per_owner": 60_000,
}


@pytest.fixture(scope="module")
def limited(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_upstream_server.base_url, LIMITS) as url:
        yield url


def say(url: str, user: str, text: str, session: str) -> None:
    body = {"model": "fake-model", "messages": [{"role": "user", "content": text}]}
    headers = {"X-Memory-User": user, "X-Memory-Session": session, "Authorization": "Bearer sk-test"}
    answer = httpx.post(f"{url}/chat/completions", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text


def test_one_caller_opening_sessions_past_its_share_ends_only_its_own(
    limited: str, fake_upstream: FakeUpstream
) -> None:
    say(limited, "ada-victim", "My deploy target is Fly.io.", "ada-s1")
    for n in range(100):  # past the global limit of 60 too: 100 sessions of one user
        say(limited, "mallory", f"session {n}", f"m-{n}")
    assert [s["id"] for s in sessions(limited, "ada-victim")] == ["ada-s1"]
    assert len(sessions(limited, "mallory")) == LIMITS["sessions.max_live_per_key"]


def test_one_caller_holding_large_conversations_keeps_only_its_bytes(limited: str, fake_upstream: FakeUpstream) -> None:
    say(limited, "ada-bytes", "A short one.", "ada-b1")
    big = "word " * 60_000  # 300 KB a request
    for n in range(10):
        say(limited, "mallory-bytes", big, f"mb-{n}")
    assert [s["id"] for s in sessions(limited, "ada-bytes")] == ["ada-b1"]
    assert len(sessions(limited, "mallory-bytes")) <= 3  # 1 MB of 300 KB conversations


def test_history_past_its_quota_keeps_the_newest_lines_and_is_still_searched(
    limited: str, fake_upstream: FakeUpstream
) -> None:
    for n in range(12):  # 12 user messages of 15,000 characters: three times the quota
        say(limited, "ada-history", f"entry {n} " + "lorem ipsum dolor " * 830 + f"marker{n}", f"h-{n}")
    found = api(limited, "ada-history", "GET", "/memory/history", params={"q": "marker11"}).json()["history"]
    assert found and found[0]["text"].endswith("marker11")
    kept = [orjson.loads(line) for line in api(limited, "ada-history", "GET", "/memory/export").text.splitlines()]
    said: list[Any] = [x["text"] for x in kept if x.get("kind") == "history"]
    assert sum(len(text) for text in said) <= LIMITS["history.max_chars_per_owner"] * 1.1
    assert not any(text.endswith("marker0") for text in said)  # the oldest went first
