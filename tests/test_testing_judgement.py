"""proxy.testing answers memproxy's judgement calls, scriptably: the fake upstream's responders and FakeExtractor."""

import orjson
import pytest

from proxy.episodes.judgement import judgement_messages, parse_verdict
from proxy.episodes.transcript import extraction_messages
from proxy.testing import (
    FakeExtractor,
    extraction_responder,
    is_extraction,
    is_judgement,
    judgement_reply,
)

pytestmark = pytest.mark.anyio

JSON = {"type": "json_object"}
JUDGEMENT = {"model": "m", "messages": judgement_messages("Billing runs on GKE", "Billing runs on Nomad"),
             "response_format": JSON}  # fmt: skip
EXTRACTION = {"model": "m", "messages": extraction_messages("user: hi"), "response_format": JSON}


def test_judgement_calls_are_told_apart_from_extraction_calls() -> None:
    assert is_judgement(JUDGEMENT) and not is_extraction(JUDGEMENT)
    assert is_extraction(EXTRACTION) and not is_judgement(EXTRACTION)
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert not is_judgement(chat) and not is_extraction(chat)
    assert not is_judgement({"messages": "odd"}) and not is_judgement({"messages": [None]})


def test_the_responder_answers_judgements_with_the_scripted_verdict_and_keeps_both_by_default() -> None:
    asked = []

    def judge(new: str, existing: str) -> str:
        asked.append((new, existing))
        return "update"

    assert parse_verdict(extraction_responder(judge)(JUDGEMENT).content) == "update"
    assert asked == [("Billing runs on GKE", "Billing runs on Nomad")]
    assert parse_verdict(extraction_responder()(JUDGEMENT).content) == "different"
    assert "summary" in orjson.loads(str(extraction_responder(judge)(EXTRACTION).content))
    assert parse_verdict(judgement_reply("same").content) == "same"


async def test_the_fake_extractor_answers_queued_verdicts_then_its_default() -> None:
    extractor = FakeExtractor(verdicts=["update", "not json"], default_verdict="same")
    extractor.answer("A session.", "A fact")
    messages = JUDGEMENT["messages"]
    answers = [await extractor.extract(messages, session_model="m", client_key=None) for _ in range(3)]
    assert [parse_verdict(a.text) for a in answers] == ["update", None, "same"]
    extracted = await extractor.extract(EXTRACTION["messages"], session_model="m", client_key="k")
    assert orjson.loads(str(extracted.text)) == {"summary": "A session.", "facts": ["A fact"]}
    assert extractor.judged == [("Billing runs on GKE", "Billing runs on Nomad")] * 3
    assert [call["client_key"] for call in extractor.calls] == [None, None, None, "k"]
