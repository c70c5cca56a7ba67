"""What a session keeps of a streamed answer (proxy.pipeline.StreamedAnswer)."""

from __future__ import annotations

import gc
import weakref

from proxy.dialects.responses_stream import ResponseEvents
from proxy.pipeline import StreamedAnswer

from .dialects import responses_wire as rw


def test_a_streamed_answer_keeps_its_text_and_ids_once_over_and_lets_the_splitter_go() -> None:
    splitter = ResponseEvents()
    final = rw.response("resp_1", output=[rw.message_item("msg_1", "Tabs, always.")], usage=rw.usage(5, 3))
    streamed = StreamedAnswer(splitter)
    for data in rw.encode(rw.hop_events(final)):
        splitter.push(data)
    splitter.finish()
    during = (streamed.answer_text(), streamed.link())
    gone = weakref.ref(splitter)
    del splitter
    streamed.end()
    gc.collect()
    assert gone() is None  # a session keeps this object for its idle timeout: not every event's parsed state
    assert (streamed.answer_text(), streamed.link()) == during
    assert during[0] == "Tabs, always." and during[1].client == "resp_1"
