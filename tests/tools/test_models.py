"""Which models get the memory tools (``tools.models``): fnmatch patterns, the answer cached per model name."""

from __future__ import annotations

import pytest

from proxy.tools import models as models_module
from proxy.tools.models import ToolModels


def test_by_default_every_model_gets_the_tools_even_without_a_name() -> None:
    everyone = ToolModels(["*"])
    assert all(everyone(model) for model in ("gpt-4o", "qwen2.5-coder:0.5b", "", None, 42))


@pytest.mark.parametrize(
    ("model", "offered"),
    [
        ("gpt-4o-mini", True),
        ("claude-sonnet-4-5", True),
        ("o3", True),
        ("o3-mini", True),
        ("qwen2.5-coder:32b-instruct-q4", True),
        ("qwen2.5-coder:1.5b", False),
        ("qwen2.5-coder:0.5b", False),
        ("GPT-4o", False),  # case-sensitive, as upstream.litellm_models
        ("o2", False),
        ("", False),
        (None, False),  # no model: matched as "", which only a catch-all pattern takes
    ],
)
def test_only_models_matching_a_pattern_get_the_tools(model: object, offered: bool) -> None:
    some = ToolModels(["gpt-*", "claude-*", "o[134]*", "qwen2.5-coder:32b*"])
    assert some(model) is offered
    assert some(model) is offered  # and the cached answer is the same


def test_no_patterns_means_no_model_gets_the_tools() -> None:
    assert not ToolModels([])("gpt-4o")


def test_each_model_name_is_matched_once_then_answered_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    matched: list[str] = []

    def counting(name: str, pattern: str) -> bool:
        matched.append(name)
        return name.startswith(pattern.rstrip("*"))

    monkeypatch.setattr(models_module, "fnmatchcase", counting)
    some = ToolModels(["gpt-*"])
    for _ in range(100):
        assert some("gpt-4o") and not some("llama3")
    assert sorted(set(matched)) == ["gpt-4o", "llama3"] and len(matched) == 2


def test_the_cache_stays_bounded_and_its_answers_right_when_names_churn() -> None:
    some = ToolModels(["gpt-*"], cache_size=8)
    for n in range(1000):
        assert some(f"gpt-{n}") and not some(f"local-{n}")
    assert len(some._answers) == 8
    assert some("gpt-0") and not some("local-0")  # evicted long ago: matched again, same answer
