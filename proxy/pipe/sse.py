"""An incremental Server-Sent Events decoder, shaped like httpx's ``LineDecoder``.

Feed raw bytes as they arrive and get back only complete items; the remainder is kept for
the next feed. It follows the WHATWG framing (LF, CRLF or CR line ends, multi-line ``data``,
``data:x`` without a space, comment lines) because upstreams use all of them (COMPAT A6).
``event:``, ``id:`` and ``retry:`` fields are parsed and dropped: chat streams carry none
the client may see (COMPAT A2, A4).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson


@dataclass(frozen=True, slots=True)
class Event:
    """A dispatched event: its data lines joined with LF."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment line (``: keep-alive``), kept so liveness can be relayed as a comment."""

    text: bytes


class SSEDecoder:
    __slots__ = ("_buffer", "_data", "_skip_lf")

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[bytes] = []
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[Event | Comment]:
        if self._skip_lf and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._skip_lf = False
        buffer = self._buffer + chunk if self._buffer else chunk
        if b"\r" in buffer:
            # A CR ends a line; an LF at the start of the next chunk belongs to it.
            self._skip_lf = buffer.endswith(b"\r")
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buffer.split(b"\n")
        self._buffer = lines.pop()
        return self._process(lines)

    def flush(self) -> list[Event | Comment]:
        """End of stream: a final line without its terminator still counts, an unterminated event does not."""
        lines = [self._buffer] if self._buffer else []
        self._buffer = b""
        items = self._process(lines)
        self._data = []
        return items

    def _process(self, lines: list[bytes]) -> list[Event | Comment]:
        items: list[Event | Comment] = []
        for line in lines:
            if not line:
                if self._data:
                    items.append(Event(b"\n".join(self._data)))
                    self._data = []
                continue
            if line[0] == 0x3A:  # ":"
                items.append(Comment(line[1:]))
                continue
            name, sep, value = line.partition(b":")
            if sep and value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                self._data.append(value)
        return items


class StreamProtocolError(Exception):
    """The upstream sent something that is not a chat-completion chunk."""


def encode_event(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


def error_event(message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error") -> bytes:
    """The one event that ends a failed stream (OpenAI's own mid-stream error shape, COMPAT I2)."""
    return encode_event(orjson.dumps({"error": {"message": message, "type": type, "param": None, "code": code}}))
