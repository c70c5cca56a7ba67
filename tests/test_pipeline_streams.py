"""What a session keeps of a streamed answer (proxy.pipeline.StreamedAnswer)."""

from __future__ import annotations

import gc
import weakref

from proxy.dialects.responses_stream import ResponseEvents
from proxy.pipeline import StreamedAnswer, _link

from .dialects import responses_wire as rw


def test_a_streamed_answer_keeps_what_was_said_once_over_and_lets_the_splitter_go() -> None:
    splitter = ResponseEvents()
    final = rw.response("resp_1", output=[rw.message_item("msg_1", "Tabs, always.")], usage=rw.usage(5, 3))
    streamed = StreamedAnswer(splitter)
    for data in rw.encode(rw.hop_events(final)):
        splitter.push(data)
    splitter.finish()
    link = _link(splitter)  # what the answer's settling notes, before its end goes out
    during = streamed()
    gone = weakref.ref(splitter)
    del splitter
    streamed.end()
    gc.collect()
    assert gone() is None  # a session keeps this object for its idle timeout: not every event's parsed state
    assert streamed() == during
    assert during == [{"role": "assistant", "content": final["output"][0]["content"]}]  # its text, chat-shaped
    assert link.client == "resp_1"
