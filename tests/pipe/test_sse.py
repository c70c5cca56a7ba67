import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.pipe.sse import Comment, Event, SSEDecoder, StreamProtocolError

# A stream with everything upstreams do: comments, CRLF, bare CR, multi-line data, no space after
# the colon, event/id/retry fields, and an event split across reads.
RECORDED = (
    b": OPENROUTER PROCESSING\r\n\r\n"
    b'data: {"a":1}\r\n\r\n'
    b'data:{"b":\ndata: 2}\n\n'
    b'event: message\nid: 7\nretry: 100\ndata: {"c":3}\r\r'
    b"data: [DONE]\n\n"
)
EXPECTED = [
    Comment(b" OPENROUTER PROCESSING"),
    Event(b'{"a":1}'),
    Event(b'{"b":\n2}'),
    Event(b'{"c":3}'),
    Event(b"[DONE]"),
]


def decode_in_pieces(raw: bytes, size: int, **options: int) -> list[Event | Comment]:
    decoder = SSEDecoder(**options)
    items: list[Event | Comment] = []
    for start in range(0, len(raw), size):
        items += decoder.feed(raw[start : start + size])
    return items + decoder.flush()


def test_every_split_of_a_recorded_stream_decodes_the_same() -> None:
    for size in range(1, len(RECORDED) + 1):
        assert decode_in_pieces(RECORDED, size) == EXPECTED, f"split every {size} bytes"


def test_an_event_is_only_returned_once_its_blank_line_arrives() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"x":1}\n') == []
    assert decoder.feed(b"\n") == [Event(b'{"x":1}')]


def test_an_unterminated_event_at_the_end_is_not_dispatched() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b'data: {"x":1}') == []
    assert decoder.flush() == []


def test_empty_lines_without_data_dispatch_nothing() -> None:
    assert SSEDecoder().feed(b"\n\n\r\n\n") == []


def test_a_line_split_across_reads_is_joined_once() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"da") == []
    assert decoder.feed(b'ta: {"x"') == []
    assert decoder.feed(b":1}\r") == []
    assert decoder.feed(b"\n\r\n") == [Event(b'{"x":1}')]


def cpu_seconds_to_hold(size: int, read: int = 16384) -> float:
    """CPU time (this thread's, so other processes on a loaded machine count less) to take in one ``size``-byte
    event arriving in ``read``-byte reads, up to its last read; best of three."""
    raw = b"data: " + b"x" * size + b"\n\n"
    reads = [raw[start : start + read] for start in range(0, len(raw), read)]
    best = float("inf")
    for _ in range(3):
        decoder = SSEDecoder(max_event_bytes=size)
        started = time.thread_time()
        for chunk in reads[:-1]:
            assert decoder.feed(chunk) == []
        best = min(best, time.thread_time() - started)
        assert decoder.feed(reads[-1]) == [Event(b"x" * size)]
    return best


def test_decoding_one_large_event_costs_time_linear_in_its_size() -> None:
    """8x the bytes may cost about 8x the time; rescanning what is held with each read cost 64x (a 20 MB event took
    seconds of event-loop time). The bound is loose so a loaded machine cannot make it flake."""
    small = cpu_seconds_to_hold(1 << 20)
    ratios = []
    for _ in range(3):
        ratios.append(cpu_seconds_to_hold(8 << 20) / max(small, 1e-5))
        if ratios[-1] < 20:
            break
    assert min(ratios) < 20, f"8x the size cost {min(ratios):.0f}x the time"


def test_an_event_over_the_limit_ends_the_stream_with_a_protocol_error() -> None:
    decoder = SSEDecoder(max_event_bytes=1000)
    assert decoder.feed(b'data: {"a":1}\n\n') == [Event(b'{"a":1}')]
    decoder.feed(b"data: " + b"x" * 600)
    with pytest.raises(StreamProtocolError, match="more than 1000 bytes"):
        decoder.feed(b"x" * 600)


def test_the_limit_counts_every_data_line_of_an_event() -> None:
    decoder = SSEDecoder(max_event_bytes=1000)
    decoder.feed(b"data: " + b"x" * 600 + b"\n")
    with pytest.raises(StreamProtocolError):
        decoder.feed(b"data: " + b"y" * 600 + b"\n")


def test_an_event_over_the_limit_that_arrives_in_one_read_is_refused_too() -> None:
    with pytest.raises(StreamProtocolError):
        SSEDecoder(max_event_bytes=1000).feed(b"data: " + b"x" * 1001 + b"\n\n")


def test_events_within_the_limit_pass_however_the_reads_fall() -> None:
    stream = b"".join(b"data: " + bytes([0x61 + n]) * 900 + b"\n\n" for n in range(5))
    for size in (1, 7, 900, 1000, 4096):
        assert len(decode_in_pieces(stream, size, max_event_bytes=1000)) == 5


LINES = [
    b"data: x",
    b"data:y",
    b'data: {"a":1}',
    b"data: ",
    b"event: e",
    b"event: e2",
    b": c",
    b"id: 1",
    b"retry: 5",
    b"",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=14), st.sampled_from([b"\n", b"\r\n", b"\r"]))
def test_whole_events_in_one_read_decode_as_they_do_byte_by_byte(lines: list[bytes], end: bytes) -> None:
    """A read of whole events takes a shorter way (upstreams write whole events): it must decode the same."""
    raw = end.join(lines) + end + end
    assert decode_in_pieces(raw, len(raw)) == decode_in_pieces(raw, 1)


def test_named_events_read_whole_are_their_data() -> None:
    raw = b'event: response.created\ndata: {"a":1}\n\nevent: ping\ndata: {}\n\n: keep-alive\n\ndata: [DONE]\n\n'
    assert SSEDecoder().feed(raw) == [Event(b'{"a":1}'), Event(b"{}"), Comment(b" keep-alive"), Event(b"[DONE]")]


def test_blank_lines_after_a_reads_events_end_them_and_nothing_more() -> None:
    """A read of whole events may hold more blank lines than events: each ends at most one."""
    assert SSEDecoder().feed(b"event: e\ndata: {}\n\n\n") == [Event(b"{}")]
    assert SSEDecoder().feed(b"data: a\n\n\n\n\ndata: b\n\n") == [Event(b"a"), Event(b"b")]
    assert SSEDecoder().feed(b"event: e\n\ndata: c\n\n") == [Event(b"c")]
