"""Codex CLI itself, its model provider on memproxy (``codex exec``, then ``codex exec resume --last``): what
tests/clients/test_replayed.py replays from a recording, here with the client running."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.memory.block import BLOCK_TITLE
from proxy.testing import FakeUpstream, Reply

from ..conftest import run_proxy

SAID = ["Hi, I'm Ada. I indent with tabs.", "I work on a Rust compiler.", "Thanks, bye."]
COFFEE = "Ada drinks her coffee black"
KEY = "sk-codex-fake"

pytestmark = pytest.mark.skipif(
    shutil.which("codex") is None, reason="Codex is not installed: npm install -g @openai/codex"
)


def codex_home(home: Path, url: str) -> Path:
    """A Codex home whose model provider is memproxy, speaking the Responses API with a key from the environment."""
    (home / ".codex").mkdir(parents=True)
    provider = f'name = "memproxy"\nbase_url = "{url}"\nenv_key = "MEMPROXY_KEY"\nwire_api = "responses"\n'
    (home / ".codex" / "config.toml").write_text(
        f'model = "gpt-5"\nmodel_provider = "memproxy"\n[model_providers.memproxy]\n{provider}'
    )
    return home / ".codex"


def block_items(body: dict[str, Any]) -> list[Any]:
    return [item for item in body["input"] if BLOCK_TITLE in json.dumps(item.get("content"))]


def test_codex_through_memproxy_is_one_session_with_one_block_for_its_whole_conversation(
    fake_upstream: FakeUpstream, tmp_path: Path
) -> None:
    fake_upstream.respond_with(lambda body: Reply(content="Noted."))
    auth = {"authorization": f"Bearer {KEY}"}
    work = tmp_path / "work"
    work.mkdir()
    with run_proxy(fake_upstream.base_url) as url:
        root = url.removesuffix("/v1")
        assert httpx.post(f"{root}/memory/memories", json={"text": COFFEE}, headers=auth).status_code == 201
        env = {**os.environ, "HOME": str(tmp_path), "CODEX_HOME": str(codex_home(tmp_path, url)), "MEMPROXY_KEY": KEY}
        for turn, said in enumerate(SAID):
            command = ["codex", "exec", "--skip-git-repo-check", "--json", *(["resume", "--last"] if turn else [])]
            done = subprocess.run(
                [*command, said], capture_output=True, text=True, env=env, cwd=work, stdin=subprocess.DEVNULL,
                timeout=300,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
            events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
            said_back = [e["item"].get("text") for e in events if e.get("type") == "item.completed"]
            assert "Noted." in said_back, done.stdout[-2000:]
        sessions = httpx.get(f"{root}/memory/sessions?live=true", headers=auth).json()["sessions"]
        lines = [json.loads(line) for line in httpx.get(f"{root}/memory/export", headers=auth).text.splitlines()]
    conversation = [r.json for r in fake_upstream.requests if r.path == "/v1/responses" and r.json]
    assert len(conversation) == 3
    blocks_sent = [block_items(body) for body in conversation]
    assert len(blocks_sent[0]) == 1 and COFFEE in json.dumps(blocks_sent[0])
    assert blocks_sent == [blocks_sent[0]] * 3
    assert [(s["turns"], s["model"]) for s in sessions] == [(3, "gpt-5")]
    said = [line["text"] for line in lines if line.get("kind") == "history" and line["role"] == "user"]
    assert said == SAID
