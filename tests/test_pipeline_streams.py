"""What a session keeps of a streamed answer (proxy.pipeline.StreamedAnswer), and a request's note to its session."""

from __future__ import annotations

import gc
import weakref

import pytest

from proxy.dialects.responses_stream import ResponseEvents
from proxy.memory.provenance import Provenance, untrusted_by
from proxy.pipeline import Observation, StreamedAnswer

from .dialects import responses_wire as rw


def test_a_streamed_answer_keeps_what_was_said_and_its_ids_once_over_and_lets_the_splitter_go() -> None:
    splitter = ResponseEvents()
    final = rw.response("resp_1", output=[rw.message_item("msg_1", "Tabs, always.")], usage=rw.usage(5, 3))
    streamed = StreamedAnswer(splitter)
    for data in rw.encode(rw.hop_events(final)):
        splitter.push(data)
    splitter.finish()
    during = (streamed(), streamed.link())
    gone = weakref.ref(splitter)
    del splitter
    streamed.end()
    gc.collect()
    assert gone() is None  # a session keeps this object for its idle timeout: not every event's parsed state
    assert (streamed(), streamed.link()) == during
    assert during[0] == [{"role": "assistant", "content": final["output"][0]["content"]}]  # its text, chat-shaped
    assert during[1].client == "resp_1"


def test_a_requests_note_to_its_session_is_taken_once_and_a_failed_one_never_reads_as_trusted() -> None:
    untrusted = untrusted_by(("web_fetch",))
    notes: list[str] = []

    def note() -> Provenance:
        notes.append("noted")
        return untrusted

    observation = Observation(note)
    assert observation() is untrusted and observation() is untrusted
    assert notes == ["noted"]  # taken while the upstream worked, then only read by the tool loop and the answer

    def broken() -> Provenance:
        raise RuntimeError("the note failed")

    failed = Observation(broken)
    for _ in range(2):  # the tool loop asks again before a memory write: it fails there too
        with pytest.raises(RuntimeError):
            failed()
