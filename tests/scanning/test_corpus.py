"""The scanner against its corpus (secrets.txt, injections.txt, benign.txt): the three counts are printed at the end
of the run and asserted here. Every secret must be caught, 95% of the injections, and at most two benign memories
refused; a failure lists the samples that missed."""

from __future__ import annotations

import pytest

from proxy.scanning import redact, scan, visible

from .conftest import SCORES
from .corpus import Score, load, score


def _kind(text: str) -> str | None:
    finding = scan(text)
    return finding.kind if finding else None


@pytest.fixture(scope="module")
def corpus_score() -> Score:
    SCORES["proxy.scanning"] = result = score(_kind, visible)
    return result


def test_the_corpus_is_big_enough_to_mean_something() -> None:
    assert len(load("secrets")) >= 80 and len(load("injections")) >= 60 and len(load("benign")) >= 80


def test_every_secret_is_caught(corpus_score: Score) -> None:
    assert corpus_score.secrets_missed == [], corpus_score.summary()


def test_nearly_every_injection_is_caught(corpus_score: Score) -> None:
    caught = corpus_score.injections - len(corpus_score.injections_missed)
    assert caught >= 0.95 * corpus_score.injections, (corpus_score.summary(), corpus_score.injections_missed)


def test_at_most_two_benign_memories_are_refused(corpus_score: Score) -> None:
    assert len(corpus_score.benign_refused) <= 2, (corpus_score.summary(), corpus_score.benign_refused)


@pytest.mark.parametrize("text", load("secrets"))
def test_redact_masks_every_corpus_secret(text: str) -> None:
    masked = redact(text)
    assert "[redacted]" in masked
    left = scan(masked)  # may still find a private key's readable header, or an invisible character in a kept prefix
    assert left is None or left.kind != "secret", (masked, left)


@pytest.mark.parametrize("text", load("benign") + load("injections"))
def test_redact_leaves_corpus_text_without_secrets_alone(text: str) -> None:
    assert redact(text) == text


def test_corpus_escapes_are_decoded() -> None:
    samples = load("secrets") + load("injections") + load("benign")
    assert not any("{U+" in sample for sample in samples)
    assert any("\u200b" in sample for sample in samples) and any("\n" in sample for sample in samples)
