"""Claude Code with memproxy as an MCP server in its config, non-interactive (``claude -p``), its model traffic on the
fake upstream: memproxy's tools reach Claude Code's tool list, and the model's call to one reaches the store.

Both ways docs/mcp.md shows: streamable HTTP (``"type": "http"``, the url of ``/mcp``) and a command over stdio
(``memproxy mcp --url``). The fake plays a model that, while memproxy's tools are not in its tool list yet, waits
for the MCP servers with Claude Code's own ``WaitForMcpServers`` tool (Claude Code connects them while its first
request runs), then stores a memory with ``mcp__memproxy__memory_store``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.testing import FakeUpstream, Reply, ToolCall

from ..conftest import run_proxy

ROOT = Path(__file__).resolve().parents[2]
STORE = "mcp__memproxy__memory_store"
TABS = "User prefers tabs over spaces"

pytestmark = pytest.mark.skipif(
    shutil.which("claude") is None, reason="Claude Code is not installed: npm install -g @anthropic-ai/claude-code"
)


def blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        b for m in body["messages"] if isinstance(m.get("content"), list) for b in m["content"] if isinstance(b, dict)
    ]


def model(body: dict[str, Any]) -> Reply:
    """A model that waits for memproxy's tools, stores one memory with them, and says what it got back."""
    tools = {tool.get("name") for tool in body.get("tools") or ()}
    said = blocks(body)
    if not any("Remember" in str(m.get("content")) for m in body["messages"][:1]):
        return Reply(content="ok")  # Claude Code's own side requests (a title, a summary)
    stored = [b for b in said if b.get("type") == "tool_use" and b.get("name") == STORE]
    if stored:
        [result] = [b for b in said if b.get("type") == "tool_result" and b.get("tool_use_id") == stored[0]["id"]]
        return Reply(content=f"Stored: {json.dumps(result.get('content'))}")
    if STORE in tools:
        return Reply(content=None, tool_calls=[ToolCall(STORE, {"text": TABS, "pin": True, "scope": "user"})])
    waits = sum(1 for b in said if b.get("type") == "tool_use" and b.get("name") == "WaitForMcpServers")
    if "WaitForMcpServers" in tools and waits < 20:
        return Reply(
            content=None, tool_calls=[ToolCall("WaitForMcpServers", {"servers": ["memproxy"]}, id=f"w{waits}")]
        )
    return Reply(content="memproxy never connected")


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_claude_code_lists_memproxys_tools_and_its_call_reaches_the_store(
    fake_upstream: FakeUpstream, transport: str, tmp_path: Path
) -> None:
    fake_upstream.respond_with(model)
    with run_proxy(fake_upstream.base_url) as url:
        root = url.removesuffix("/v1")
        server: dict[str, Any] = {"type": "http", "url": f"{root}/mcp", "headers": {"X-Memory-User": "ada"}}
        if transport == "stdio":
            command = ["-m", "proxy", "mcp", "--url", root, "--user", "ada"]
            server = {"type": "stdio", "command": sys.executable, "args": command, "env": {"PYTHONPATH": str(ROOT)}}
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"memproxy": server}}))
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": fake_upstream.root_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CONFIG_DIR": str(tmp_path),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        allowed = f"{STORE},WaitForMcpServers"
        command = ["claude", "-p", "Remember that I prefer tabs.", "--mcp-config", str(config), "--strict-mcp-config",
                   "--allowedTools", allowed, "--model", "claude-sonnet-4-5", "--output-format", "json"]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        listed = {t.get("name") for r in fake_upstream.requests if r.json for t in r.json.get("tools") or ()}
        assert {f"mcp__memproxy__{name}" for name in ("memory_store", "memory_search", "memory_retrieve",
                                                       "memory_delete")} <= listed  # fmt: skip
        [memory] = httpx.get(f"{root}/memory/memories", headers={"X-Memory-User": "ada"}).json()["memories"]
    assert (memory["text"], memory["origin"], memory["pinned"]) == (TABS, "mcp", True)
    assert json.loads(done.stdout)["result"].startswith("Stored: ") and memory["id"] in done.stdout


SAID = ["Hi, I'm Ada. I indent with tabs.", "I work on a Rust compiler.", "Thanks, bye."]
COFFEE = "Ada drinks her coffee black"


def test_claude_code_through_memproxy_is_one_session_with_one_block_for_its_whole_conversation(
    fake_upstream: FakeUpstream, tmp_path: Path
) -> None:
    """Claude Code itself, its base URL on memproxy, three turns (``-p``, then ``--continue`` twice): it moves its cache
    breakpoint every turn, and its conversation is still one session whose block is the same bytes on every request."""
    fake_upstream.respond_with(lambda body: Reply(content="Noted."))
    key = {"x-api-key": "sk-ant-fake"}
    with run_proxy(fake_upstream.base_url) as url:
        root = url.removesuffix("/v1")
        assert httpx.post(f"{root}/memory/memories", json={"text": COFFEE}, headers=key).status_code == 201
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": root,
            "ANTHROPIC_API_KEY": key["x-api-key"],
            "CLAUDE_CONFIG_DIR": str(tmp_path),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
        for turn, said in enumerate(SAID):
            command = ["claude", "-p", said, "--model", "claude-sonnet-4-5", "--output-format", "json"]
            done = subprocess.run(
                command + (["--continue"] if turn else []), capture_output=True, text=True, env=env, cwd=tmp_path,
                timeout=300,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
            assert json.loads(done.stdout)["result"] == "Noted."
        sessions = httpx.get(f"{root}/memory/sessions?live=true", headers=key).json()["sessions"]
        lines = [json.loads(line) for line in httpx.get(f"{root}/memory/export", headers=key).text.splitlines()]
    conversation = [r.json for r in fake_upstream.requests if r.path == "/v1/messages" and r.json]
    assert [len(body["messages"]) for body in conversation] == [1, 3, 5]
    blocks_sent = [body["system"][-1]["text"] for body in conversation]
    assert COFFEE in blocks_sent[0] and blocks_sent == [blocks_sent[0]] * 3
    assert [(s["turns"], s["model"]) for s in sessions] == [(3, "claude-sonnet-4-5")]
    said = [line["text"] for line in lines if line.get("kind") == "history" and line["role"] == "user"]
    assert said == SAID
