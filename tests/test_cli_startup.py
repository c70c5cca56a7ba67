"""What a newcomer's first commands run into, checked with real ``python -m proxy`` processes: a start-up problem is
one line on stderr and exit status 2, before anything says "listening"; the CLI's own variables are not config."""

import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from proxy.cli import main
from proxy.config import ENV_ALIASES, ENV_PREFIX, NOT_SETTINGS, Settings


def clean_env(**extra: str) -> dict[str, str]:
    """The test run's environment without MEMPROXY_* variables (a developer's own must not leak in)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}
    return {**env, **extra}


def memproxy(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "proxy", *args], capture_output=True, text=True, timeout=120, env=clean_env(**env)
    )


def assert_one_line(result: subprocess.CompletedProcess[str], start: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(start), result.stderr
    assert "Traceback" not in result.stderr and "listening" not in result.stderr


# -- MEMPROXY_USER ---------------------------------------------------------------------------------------------


def test_memproxy_user_names_the_user_of_a_memories_command(tmp_path: Path) -> None:
    data = str(tmp_path)
    added = memproxy("memories", "add", "Ada indents Python with tabs", "--data-dir", data, MEMPROXY_USER="ada")
    assert (added.returncode, added.stdout, added.stderr) == (0, "m-1\n", "")
    listed = memproxy("memories", "list", "--data-dir", data, MEMPROXY_USER="ada")
    assert (listed.returncode, listed.stdout) == (0, "m-1\tfact\tAda indents Python with tabs\n")


def test_a_client_key_kept_in_memproxy_key_does_not_stop_a_command(tmp_path: Path) -> None:
    """The docs' client examples read the memproxy key from MEMPROXY_KEY: exporting it must not break the CLI."""
    listed = memproxy("memories", "list", "--user", "ada", "--data-dir", str(tmp_path), MEMPROXY_KEY="mp-abc")
    assert (listed.returncode, listed.stderr) == (0, "")


def test_a_misspelt_variable_is_still_refused(tmp_path: Path) -> None:
    result = memproxy("memories", "list", "--data-dir", str(tmp_path), MEMPROXY_USR="ada")
    assert_one_line(result, "memproxy: config error: unknown environment variable MEMPROXY_USR")


def commands(group: click.Group) -> Iterator[click.Command]:
    for command in group.commands.values():
        yield command
        if isinstance(command, click.Group):
            yield from commands(command)


def test_every_variable_the_cli_declares_is_known_to_the_config_loader() -> None:
    settings = {
        f"{ENV_PREFIX}{section}_{key}".upper()
        for section, model in Settings.model_fields.items()
        for key in model.annotation.model_fields  # type: ignore[union-attr]
    }
    declared = {
        name
        for command in commands(main)
        for param in command.params
        for name in ([param.envvar] if isinstance(param.envvar, str) else param.envvar or [])
    }
    assert "MEMPROXY_USER" in declared
    assert declared <= NOT_SETTINGS | settings | set(ENV_ALIASES)
    assert not NOT_SETTINGS & settings


# -- the data directory ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["serve", "--port", "0"],
        ["memories", "list", "--user", "ada"],
        ["memories", "add", "a fact", "--user", "ada"],
        ["episodes", "list", "--user", "ada"],
        ["keys", "create", "--user", "ada"],
        ["keys", "list"],
    ],
)
def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path, command: list[str]) -> None:
    data = tmp_path / "memories.txt"
    data.write_text("not a directory")
    result = memproxy(*command, "--data-dir", str(data))
    assert_one_line(result, f"memproxy: config error: store.path: {data} is not a directory")


def test_a_data_dir_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = memproxy("memories", "list", "--user", "ada", MEMPROXY_DATA_DIR=str(tmp_path / "file" / "data"))
    assert_one_line(result, f"memproxy: config error: store.path: {tmp_path / 'file' / 'data'} cannot be")


# -- the port --------------------------------------------------------------------------------------------------


def test_a_port_in_use_is_one_line_before_listening(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = memproxy("serve", "--port", str(port), "--data-dir", str(tmp_path))
    assert_one_line(result, f"memproxy: cannot listen on 127.0.0.1:{port}: address already in use")


# -- the upstream ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["not a url", "ftp://example.com/v1", "localhost:8000/v1", "http:///v1"])
def test_an_upstream_that_is_not_an_http_url_is_one_line(tmp_path: Path, url: str) -> None:
    result = memproxy("serve", "--port", "0", "--upstream", url, "--data-dir", str(tmp_path))
    assert_one_line(result, "memproxy: config error: upstream.base_url: must be an http:// or https:// URL")


def stderr_until_listening(*args: str) -> list[str]:
    """Starts ``memproxy serve``, returns its stderr lines up to and including the "listening" one, stops it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy", "serve", "--port", "0", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    lines: queue.Queue[str] = queue.Queue()
    stderr = process.stderr
    assert stderr is not None

    def read() -> None:
        for line in stderr:
            lines.put(line)
        lines.put("")  # the process ended

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen: list[str] = []
    with process:
        try:
            while not seen or not seen[-1].startswith("memproxy listening on"):
                line = lines.get(timeout=60)  # a guard for a hung process: the line comes, or "" when it ends
                assert line, f"memproxy serve ended before listening: {seen}"
                seen.append(line.rstrip("\n"))
        finally:
            process.terminate()
            reader.join(timeout=30)  # EOF: the process is gone
    return seen


def test_an_upstream_without_a_path_starts_with_one_warning(tmp_path: Path) -> None:
    seen = stderr_until_listening("--upstream", "http://127.0.0.1:9", "--data-dir", str(tmp_path))
    assert seen[:-1] == [
        "memproxy: warning: upstream.base_url http://127.0.0.1:9 has no path: "
        "requests go to http://127.0.0.1:9/chat/completions (without /v1)"
    ]
    assert seen[-1].startswith("memproxy listening on http://127.0.0.1:") and seen[-1].endswith(
        " -> http://127.0.0.1:9"
    )


def test_an_upstream_with_a_path_starts_without_a_warning(tmp_path: Path) -> None:
    seen = stderr_until_listening("--upstream", "http://127.0.0.1:9/v1", "--data-dir", str(tmp_path))
    assert len(seen) == 1 and ":0/v1" not in seen[0]  # --port 0: the line names the port it got


@pytest.fixture
def unwritable_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory nobody may write to: root ignores modes, so as root it is made immutable (chattr +i)."""
    data = tmp_path / "read-only"
    data.mkdir()
    if os.geteuid() == 0:
        made = subprocess.run(["chattr", "+i", str(data)], capture_output=True)
        if made.returncode != 0:
            pytest.skip(f"running as root and chattr +i is not allowed here: {made.stderr.decode().strip()}")
        yield data
        subprocess.run(["chattr", "-i", str(data)], check=True)
    else:
        data.chmod(0o555)
        yield data
        data.chmod(0o755)


def test_a_data_dir_memproxy_cannot_write_is_refused_at_start(unwritable_dir: Path) -> None:
    result = memproxy("serve", "--port", "0", "--data-dir", str(unwritable_dir))
    assert_one_line(result, f"memproxy: config error: store.path: {unwritable_dir} is not writable: ")
    assert list(unwritable_dir.iterdir()) == []  # and nothing was left in it


def test_a_data_dir_that_does_not_exist_yet_is_made_at_start(tmp_path: Path) -> None:
    lines = stderr_until_listening("--data-dir", str(tmp_path / "new" / "data"))
    assert lines[-1].startswith("memproxy listening on ")
    assert (tmp_path / "new" / "data").is_dir() and list((tmp_path / "new" / "data").glob(".write-check-*")) == []
