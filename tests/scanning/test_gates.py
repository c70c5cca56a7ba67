"""Gates are only a shortcut: on every corpus sample (and the texts decoded from it), a gate never hides a match
that its patterns would have found."""

from __future__ import annotations

import dataclasses

import pytest

from proxy.scanning import injections, providers
from proxy.scanning.decoding import decoded
from proxy.scanning.normalise import fold, latin, unleet
from proxy.scanning.rules import Rule, rule_hits
from proxy.scanning.secrets import PRIVATE_KEY, RULES

from .corpus import load

SAMPLES = load("secrets") + load("injections") + load("benign")
FOLDED = [view for sample in SAMPLES for view in (fold(sample), *decoded(fold(sample)))]


@pytest.mark.parametrize("rule", (PRIVATE_KEY, *RULES), ids=lambda rule: rule.label)
def test_a_rule_gate_never_hides_a_hit(rule: Rule) -> None:
    ungated = dataclasses.replace(rule, gate=())
    hidden = [text for text in FOLDED if list(rule_hits(text, (ungated,))) and not rule.may_match(text.lower())]
    assert hidden == []


def test_provider_gates_never_hide_a_match() -> None:
    hidden = [
        (provider.label, text)
        for provider in providers.providers()
        for text in FOLDED
        if any(pattern.search(text) for pattern in provider.patterns)
        and not all(gate.search(text.lower()) for gate in provider.gates)
    ]
    assert hidden == []


def test_injection_gates_never_hide_a_match() -> None:
    views = [view for text in FOLDED for view in (latin(text), *unleet(latin(text)))]
    hidden = [
        (family.label, view)
        for family in injections.FAMILIES
        for view in views
        if family.pattern.search(view) and not family.search(view) and not family.per_line
    ]
    assert hidden == []
