"""Every snippet in the README and the docs site runs as written, against the fake upstream and a real memproxy: Python
blocks are executed, shell blocks run in bash, JSON, YAML and TOML are parsed (a memproxy config file is loaded as
settings). A block that cannot run here says so with a `<!-- no-run: why -->` line right above it: it is still
parsed (bash -n, compile), and such blocks stay few. The generated reference pages hold every setting and route."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from proxy.config import Settings, load_settings
from proxy.testing import FakeUpstream, run_memproxy

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LANGUAGES = {"python", "bash", "json", "yaml", "toml", "text"}
NO_RUN = re.compile(r"^<!-- no-run: (.+) -->$")
FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```$", re.M | re.S)
MAX_NO_RUN = 8


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    no_run: str | None  # why it cannot run here, from the marker above it

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        above = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = NO_RUN.match(above)
        found.append(Block(page, line, match.group(1), match.group(2), marker.group(1) if marker else None))
    return found


BLOCKS = [block for page in PAGES for block in blocks_of(page)]


def of(language: str, *, runnable: bool | None = None) -> list[pytest.param]:
    return [
        pytest.param(block, id=block.name)
        for block in BLOCKS
        if block.language == language and (runnable is None or (block.no_run is None) == runnable)
    ]


def test_every_block_names_its_language_and_few_are_left_unrun() -> None:
    assert {block.name: block.language for block in BLOCKS if block.language not in LANGUAGES} == {}
    unrun = [block.name for block in BLOCKS if block.no_run is not None]
    assert len(unrun) <= MAX_NO_RUN, unrun
    assert len([b for b in BLOCKS if b.language in ("python", "bash") and b.no_run is None]) >= 6


# -- Python ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docs_proxy(fake_upstream_server: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One memproxy on the fake upstream for the module's snippets, keeping its store in ./.memproxy of
    :func:`docs_folder`, where the shell blocks run (as a newcomer's proxy and CLI share it)."""
    with run_memproxy(
        fake_upstream_server.base_url, {"store.path": str(docs_folder(tmp_path_factory) / ".memproxy")}
    ) as url:
        yield url.removesuffix("/v1")


_FOLDERS: dict[int, Path] = {}


def docs_folder(factory: pytest.TempPathFactory) -> Path:
    return _FOLDERS.setdefault(id(factory), factory.getbasetemp() / "docs-snippets")


@pytest.fixture
def keyless(monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's shell: no provider key set, so a snippet that needs one fails as it would for them."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "MEMPROXY_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("block", of("python", runnable=True))
@pytest.mark.usefixtures("keyless")
def test_a_python_snippet_runs_as_written(
    block: Block, docs_proxy: str, fake_upstream_server: FakeUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_upstream_server.reset()
    code = block.code.replace("http://127.0.0.1:8787", docs_proxy)
    exec(compile(code, block.name, "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out
    if "print(" in block.code:
        assert "Hello from the fake upstream." in printed
    upstream_paths = {request.path for request in fake_upstream_server.requests}
    for route, path in (("responses.create", "/v1/responses"), ("messages.create", "/v1/messages")):
        if route in block.code:  # it reached the fake, not a real provider's API
            assert path in upstream_paths


def test_the_responses_and_anthropic_snippet_reaches_the_fake_upstream_without_a_key(
    keyless: None, docs_proxy: str, fake_upstream_server: FakeUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    [block] = [b for b in BLOCKS if b.page.name == "clients.md" and b.language == "python"]
    fake_upstream_server.reset()
    exec(compile(block.code.replace("http://127.0.0.1:8787", docs_proxy), block.name, "exec"), {})
    assert capsys.readouterr().out == "Hello from the fake upstream.\n" * 2
    assert [r.path for r in fake_upstream_server.requests] == ["/v1/responses", "/v1/messages"]


@pytest.mark.parametrize("block", of("python", runnable=False))
def test_a_python_snippet_left_unrun_still_compiles(block: Block) -> None:
    compile(block.code, block.name, "exec")


# -- shell -------------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bash(code: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MEMPROXY_DATA_DIR", "MEMPROXY_CONFIG"):
        env.pop(name, None)
    return subprocess.run(["bash", "-e", "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("block", of("bash", runnable=True))
def test_a_shell_snippet_runs_as_written(
    block: Block,
    docs_proxy: str,
    fake_upstream_server: FakeUpstream,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    starts_its_own = "memproxy serve" in block.code or "python -m proxy.testing" in block.code
    if starts_its_own:  # the walkthrough: its own fake and proxy, on ports nobody holds, in a folder of its own
        proxy_port, fake_port, cwd = free_port(), free_port(), tmp_path
        code = block.code.replace("memproxy serve ", f"memproxy serve --port {proxy_port} ")
        # before it stops them: Anthropic Messages through that proxy reach the fake too, never Anthropic's API
        messages = (
            "curl -sf http://127.0.0.1:8787/v1/messages -H 'X-Memory-User: ada' -H 'x-api-key: no-key' "
            "-H 'anthropic-version: 2023-06-01' -H 'Content-Type: application/json' -d '{\"model\": \"claude-x\", "
            '"max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}\'; echo\n'
        )
        assert "\nkill %1 %2\n" in code
        code = code.replace("\nkill %1 %2\n", f"\n{messages}kill %1 %2\n")
    else:
        fake_upstream_server.reset()
        proxy_port = int(docs_proxy.rsplit(":", 1)[1])
        fake_port = int(fake_upstream_server.base_url.removesuffix("/v1").rsplit(":", 1)[1])
        cwd, code = docs_folder(tmp_path_factory), block.code
    code = code.replace("127.0.0.1:8787", f"127.0.0.1:{proxy_port}").replace("127.0.0.1:9100", f"127.0.0.1:{fake_port}")
    code = code.replace("--port 9100", f"--port {fake_port}")
    done = bash(code, cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    if starts_its_own:
        # what the walkthrough says happens: the model's memory call ran unseen, the memory was listed and recalled
        assert '"content":"Noted: tabs."' in done.stdout
        assert '"type":"message"' in done.stdout
        assert "Ada indents Python with tabs" in done.stdout
        assert "memory_search returned 1 memories." in done.stdout


@pytest.mark.parametrize("block", of("bash", runnable=False))
def test_a_shell_snippet_left_unrun_still_parses(block: Block, tmp_path: Path) -> None:
    done = subprocess.run(["bash", "-n"], input=block.code, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- configuration files and data --------------------------------------------------------------------------------


@pytest.mark.parametrize("block", of("json"))
def test_a_json_block_is_json(block: Block) -> None:
    json.loads(block.code)


@pytest.mark.parametrize("block", of("toml"))
def test_a_toml_block_is_toml(block: Block) -> None:
    tomllib.loads(block.code)


@pytest.mark.parametrize("block", of("yaml"))
def test_a_yaml_block_is_yaml_and_a_config_loads(block: Block, tmp_path: Path) -> None:
    tree = yaml.safe_load(block.code)
    if isinstance(tree, dict) and set(tree) <= set(Settings.model_fields):
        (tmp_path / "memproxy.yaml").write_text(block.code)
        load_settings(tmp_path / "memproxy.yaml", environ={"DATABASE_URL": "postgresql://db/memproxy"})


def test_the_mcp_host_snippets_name_memproxys_mcp_server() -> None:
    """Claude Code, Claude Desktop, Cursor and VS Code: each a memproxy server over /mcp or `memproxy mcp` (the forms
    tests/e2e/test_claude_code.py runs Claude Code with)."""
    configs = [json.loads(block.code) for block in BLOCKS if block.page.name == "mcp.md" and block.language == "json"]
    servers = [config.get("mcpServers", config.get("servers"))["memproxy"] for config in configs]
    assert len(servers) == 4
    for server in servers:
        if "command" in server:
            assert server["command"] == "memproxy" and server["args"][:3] == ["mcp", "--url", "http://127.0.0.1:8787"]
        else:
            assert server["url"] == "http://127.0.0.1:8787/mcp" and server["headers"] == {"X-Memory-User": "ada"}


# -- the generated references --------------------------------------------------------------------------------------


def generator():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import generate
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return generate


def test_the_configuration_reference_describes_every_setting_once() -> None:
    rows = generator().settings_rows()
    settings = [
        f"{section}.{key}"
        for section, model in Settings.model_fields.items()
        for key in model.annotation.model_fields  # type: ignore[union-attr]
    ]
    keys = [row[0] for row in rows]
    assert len(keys) == len(set(keys)) and set(settings) <= set(keys)
    assert [key for key, _, _, _, text in rows if not text] == []  # every field has its docstring
    assert rows[keys.index("upstream.anthropic_base_url")][:3] == (
        "upstream.anthropic_base_url",
        "string",
        '`"https://api.anthropic.com/v1"`',
    )
    assert "<!-- generated: settings -->" in (ROOT / "docs" / "configuration.md").read_text()


def test_the_api_reference_has_every_route_of_the_openapi_document() -> None:
    from proxy.api.openapi import document

    text = generator().openapi_markdown()
    for path, operations in document()["paths"].items():
        for method in operations:
            assert f"### `{method.upper()} {path}`" in text
    assert "<!-- generated: openapi -->" in (ROOT / "docs" / "reference" / "api.md").read_text()


def test_the_memory_tool_snippet_gets_a_server_side_memory_without_a_handler(
    keyless: None, fake_upstream: FakeUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    import httpx

    from proxy.testing import ToolCall

    [block] = [b for b in BLOCKS if "memory_20250818" in b.code and b.language == "python"]
    create = {"command": "create", "path": "/memories/deploys.md", "file_text": "Deploys on Fridays\n"}
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory", create)])
    fake_upstream.reply(content="Noted: you deploy on Fridays.")
    with run_memproxy(fake_upstream.base_url) as url:
        root = url.removesuffix("/v1")
        exec(compile(block.code.replace("http://127.0.0.1:8787", root), block.name, "exec"), {})
        files = httpx.get(f"{root}/memory/files", headers={"X-Memory-User": "ada"}).json()["files"]
    assert capsys.readouterr().out == "Noted: you deploy on Fridays.\n"
    assert [f["path"] for f in files] == ["/memories/deploys.md"]
    [result] = [b for b in fake_upstream.requests[-1].json["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert result["content"] == "File created successfully at: /memories/deploys.md"


def test_every_compatibility_rule_the_code_cites_is_in_the_docs() -> None:
    """`COMPAT E3` in a comment or test names a rule docs/compatibility.md states, in the repository itself."""
    text = (ROOT / "docs" / "compatibility.md").read_text()
    cited: set[str] = set()
    for source in [*(ROOT / "proxy").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]:
        for match in re.finditer(r"COMPAT ([A-Z][0-9]*(?:, [A-Z][0-9]*)*)", source.read_text()):
            cited.update(match.group(1).split(", "))
    assert len(cited) > 30
    defined = set(re.findall(r"^\| ([A-Z][0-9]+) \|", text, re.M)) | set(re.findall(r"^## ([A-Z])\. ", text, re.M))
    assert sorted(cited - defined) == []


def test_nothing_cites_a_document_outside_the_repository() -> None:
    pattern = re.compile(r"\.\./shared|DESIGN\.md|COMPAT\.md|\bseeds? 00\d", re.I)
    sources = [
        *(ROOT / "proxy").rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "bench").rglob("*.py"),
        *PAGES,
    ]
    found = [
        f"{source.relative_to(ROOT)}:{n}"
        for source in sources
        if source.name != "test_docs.py"
        for n, line in enumerate(source.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
