"""Prints the corpus counts at the end of a run that scored the corpus (see test_corpus.py, test_write_decisions.py)."""

from __future__ import annotations

import pytest

from .corpus import Outcomes, Score

SCORES: dict[str, Score] = {}
OUTCOMES: dict[str, Outcomes] = {}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name, score in SCORES.items():
        terminalreporter.write_line(f"scanning corpus ({name}): {score.summary()}")
    for outcomes in OUTCOMES.values():
        terminalreporter.write_line(f"write decisions, {outcomes.summary()}")
