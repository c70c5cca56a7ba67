"""``memory.embeddings.enabled``: ``auto`` turns hybrid ranking on where the model's weights are on the machine and
stays lexical elsewhere, never downloading; an import (the CLI's too) embeds before it writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from proxy.cli import main
from proxy.config import load_settings
from proxy.memory.backends.files import owner_dir
from proxy.memory.caller import DEFAULT_WORKSPACE
from proxy.memory.store import Owner
from proxy.services import build_embeddings
from tests.embedding_model import MODEL, requires_model


def built(tmp_path: Path, **embeddings: Any) -> Any:
    settings = load_settings(environ={}, overrides={"store.path": str(tmp_path), "memory.embeddings": embeddings})
    return build_embeddings(settings)


def test_embeddings_are_off_unless_asked_for(tmp_path: Path) -> None:
    assert built(tmp_path) is None
    assert built(tmp_path, enabled=False, model=MODEL) is None


@requires_model
def test_auto_turns_hybrid_ranking_on_where_the_models_weights_are_installed(tmp_path: Path) -> None:
    found = built(tmp_path, enabled="auto")
    assert found is not None and found.model == MODEL
    assert (found.directory / "model.safetensors").is_file()
    found.close()
    given = built(tmp_path, model="all-MiniLM-L6-v2")  # a model named without `enabled`: on, as before
    assert given is not None and given.model == MODEL
    given.close()


def test_auto_stays_lexical_where_the_model_is_not_on_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # were the cache check to try the network, it fails here
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    caplog.set_level("INFO", logger="proxy")
    assert built(tmp_path, enabled="auto", model="sentence-transformers/not-on-this-machine") is None
    assert "ranking lexically" in caplog.text and "not on this machine" in caplog.text


def test_auto_is_read_from_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "memproxy.yaml"
    config.write_text("memory:\n  embeddings:\n    enabled: auto\n")
    assert load_settings(config, environ={}).memory.embeddings.enabled == "auto"
    config.write_text("memory:\n  embeddings:\n    enabled: yes-please\n")
    with pytest.raises(Exception, match="enabled"):
        load_settings(config, environ={})


@requires_model
def test_the_clis_import_embeds_each_memory_before_writing_it(tmp_path: Path) -> None:
    config = tmp_path / "memproxy.yaml"
    config.write_text("memory:\n  embeddings:\n    enabled: auto\n")
    lines = "\n".join(orjson.dumps({"text": f"Ada's garden has {n} apple trees"}).decode() for n in range(3))
    data = tmp_path / "data"
    result = CliRunner().invoke(
        main,
        ["memories", "import", "-", "--user", "ada", "--data-dir", str(data), "--config", str(config)],
        input=lines + "\n",
    )
    assert result.exit_code == 0, result.output
    stored = data / owner_dir(Owner("ada", DEFAULT_WORKSPACE)) / "memories.jsonl"
    rows = [orjson.loads(line) for line in stored.read_bytes().splitlines()]
    assert len(rows) == 3 and all(row["embedding"]["model"] == MODEL for row in rows)
