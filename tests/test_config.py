import subprocess
import sys
from pathlib import Path

import pytest

from proxy.config import check_exposure, load_settings
from proxy.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "memproxy.yaml"
    path.write_text(text)
    return path


def test_defaults_match_the_documented_contract() -> None:
    settings = load_settings()
    assert (settings.server.host, settings.server.port) == ("127.0.0.1", 8787)
    assert settings.upstream.base_url == "https://api.openai.com/v1" and settings.upstream.api_key is None
    assert settings.store.path == "./.memproxy" and settings.tools.max_hops == 4
    assert settings.tools.models == ("*",)  # every model gets the memory tools unless the operator narrows it


def test_the_models_that_get_the_tools_come_from_the_file_or_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, 'tools: {models: ["gpt-*", "claude-*"]}\n')
    assert load_settings(path).tools.models == ("gpt-*", "claude-*")
    assert load_settings(environ={"MEMPROXY_TOOLS_MODELS": '["gpt-4o*"]'}).tools.models == ("gpt-4o*",)
    assert load_settings(environ={"MEMPROXY_TOOLS_MODELS": "[]"}).tools.models == ()  # no model gets them


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    path = write(tmp_path, "server: {port: 1111}\nupstream: {base_url: http://file/v1, timeout_s: 5}\n")
    environ = {"MEMPROXY_PORT": "2222", "MEMPROXY_UPSTREAM_BASE_URL": "http://env/v1"}
    settings = load_settings(path, environ, {"upstream.base_url": "http://flag/v1", "server.host": None})
    assert settings.server.port == 2222
    assert settings.upstream.base_url == "http://flag/v1"
    assert settings.upstream.timeout_s == 5
    assert settings.server.host == "127.0.0.1"


def test_the_config_path_can_come_from_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, "memory: {max_inject_count: 3}\n")
    assert load_settings(environ={"MEMPROXY_CONFIG": str(path)}).memory.max_inject_count == 3


def test_data_dir_variable_sets_the_store_path() -> None:
    assert load_settings(environ={"MEMPROXY_DATA_DIR": "/data"}).store.path == "/data"


def test_an_api_key_can_be_taken_from_an_environment_variable(tmp_path: Path) -> None:
    path = write(tmp_path, "upstream: {api_key: '${OPENAI_API_KEY}'}\n")
    assert load_settings(path, {"OPENAI_API_KEY": "sk-live"}).upstream.api_key == "sk-live"
    with pytest.raises(ConfigError, match="upstream.api_key: environment variable OPENAI_API_KEY is not set"):
        load_settings(path, {})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("upstream: {timout_s: 3}\n", "upstream.timout_s: unknown key"),
        ("caching: {}\n", "caching: unknown key"),
        ("server: {port: eighty}\n", "server.port: "),
        ("memory: {inject_mode: sometimes}\n", "memory.inject_mode: "),
        ("- a list\n", "must be a mapping"),
        ("server: {port: [\n", "not valid YAML"),
    ],
)
def test_a_bad_file_names_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_settings(write(tmp_path, text))


def test_an_unknown_memproxy_variable_is_refused() -> None:
    with pytest.raises(ConfigError, match="MEMPROXY_PROT"):
        load_settings(environ={"MEMPROXY_PROT": "1"})


def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_settings(tmp_path / "missing.yaml")


def test_serve_with_a_bad_config_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, "upstream: {timout_s: 3}\n")
    result = subprocess.run(
        [sys.executable, "-m", "proxy", "serve", "--config", str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "memproxy: config error: upstream.timout_s: unknown key"


def test_the_example_config_documents_every_key_with_its_default() -> None:
    import yaml

    from proxy.config import Settings

    example = Path(__file__).resolve().parents[1] / "config.example.yaml"
    documented = yaml.safe_load(example.read_text())
    assert {s: set(keys) for s, keys in documented.items()} == {
        section: set(model.annotation.model_fields) for section, model in Settings.model_fields.items()
    }
    assert load_settings(example) == Settings()


def test_a_bare_off_in_yaml_means_off(tmp_path: Path) -> None:
    config = tmp_path / "memproxy.yaml"
    config.write_text("memory:\n  inject_mode: off\n")
    assert load_settings(config).memory.inject_mode == "off"
    assert load_settings(environ={"MEMPROXY_MEMORY_INJECT_MODE": "off"}).memory.inject_mode == "off"


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "memproxy.internal"])
def test_open_mode_beyond_loopback_refuses_to_start_unless_allowed(host: str) -> None:
    with pytest.raises(ConfigError, match="auth.mode: open"):
        check_exposure(load_settings(overrides={"server.host": host}))
    check_exposure(load_settings(overrides={"server.host": host, "auth.allow_open": True}))
    check_exposure(load_settings(overrides={"server.host": host, "auth.mode": "keys"}))


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_open_mode_on_loopback_starts(host: str) -> None:
    check_exposure(load_settings(overrides={"server.host": host}))


def test_serve_in_open_mode_on_all_interfaces_stops_with_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "proxy", "serve", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("memproxy: config error: auth.mode: open")
