"""Where a benchmark writes its results: strict JSON, one file per script under bench/results/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_results(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_finite(results), indent=2, default=str, allow_nan=False) + "\n")


def _finite(value: Any) -> Any:
    """NaN and infinities become null, so the JSON is strict JSON."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
