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


def test_the_consoles_files_and_the_scanners_model_are_packaged(tmp_path: Path) -> None:
    """What a wheel holds of the package (setuptools' build_py, as `pip wheel` runs it): every template and static
    file of the console, the vendored htmx and its license included (a console without them would serve 500s), and
    the write scanner's instruction model (without it every write would fail)."""
    import subprocess
    import sys

    built = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "-d", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    console = ROOT / "proxy" / "console"
    shipped = {
        path.relative_to(console) for path in console.rglob("*") if path.is_file() and "__pycache__" not in str(path)
    }
    packaged = {
        path.relative_to(tmp_path / "proxy" / "console") for path in (tmp_path / "proxy" / "console").rglob("*")
    }
    assert shipped <= packaged
    assert {
        Path("static/vendor/htmx.min.js"),
        Path("static/vendor/htmx-LICENSE.txt"),
        Path("templates/base.html"),
    } <= packaged
    assert (tmp_path / "proxy" / "scanning" / "instruction_model.json.gz").is_file()
