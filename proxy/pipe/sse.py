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


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs three times as much, for every event
class Event:
    """A dispatched event: its data lines joined with LF."""

    data: bytes


@dataclass(slots=True)
class Comment:
    """A comment line (``: keep-alive``), kept so liveness can be relayed as a comment."""

    text: bytes


MAX_EVENT_BYTES = 16 * 1024 * 1024  # the default of upstream.max_event_bytes
# Bytes looked for as ints: ``int in bytes`` is one memchr, while ``b"\r" in bytes`` first tries the needle as an
# int and raises and clears a TypeError (several times the cost for an event of a few hundred bytes).
CR, LF = ord("\r"), ord("\n")


class StreamProtocolError(Exception):
    """The upstream sent something that is not a chat-completion chunk."""


class SSEDecoder:
    """Linear in the bytes fed: each chunk is scanned once for line ends, and a line split across chunks is kept as
    a list of parts, joined once when it ends (rescanning a held line with each chunk made a 20 MB event cost over 20 s
    of event-loop time). One event, its data lines and the line being read, may hold ``max_event_bytes``;
    past that the upstream is not sending a stream the proxy can relay, and :class:`StreamProtocolError` ends it."""

    __slots__ = ("_counted", "_data", "_held", "_limit", "_parts", "_parts_size", "_skip_lf")

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._limit = max_event_bytes
        self._parts: list[bytes] = []  # the line being read, not ended yet
        self._parts_size = 0
        self._data: list[bytes] = []  # the current event's data lines
        self._held = 0  # bytes of self._data[:self._counted]: an event is measured only once it spans reads
        self._counted = 0
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[Event | Comment]:
        if self._skip_lf and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._skip_lf = False
        if CR in chunk:
            # A CR ends a line; an LF at the start of the next chunk belongs to it.
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if chunk.endswith(b"\n\n") and not (self._parts or self._data) and len(chunk) <= self._limit:
            return self._whole_events(chunk)
        lines = chunk.split(b"\n")
        rest = lines.pop()
        if not lines:  # no line ended in this read
            if rest:
                self._hold(rest)
            return []
        if rest or self._parts or self._data or len(chunk) > self._limit:
            return self._feed_across(lines, rest, len(chunk))
        return self._process(lines, False)  # whole lines, nothing held: every event in it is within the limit

    def flush(self) -> list[Event | Comment]:
        """End of stream: a final line without its terminator still counts, an unterminated event does not."""
        lines = [b"".join(self._parts)] if self._parts else []
        self._parts, self._parts_size = [], 0
        items = self._process(lines, True)
        self._data, self._held, self._counted = [], 0, 0
        return items

    def _whole_events(self, chunk: bytes) -> list[Event | Comment]:
        """A read of whole events only, nothing held (how upstreams write): an event that is one ``data`` line,
        after an ``event`` line or not, is cut out by finding its line ends (``find`` of one byte is a ``memchr``;
        splitting on the two-byte blank line scanned the read a byte at a time); any other goes the long way."""
        items: list[Event | Comment] = []
        find, starts, event = chunk.find, chunk.startswith, Event
        at, size = 0, len(chunk)
        while at < size:  # at: the start of an event, after the blank line that ended the one before
            end = find(LF, at)  # every line ends within the read: it ends with a blank line
            start = at
            if starts(b"event: ", at):
                start = end + 1
                end = find(LF, start)
            # A data line is not the read's last line (that one is blank), so end + 1 is within it.
            if starts(b"data: ", start) and chunk[end + 1] == LF:
                items.append(event(chunk[start + 6 : end]))
                at = end + 2
                continue
            end = find(b"\n\n", at)  # the event's lines, whatever they are
            if end < 0:  # a blank line, the read's last, after the blank line that ended an event
                end = size
            if end > at:
                items += self._process([*chunk[at:end].split(b"\n"), b""], False)
            at = end + 2
        return items

    def _feed_across(self, lines: list[bytes], rest: bytes, size: int) -> list[Event | Comment]:
        """A read that ends a line or an event begun before, or begins one it does not end."""
        self._count()
        # An event ending here is at most what was held plus this read: measure each only if that is over.
        careful = self._held + self._parts_size + size > self._limit
        if self._parts:
            self._parts.append(lines[0])
            lines[0] = b"".join(self._parts)
            self._parts, self._parts_size = [], 0
        event = self._data
        items = self._process(lines, careful)
        if self._data is not event:  # it ended: what is held now belongs to the next one
            self._held = self._counted = 0
        if rest:
            self._hold(rest)
        else:
            self._count()
            if self._held > self._limit:
                self._too_large()
        return items

    def _hold(self, part: bytes) -> None:
        """Keep the start of a line until its end comes; the event it belongs to stays within the limit."""
        self._parts.append(part)
        self._parts_size += len(part)
        if len(self._data) > self._counted:
            self._count()
        if self._held + self._parts_size > self._limit:
            self._too_large()

    def _count(self) -> None:
        """Bring ``_held`` up to date with the data lines added since it was last counted."""
        if len(self._data) > self._counted:
            self._held += sum(map(len, self._data[self._counted :]))
            self._counted = len(self._data)

    def _process(self, lines: list[bytes], careful: bool) -> list[Event | Comment]:
        items: list[Event | Comment] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    event = b"\n".join(data)
                    if careful and len(event) > self._limit:
                        self._too_large()
                    items.append(Event(event))
                    data = self._data = []
                continue
            if line[0] == 0x3A:  # ":"
                items.append(Comment(line[1:]))
                continue
            name, sep, value = line.partition(b":")
            if sep and value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                data.append(value)
        return items

    def _too_large(self) -> None:
        raise StreamProtocolError(
            f"the upstream sent an event of more than {self._limit} bytes (upstream.max_event_bytes)"
        )


def encode_event(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


def error_event(message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error") -> bytes:
    """The one event that ends a failed stream (OpenAI's own mid-stream error shape, COMPAT I2)."""
    return encode_event(orjson.dumps({"error": {"message": message, "type": type, "param": None, "code": code}}))
