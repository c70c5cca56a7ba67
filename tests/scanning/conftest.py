"""Prints the corpus counts at the end of a run that scored the corpus (see test_corpus.py)."""

from __future__ import annotations

import pytest

from .corpus import Score

SCORES: dict[str, Score] = {}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name, score in SCORES.items():
        terminalreporter.write_line(f"scanning corpus ({name}): {score.summary()}")
