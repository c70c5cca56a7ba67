"""Merge on write, pure: a similarity's band, and what a write does from its band and the model's verdict."""

import pytest

from proxy.memory.merging import ADD_THRESHOLD, MERGE_THRESHOLD, band, protects, settle, stated
from proxy.memory.records import Memory

STATED = Memory("m-1", "Deploy target is AWS us-east-1", origin="api")
EXTRACTED = Memory("m-2", "Deploy target is AWS us-east-1", source="extracted", confidence=0.6, origin="extraction")


@pytest.mark.parametrize(
    ("similarity", "expected"),
    [(0.0, "different"), (0.29, "different"), (0.3, "judge"), (0.5, "judge"), (0.69, "judge"), (0.7, "same"),
     (1.0, "same")],
)  # fmt: skip
def test_seed_002s_bands_split_similarity_at_0_3_and_0_7(similarity: float, expected: str) -> None:
    assert (ADD_THRESHOLD, MERGE_THRESHOLD) == (0.3, 0.7)
    assert band(similarity) == expected


def test_the_bands_follow_the_configured_thresholds() -> None:
    assert band(0.5, add_threshold=0.6, merge_threshold=0.9) == "different"
    assert band(0.8, add_threshold=0.6, merge_threshold=0.9) == "judge"
    assert band(0.5, add_threshold=0.5, merge_threshold=0.5) == "same"  # equal thresholds: nobody is ever asked


@pytest.mark.parametrize(
    ("verdict", "action"), [("same", "merge"), ("update", "supersede"), ("different", "add"), (None, "add")]
)
def test_in_the_middle_band_the_verdict_decides_and_no_verdict_keeps_both(verdict: str | None, action: str) -> None:
    assert settle("judge", verdict) == action  # type: ignore[arg-type]


def test_above_the_band_a_new_wording_supersedes_and_below_it_is_added_whatever_a_verdict_says() -> None:
    assert settle("same") == "supersede"
    assert settle("different") == "add"
    assert settle("different", "update") == "add"


@pytest.mark.parametrize(("found", "verdict"), [("same", None), ("judge", "update"), ("judge", "same")])
def test_a_protected_memory_is_never_superseded(found: str, verdict: str | None) -> None:
    assert settle(found, verdict, protected=True) != "supersede"  # type: ignore[arg-type]


def test_an_update_of_a_protected_memory_lives_beside_it_and_the_same_fact_merges_into_it() -> None:
    assert settle("judge", "update", protected=True) == "add"
    assert settle("same", protected=True) == "merge"


def test_an_extracted_fact_protects_what_was_stated_but_not_what_was_extracted_before() -> None:
    assert stated(STATED) and not stated(EXTRACTED)
    assert all(stated(Memory("m-3", "x", origin=origin)) for origin in ("api", "tool", "import", "cli"))
    assert protects(STATED, extracted=True, source="extracted", confidence=0.6)
    assert not protects(EXTRACTED, extracted=True, source="extracted", confidence=0.6)
    assert not protects(STATED, extracted=False, source="explicit", confidence=1.0)  # a person may restate it


def test_a_less_confident_extracted_source_never_supersedes_a_more_confident_memory() -> None:
    """Today's rule, kept: an API write that says it was extracted counts as such."""
    assert protects(Memory("m-4", "x", confidence=0.9, origin="extraction"), extracted=False, source="extracted",
                    confidence=0.6)  # fmt: skip
