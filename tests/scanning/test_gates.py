"""Gates are only a shortcut: on every corpus sample (and the texts decoded from it), a gate never hides a match
that its patterns would have found; nor do the stricter gates a text is put through once (`secrets.gated`), on the
corpus and on matches generated from the patterns."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.scanning import injections, providers, split
from proxy.scanning.decoding import _BASE64, base64_texts, decoded
from proxy.scanning.lazy import compiled
from proxy.scanning.normalise import fold, latin, unleet
from proxy.scanning.rules import Rule, finditer, rule_hits
from proxy.scanning.secrets import _LITERALS, PRIVATE_KEY, RULES, SPLIT_PREFIXES, gated, masked, quiet

from .corpus import load
from .reference import REFERENCE_PREFIX_START

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


# The stricter gates: gate words found in one pass, sieves, runs of key characters and provider needles.


def distinct(rules: tuple[Rule, ...]) -> list[Rule]:
    """The rules, a suspect twin (the rule again with another `check`) left out: what the generated tests read of a
    rule (`Rule.opens`, `Rule.may_match`, its pattern) is the twin's too, so the derandomized texts and what is checked
    of them would be the same."""
    kept: dict[tuple[object, ...], Rule] = {}
    for rule in rules:
        gates = (rule.pattern.pattern, rule.pattern.flags, rule.gate, rule.sieves, rule.min_run, rule.min_digits)
        kept.setdefault((*gates, rule.shape), rule)
    return list(kept.values())


UNTWINNED = distinct((PRIVATE_KEY, *RULES))
# Compiled here: hypothesis generates from a compiled pattern, and a rule compiles its own on first use.
SIEVED = [
    dataclasses.replace(rule, pattern=compiled(rule.pattern)) for rule in UNTWINNED if rule.sieves or rule.min_run
]
NEEDLED = [provider for provider in providers.providers() if provider.needles or provider.min_run]
# No wall-clock checks: the recovery-code rule's lookarounds take hypothesis ~8 s to draw from on an idle machine, and
# its too_slow health check then fails a run on a loaded one; what is generated does not change. Nor a count of the
# draws its lookarounds throw away (filter_too_much failed 2 runs of 3 for the second recovery-code rule): the texts
# that are drawn are checked all the same.
GENERATED = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
around = st.text(max_size=6)


@pytest.mark.parametrize("rule", (PRIVATE_KEY, *RULES), ids=lambda rule: rule.label)
def test_a_gated_text_opens_every_rule_that_finds_a_hit(rule: Rule) -> None:
    ungated = dataclasses.replace(rule, gate=())
    hidden = [text for text in FOLDED if list(rule_hits(text, (ungated,))) and not rule.opens(gated(text))]
    assert hidden == []


@pytest.mark.parametrize("rule", SIEVED, ids=lambda rule: rule.label)
def test_a_gated_text_opens_every_rule_whose_pattern_matches(rule: Rule) -> None:
    @GENERATED
    @given(st.tuples(around, st.from_regex(rule.pattern), around).map("".join))
    def opens(text: str) -> None:
        if next(finditer(rule.pattern, text, text.lower()), None) and rule.may_match(text.lower()):
            assert rule.opens(gated(text))

    opens()


def test_a_gated_text_opens_every_provider_whose_gates_match() -> None:
    hidden = [
        (provider.label, text)
        for provider in providers.providers()
        for text in FOLDED
        if all(gate.search(text.lower()) for gate in provider.gates) and not provider.opens(gated(text))
    ]
    assert hidden == []


@pytest.mark.parametrize("provider", NEEDLED, ids=lambda provider: provider.label)
def test_a_gated_text_opens_every_provider_whose_generated_gates_match(provider: providers.Provider) -> None:
    @GENERATED
    @given(st.tuples(*(st.from_regex(gate) for gate in provider.gates)).map(" ".join))
    def opens(text: str) -> None:
        if all(gate.search(text.lower()) for gate in provider.gates):
            assert provider.opens(gated(text))

    opens()


@GENERATED
@given(st.tuples(around, st.from_regex(split._AFTER_NAME), around).map("".join))
def test_a_gated_text_lets_a_key_name_with_pieces_through(text: str) -> None:
    if next(finditer(split._AFTER_NAME, text, text.lower()), None):
        assert split._may_name_a_key(gated(text))


@GENERATED
@given(st.tuples(around, st.from_regex(REFERENCE_PREFIX_START), around).map("".join))
def test_a_gated_text_shows_a_spaced_out_key_prefix(text: str) -> None:
    if REFERENCE_PREFIX_START.search(text):
        assert not gated(text).spaced.isdisjoint(SPLIT_PREFIXES)


def test_no_gate_word_holds_a_space_or_a_tab() -> None:
    """`gated` looks for them with spaces and tabs taken out."""
    assert not [word for word in _LITERALS.literals if " " in word or "\t" in word]


def test_every_key_prefix_ends_in_a_word_character_dot_or_dash() -> None:
    """`split.prefix_starts` relies on it: no prefix starts right where another ends."""
    assert all(re.fullmatch(r"[\w.-]", prefix[-1]) for prefix in split._PREFIXES)


# A quiet text (`secrets.quiet`) is redacted from its gate alone: nothing may be found in one. A rule with gate words
# or a plugin with needles is shut in a quiet text (the tests above hold their gates to their patterns); the others
# must need a run of `QUIET_RUN` key characters, or be shut by their digits (`Rule.min_digits`: a card number's 13).
WORDLESS_PATTERNS = [
    *((rule.label, compiled(rule.pattern), rule.min_digits) for rule in UNTWINNED if not rule.gate),
    *((p.label, pattern, 0) for p in providers.providers() if not p.needles for pattern in p.patterns),
    ("base64", _BASE64, 0),
]


def test_nothing_is_found_in_a_quiet_corpus_text() -> None:
    found = [
        text
        for text in FOLDED
        if text.isascii()
        and quiet(gated(text))
        and (masked(gated(text)).text != text or list(split.split_hits(text)) or list(base64_texts(text)))
    ]
    assert found == []


@pytest.mark.parametrize(
    ("pattern", "digits"),
    [(pattern, digits) for _, pattern, digits in WORDLESS_PATTERNS],
    ids=[x for x, _, _ in WORDLESS_PATTERNS],
)
def test_no_text_a_wordless_pattern_matches_is_quiet(pattern: re.Pattern[str], digits: int) -> None:
    ascii = st.characters(codec="ascii")

    @GENERATED
    @given(st.tuples(st.text(ascii, max_size=6), st.from_regex(pattern, alphabet=ascii), st.text(ascii, max_size=6)))
    def loud(parts: tuple[str, str, str]) -> None:
        text = "".join(parts)
        if pattern.search(text) and sum(c in "0123456789" for c in text) >= digits:
            assert not quiet(gated(text))

    loud()
