"""Which models get the memory tools (``tools.models``).

Small local models (Qwen2.5-Coder 0.5B/1.5B, say) cannot call tools: offered some, they write pseudo-calls
as plain text instead of answering, and pay for the schemas besides. The operator lists the models that
can, as fnmatch patterns matched against the request's ``model`` (case-sensitive, like
``upstream.litellm_models``); the others still get their memories, without the tools.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

CACHE_SIZE = 256  # model names remembered: a deployment sees a handful, a client sending random ones only churns it


class ToolModels:
    """The patterns, and the answer per model name cached, so a request pays a dict lookup, not a pattern match."""

    def __init__(self, patterns: Iterable[str], *, cache_size: int = CACHE_SIZE) -> None:
        self.patterns = tuple(patterns)
        self.everyone = "*" in self.patterns  # the default: no lookup at all
        self.cache_size = cache_size
        self._answers: dict[str, bool] = {}

    def __call__(self, model: object) -> bool:
        """Whether a request for ``model`` gets the memory tools (a missing or non-string model matches as "")."""
        if self.everyone:
            return True
        name = model if isinstance(model, str) else ""
        answer = self._answers.get(name)
        if answer is None:
            answer = any(fnmatchcase(name, pattern) for pattern in self.patterns)
            if len(self._answers) >= self.cache_size:
                del self._answers[next(iter(self._answers))]  # the oldest: insertion order
            self._answers[name] = answer
        return answer
