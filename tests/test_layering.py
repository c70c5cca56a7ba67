"""The layout's rules of who may import whom, checked over every module's imports (lazy ones included).

The edges (app, pipeline, services, cli, api, console) sit on top; admin (managing the store: keys, users, forgetting
a user, health) just below them, for the API, the console and the CLI alike; the tool loop, the dialects and the pipe in
the middle; memory and episodes at the bottom, never importing HTTP; config, errors, metrics, logs and
scanning are the foundation everyone may use.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "proxy"
EDGES = (
    "proxy.app",
    "proxy.pipeline",
    "proxy.passthrough",
    "proxy.serving",
    "proxy.services",
    "proxy.cli",
    "proxy.demo",
    "proxy.api",
    "proxy.console",
    "proxy.__main__",
)
HTTP = ("starlette", "uvicorn")
PACKAGES = (
    "proxy.pipe",
    "proxy.dialects",
    "proxy.tools",
    "proxy.memory",
    "proxy.episodes",
    "proxy.auth",
    "proxy.context",
    "proxy.admin",
)

# module prefix -> prefixes it must never import (its own subtree is always allowed)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "proxy.memory": (
        *EDGES,
        *HTTP,
        "httpx",
        "litellm",
        "proxy.pipe",
        "proxy.dialects",
        "proxy.tools",
        "proxy.episodes",
        "proxy.auth",
        "proxy.admin",
        "proxy.testing",
    ),
    "proxy.episodes": (*EDGES, *HTTP, "proxy.dialects", "proxy.tools", "proxy.auth", "proxy.admin", "proxy.testing"),
    "proxy.dialects": (
        *EDGES,
        "proxy.tools",
        "proxy.episodes",
        "proxy.auth",
        "proxy.admin",
        "proxy.memory.backends",
        "proxy.memory.service",
        "proxy.testing",
        "litellm",
    ),
    "proxy.pipe": (
        *EDGES,
        "proxy.memory",
        "proxy.episodes",
        "proxy.dialects",
        "proxy.tools",
        "proxy.auth",
        "proxy.admin",
        "proxy.testing",
    ),
    "proxy.tools": (*EDGES, "proxy.episodes", "proxy.auth", "proxy.admin", "proxy.memory.backends", "proxy.testing"),
    "proxy.auth": (
        *EDGES,
        "proxy.pipe",
        "proxy.dialects",
        "proxy.tools",
        "proxy.episodes",
        "proxy.admin",
        "proxy.testing",
    ),
    # Managing the store: below the HTTP layer (the API, the console and the CLI call it), above what it manages.
    "proxy.admin": (*EDGES, *HTTP, "proxy.pipe", "proxy.dialects", "proxy.memory.backends", "proxy.testing"),
    # Pure planning of offload and window on the chat-shaped view: the dialects apply it, so it sits below them.
    "proxy.context": (*EDGES, *HTTP, *(p for p in PACKAGES if p != "proxy.context"), "proxy.testing"),
    "proxy.api": ("proxy.app", "proxy.pipeline", "proxy.cli", "proxy.demo", "proxy.console", "proxy.testing"),
    # The console is an edge beside the API: it calls the services, never the chat path or the API's routes.
    "proxy.console": (
        "proxy.app",
        "proxy.pipeline",
        "proxy.cli",
        "proxy.demo",
        "proxy.api",
        "proxy.pipe",
        "proxy.dialects",
        "proxy.tools",
        "proxy.testing",
    ),
}
FOUNDATION = ("proxy.config", "proxy.errors", "proxy.metrics", "proxy.logs", "proxy.scanning", "proxy.client_json")
# The one crossing allowed: episodes call the extraction model through the litellm route the pipe also uses.
ALLOWED = {("proxy.episodes", "proxy.pipe.providers")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from . import x` names a module
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations() -> list[str]:
    broken = []
    for path in sorted(ROOT.rglob("*.py")):
        module = module_name(path)
        rules = [(layer, banned) for layer, banned in FORBIDDEN.items() if under(module, layer)]
        if any(under(module, name) for name in FOUNDATION):
            rules.append(("foundation", (*EDGES, *PACKAGES, "proxy.testing")))
        for layer, banned in rules:
            for target in imports_of(path):
                if layer != "foundation" and under(target, layer):
                    continue
                if any(under(target, prefix) for prefix in banned) and (layer, _package_of(target)) not in ALLOWED:
                    broken.append(f"{module} imports {target} ({layer} must not)")
    return broken


def _package_of(target: str) -> str:
    return target if target.count(".") <= 2 else ".".join(target.split(".")[:3])


def test_no_module_imports_across_its_layers_rules() -> None:
    assert violations() == []


def test_the_check_catches_a_memory_module_importing_the_http_layer() -> None:
    """The rules are not vacuous: a planted upward import is reported."""
    planted = ROOT / "memory" / "_planted_for_test.py"
    planted.write_text("from ..pipe.relay import buffered_response\nimport starlette\n")
    try:
        found = violations()
    finally:
        planted.unlink()
    assert "proxy.memory._planted_for_test imports proxy.pipe.relay (proxy.memory must not)" in found
    assert "proxy.memory._planted_for_test imports starlette (proxy.memory must not)" in found


def test_the_lexical_path_never_loads_the_embedding_model(tmp_path: Path) -> None:
    """With ``memory.embeddings.model`` unset, a running app has imported neither numpy nor the model's code."""
    script = f"""
import sys
from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
create_app(build_services(load_settings(overrides={{"store.path": {str(tmp_path)!r}}})))
loaded = ("numpy", "tokenizers", "safetensors", "threadpoolctl", "proxy.memory.embeddings", "proxy.memory.encoder")
print(",".join(name for name in loaded if name in sys.modules))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT.parent)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == ""
