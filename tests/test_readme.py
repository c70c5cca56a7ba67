"""What the README tells a newcomer holds: its two commands (the ones CI runs), its Python snippet (run as written,
without a key) and its links into docs/. tests/test_docs.py runs every other snippet, the docs site's too."""

import re
import tomllib
from pathlib import Path

import pytest

from proxy.testing import FakeUpstream, run_memproxy

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


def test_ci_runs_the_readmes_commands() -> None:
    """.ci/run's test step is the README's second command, word for word, and its fresh-clone step the first."""
    first, second = (line.split("  #", 1)[0].strip() for line in blocks("bash")[0].splitlines()[:2])
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert second in ci
    assert sum("python -m pytest" in line for line in ci) == 1  # the suite runs once
    assert any(first in line for line in ci if "fresh" in line or "clone" in line)


def test_the_readme_links_only_to_pages_that_exist() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    assert links and [link for link in links if not (ROOT / link).is_file()] == []
    assert len(README.splitlines()) < 100  # what a newcomer needs; the rest is in docs/
