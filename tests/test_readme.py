"""What the README tells a newcomer holds: its first commands, its Python snippets (run as written, without a key),
its MCP hosts' configurations and its configuration table (every setting, nothing else)."""

import json
import re
import tomllib
from pathlib import Path

import httpx
import pytest

from proxy.config import Settings
from proxy.testing import FakeUpstream, ToolCall, run_memproxy

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.M | re.S)


def test_the_first_commands_install_and_run_the_demo_then_the_tests() -> None:
    first, second = blocks("bash")[0].splitlines()[:2]
    assert first.startswith("pip install -e . && memproxy demo ")
    assert second.startswith("pip install -e '.[dev]' && python -m pytest -q ")
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert required == ">=3.11" and "Python 3.11 or newer" in README and "venv" in README


def test_the_python_snippet_runs_as_written_without_a_key(
    fake_upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    snippet = blocks("python")[0]
    assert "http://127.0.0.1:8787/v1" in snippet
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_upstream.reply(content="hello, ada")
    with run_memproxy(fake_upstream.base_url) as url:
        exec(compile(snippet.replace("http://127.0.0.1:8787/v1", url), "README.md", "exec"), {})
    assert capsys.readouterr().out == "hello, ada\n"
    assert fake_upstream.requests[0].headers["authorization"] == "Bearer no-key"


def documented_keys() -> list[str]:
    """The keys in the README's configuration table: `section.key` / `key2` rows name two keys of one section."""
    table = README.split("| key | default | meaning |", 1)[1].split("\n\n", 1)[0]
    keys = []
    for row in table.splitlines()[2:]:
        names = re.findall(r"`([a-z_.]+)`", row.split("|")[1])
        section = names[0].split(".")[0]
        keys += [name if "." in name else f"{section}.{name}" for name in names]
    return keys


def test_the_configuration_table_names_every_setting_once() -> None:
    settings = [
        f"{section}.{key}"
        for section, model in Settings.model_fields.items()
        for key in model.annotation.model_fields  # type: ignore[union-attr]
    ]
    documented = documented_keys()
    assert sorted(documented) == sorted(settings)


def test_the_memory_tool_snippet_gets_a_server_side_memory_without_a_handler(
    fake_upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    [snippet] = [block for block in blocks("python") if "memory_20250818" in block]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-readme")
    create = {"command": "create", "path": "/memories/deploys.md", "file_text": "Deploys on Fridays\n"}
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory", create)])
    fake_upstream.reply(content="Noted: you deploy on Fridays.")
    with run_memproxy(fake_upstream.base_url) as url:
        root = url.removesuffix("/v1")
        exec(compile(snippet.replace("http://127.0.0.1:8787", root), "README.md", "exec"), {})
        files = httpx.get(f"{root}/memory/files", headers={"X-Memory-User": "ada"}).json()["files"]
    assert capsys.readouterr().out == "Noted: you deploy on Fridays.\n"
    assert [f["path"] for f in files] == ["/memories/deploys.md"]
    [result] = [b for b in fake_upstream.requests[-1].json["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["content"] == "File created successfully at: /memories/deploys.md"


def test_the_mcp_host_snippets_name_memproxys_mcp_server() -> None:
    """Claude Code, Claude Desktop, Cursor and VS Code: valid JSON, each a memproxy server over /mcp or `memproxy mcp`
    (the forms tests/e2e/test_claude_code.py runs Claude Code with)."""
    configs = [json.loads(block) for block in blocks("json")]
    hosts = [config.get("mcpServers", config.get("servers")) for config in configs]
    servers = [host["memproxy"] for host in hosts if host is not None]  # other JSON blocks show other things
    assert len(servers) == 4
    for server in servers:
        if "command" in server:
            assert server["command"] == "memproxy" and server["args"][:3] == ["mcp", "--url", "http://127.0.0.1:8787"]
        else:
            assert server["url"] == "http://127.0.0.1:8787/mcp" and server["headers"] == {"X-Memory-User": "ada"}
