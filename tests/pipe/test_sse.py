from proxy.pipe.sse import Comment, Event, SSEDecoder

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


def decode_in_pieces(raw: bytes, size: int) -> list[Event | Comment]:
    decoder = SSEDecoder()
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
