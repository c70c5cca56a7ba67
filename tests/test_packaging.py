"""The distribution's name and version: `memproxy` on the package index is another project, so the distribution is
named apart, while the command stays `memproxy` and `memproxy --version` shows the running code's version."""

import tomllib
from pathlib import Path

from click.testing import CliRunner

import proxy
from proxy.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_the_distribution_is_not_named_like_the_unrelated_memproxy() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == proxy.DISTRIBUTION != "memproxy"
    assert project["scripts"] == {"memproxy": "proxy.cli:main"}


def test_the_command_shows_the_version_the_distribution_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == proxy.__version__
    result = CliRunner().invoke(main, ["--version"])
    assert (result.exit_code, result.output) == (0, f"memproxy, version {proxy.__version__}\n")


def test_every_install_line_names_the_distribution() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    assert f"pip uninstall -y {proxy.DISTRIBUTION} " in docker
    assert "pip uninstall -y memproxy " not in docker
