"""The Responses splitter's shorter ways give the client exactly what parsing every event whole gives.

A start event that repeats the first one's response is read by its bytes, the first one's edit written once, and
an item's events only have their two numbers looked at: :mod:`.responses_reference` is the plain way, and every
stream here, generated or chosen for its edge, must come out of both byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.dialects import responses_stream
from proxy.dialects.base import Turn
from proxy.dialects.named_sse import load_event, named_event
from proxy.dialects.responses import tool_schema
from proxy.dialects.responses_echo import ToolEchoes, cut_out
from proxy.dialects.responses_stream import ResponseEvents
from proxy.pipe.sse import StreamProtocolError
from proxy.tools.memory_tools import NAMES, SCHEMAS

from .responses_reference import ReferenceEvents
from .responses_wire import CLIENT_TOOL, call_item, hop_events, message_item, reasoning_item, response, usage

TOOLS = [CLIENT_TOOL, *(tool_schema(spec) for spec in SCHEMAS.values())]
SEARCH = '{"query":"weather preferences"}'

Writer = Callable[[dict[str, Any]], bytes]


def compact(event: dict[str, Any]) -> bytes:
    return orjson.dumps(event)


def spaced(event: dict[str, Any]) -> bytes:
    """JSON as Python's json module writes it: a space after every comma and colon."""
    return json.dumps(event).encode()


def indented(event: dict[str, Any]) -> bytes:
    """Over several lines, as a multi-line SSE event's data reaches the splitter."""
    return json.dumps(event, indent=1).encode()


def number_first(event: dict[str, Any]) -> bytes:
    """The key order OpenAI sends: the sequence number right after the type."""
    return orjson.dumps({"type": event["type"], "sequence_number": event["sequence_number"], **event})


def numbered(events: Sequence[dict[str, Any]], first: int = 0, gap_at: int | None = None) -> list[dict[str, Any]]:
    """Sequence numbers from ``first``, one skipped before the event at ``gap_at``."""
    out = []
    for position, event in enumerate(events):
        body = {key: value for key, value in event.items() if key != "sequence_number"}
        skipped = gap_at is not None and position >= gap_at
        out.append({**body, "sequence_number": first + position + skipped})
    return out


@dataclass
class Run:
    """All the client and the loop get from a splitter."""

    pushed: list[bytes] = field(default_factory=list)  # what each event became, over the hops
    texts: list[Any] = field(default_factory=list)  # the answer after each (a session reads it)
    turns: list[Any] = field(default_factory=list)  # each hop's end, for the loop
    end: list[Any] = field(default_factory=list)  # the last event, then the answer, chain and state

    @property
    def events(self) -> list[dict[str, Any]]:
        return [orjson.loads(chunk.split(b"data: ", 1)[1]) for chunk in self.pushed if chunk]


def drive(
    hops: Sequence[Sequence[bytes]],
    *,
    hidden: frozenset[str] = NAMES,
    previous: str | None = None,
    echoes: ToolEchoes | None = None,
) -> tuple[Run, Run]:
    """The same stream through the splitter and the plain way, the tool loop's calls made alike. ``echoes``: what
    earlier streams taught the splitter of the upstream's echo of the proxy's tools (nothing, unless given)."""
    runs = []
    for splitter in (
        ResponseEvents(hidden=hidden, previous=previous, echoes=echoes or ToolEchoes()),
        ReferenceEvents(hidden=hidden, previous=previous),
    ):
        run = Run()
        for number, hop in enumerate(hops):
            if number:
                run.turns.append(hop_end(splitter))
                splitter.next_hop()
            for data in hop:
                run.pushed.append(splitter.push(data))
                run.texts.append(splitter.answer())
        run.turns.append(hop_end(splitter))
        run.end = [splitter.finish(), splitter.answer(), splitter.called, splitter.response_id]
        run.end += [splitter.chain_id, splitter.ended, splitter.failed]
        runs.append(run)
    return runs[0], runs[1]


def hop_end(splitter: ResponseEvents | ReferenceEvents) -> Turn:
    """The hop's turn; the splitter's quick answer to the loop never misses a memory call the turn holds."""
    turn = splitter.hop_end()
    if isinstance(splitter, ResponseEvents):
        assert splitter.made_memory_calls() or not turn.hidden
    return turn


def assert_same(hops: Sequence[Sequence[bytes]], **options: Any) -> Run:
    """The stream comes out as the plain way gives it, the first time and again once the first taught the splitter
    how the upstream echoes the proxy's tools (the second time, they are cut from the events' bytes)."""
    echoes = ToolEchoes()
    fast, plain = drive(hops, echoes=echoes, **options)
    assert fast == plain
    again, _ = drive(hops, echoes=echoes, **options)
    assert again == plain
    return fast


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The data of every event the splitter parses (what it does not, it read by its bytes)."""
    seen: list[bytes] = []

    def spy(data: bytes) -> dict[str, Any]:
        seen.append(data)
        return load_event(data)

    monkeypatch.setattr(responses_stream, "load_event", spy)
    return seen


def answer_hop(*, tools: list[dict[str, Any]] = TOOLS, previous: str | None = None) -> list[dict[str, Any]]:
    final = response(
        "resp_1",
        output=[message_item("msg_1", "It is sunny.")],
        usage=usage(5, 1),
        tools=tools,
        previous_response_id=previous,
    )
    return hop_events(final)


# -- a start event repeating the first one ------------------------------------------------------------------


@pytest.mark.parametrize("writer", [compact, number_first], ids=["response_first", "number_first"])
def test_an_in_progress_repeating_created_is_read_by_its_bytes_and_edited_alike(
    parsed: list[bytes], writer: Writer
) -> None:
    stream = [writer(event) for event in answer_hop()]
    out = assert_same([stream])
    assert stream[1] not in parsed and stream[0] in parsed
    created, in_progress = out.events[:2]
    assert created["response"]["tools"] == in_progress["response"]["tools"] == [CLIENT_TOOL]


def test_a_repeat_with_nothing_to_edit_goes_out_as_the_upstreams_own_bytes(parsed: list[bytes]) -> None:
    stream = [compact(event) for event in answer_hop(tools=[CLIENT_TOOL])]
    out = assert_same([stream])
    assert stream[1] not in parsed
    assert out.pushed[1] == b"event: response.in_progress\ndata: " + stream[1] + b"\n\n"


def test_a_repeat_gets_the_id_the_client_chained_from(parsed: list[bytes]) -> None:
    stream = [compact(event) for event in answer_hop(tools=[CLIENT_TOOL], previous="resp_chain")]
    out = assert_same([stream], previous="resp_0")
    assert stream[1] not in parsed
    assert b'"previous_response_id":"resp_0"' in out.pushed[1] and b"resp_chain" not in out.pushed[1]


def test_a_repeat_numbered_with_a_gap_is_renumbered(parsed: list[bytes]) -> None:
    stream = [compact(event) for event in numbered(answer_hop(), first=5, gap_at=1)]
    out = assert_same([stream])
    assert stream[1] not in parsed
    assert [event["sequence_number"] for event in out.events] == list(range(len(out.events)))


def test_an_in_progress_that_differs_from_created_is_parsed(parsed: list[bytes]) -> None:
    events = answer_hop()
    events[1] = {**events[1], "response": {**events[1]["response"], "status": "queued"}}
    stream = [compact(event) for event in events]
    assert_same([stream])
    assert any(data.startswith(b'{"type":"response.in_progress"') for data in parsed)


@pytest.mark.parametrize("writer", [spaced, indented])
def test_events_written_otherwise_than_compact_are_parsed_and_come_out_the_same(
    parsed: list[bytes], writer: Writer
) -> None:
    stream = [writer(event) for event in answer_hop()]
    assert_same([stream])
    assert stream[1] in parsed


@pytest.mark.parametrize("created_too", [False, True])
def test_an_in_progress_holding_more_than_the_response_is_what_parsing_it_says(created_too: bool) -> None:
    """The response's bytes and then a second ``type``: parsed, it is another response.created."""
    events = answer_hop()
    body = compact(events[0]["response"]) + b',"type":"response.created","extra":{}'
    created = b'{"type":"response.created","response":' + body + b',"sequence_number":0}'
    second = b'{"type":"response.in_progress","response":' + body + b',"sequence_number":1}'
    out = assert_same([[created if created_too else compact(events[0]), second, *map(compact, events[2:])]])
    assert out.pushed[1].startswith(b"event: response.created\n")


@pytest.mark.parametrize("writer", [compact, number_first], ids=["response_first", "number_first"])
def test_a_later_hops_start_event_repeating_one_parsed_is_dropped_unparsed(parsed: list[bytes], writer: Writer) -> None:
    hidden = response("resp_0", output=[call_item("fc_m", "call_m", "memory_search", SEARCH)], tools=TOOLS)
    first, second = [writer(e) for e in hop_events(hidden)], [writer(e) for e in answer_hop()]
    out = assert_same([first, second])
    assert second[0] in parsed and second[1] not in parsed
    assert [event["type"] for event in out.events].count("response.in_progress") == 1


def test_a_later_hops_start_events_holding_more_than_the_response_are_dropped_alike(parsed: list[bytes]) -> None:
    """The response's bytes and a second ``type``: the first is parsed, the one repeating it need not be."""
    hidden = response("resp_0", output=[call_item("fc_m", "call_m", "memory_search", SEARCH)], tools=TOOLS)
    events = answer_hop()
    body = compact(events[0]["response"]) + b',"type":"response.created","extra":{}'
    created = b'{"type":"response.created","response":' + body + b',"sequence_number":0}'
    second = b'{"type":"response.in_progress","response":' + body + b',"sequence_number":1}'
    out = assert_same([[compact(e) for e in hop_events(hidden)], [created, second, *map(compact, events[2:])]])
    assert created in parsed and second not in parsed
    assert [event["type"] for event in out.events].count("response.created") == 1


def test_a_later_hops_malformed_start_event_still_breaks_the_stream() -> None:
    hidden = response("resp_0", output=[call_item("fc_m", "call_m", "memory_search", SEARCH)], tools=TOOLS)
    splitter = ResponseEvents(hidden=NAMES)
    for data in map(compact, hop_events(hidden)):
        splitter.push(data)
    splitter.hop_end()
    splitter.next_hop()
    splitter.push(compact(answer_hop()[0]))
    with pytest.raises(StreamProtocolError):
        splitter.push(b'{"type":"response.in_progress","response":{"id":,"x"},"sequence_number":1}')


# -- the proxy's tools cut from the echo ---------------------------------------------------------------------


def test_once_taught_a_stream_parses_its_whole_response_events_without_the_proxys_tools(parsed: list[bytes]) -> None:
    echoes = ToolEchoes()
    stream = [compact(event) for event in answer_hop()]
    drive([stream], echoes=echoes)
    assert any(b"memory_store" in data for data in parsed)  # the first stream reads them whole
    parsed.clear()
    again, plain = drive([stream], echoes=echoes)
    assert again == plain
    assert parsed and not any(b"memory_store" in data for data in parsed)
    assert not any(data.startswith(b'{"type":"response.in_progress"') for data in parsed)  # a repeat of created
    assert b"memory_" not in b"".join(again.pushed)


def test_a_cut_that_leaves_the_proxys_tools_is_not_kept() -> None:
    """The proxy's tools as the upstream echoed them before, inside the schema of the answer's format; the echo
    itself without the first of them: the cut finds the schema's, and what is left still holds the proxy's tools."""
    echoes = ToolEchoes()
    mine = [tool_schema(spec) for spec in SCHEMAS.values()]
    drive([[compact(event) for event in answer_hop(tools=[CLIENT_TOOL, *mine])]], echoes=echoes)
    final = response("resp_1", output=[message_item("msg_1", "Hi.")], tools=[CLIENT_TOOL, *mine[1:]])
    final["text"] = {"format": {"type": "json_schema", "schema": {"tools": mine}}}
    stream = [compact(event) for event in hop_events(final)]
    assert all(echoes.cut(data, NAMES) is not None for data in (stream[0], stream[-1]))
    again, plain = drive([stream], echoes=echoes)
    assert again == plain
    assert again.events[0]["response"]["tools"] == [CLIENT_TOOL]
    completed = orjson.loads(again.end[0].split(b"data: ", 1)[1])["response"]
    assert completed["tools"] == [CLIENT_TOOL] and completed["text"]["format"]["schema"] == {"tools": mine}


def test_an_upstream_that_echoes_the_tools_otherwise_is_learned_too() -> None:
    """Two upstreams (or models) behind one proxy, each echoing the proxy's tools in its own way."""
    echoes = ToolEchoes()
    mine = [tool_schema(spec) for spec in SCHEMAS.values()]
    other = [{**tool, "strict": True} for tool in mine]  # as another upstream writes them
    first = [compact(event) for event in answer_hop(tools=[CLIENT_TOOL, *mine])]
    second = [compact(event) for event in answer_hop(tools=[CLIENT_TOOL, *other])]
    drive([first], echoes=echoes)
    drive([second], echoes=echoes)
    assert echoes.cut(first[0], NAMES) is not None and echoes.cut(second[0], NAMES) is not None


@pytest.mark.parametrize(
    ("data", "cut_to"),
    [
        (b'{"tools":[N]}', b'{"tools":[]}'),
        (b'{"tools":[{"a":1},N]}', b'{"tools":[{"a":1}]}'),
        (b'{"tools":[N,{"a":1}]}', None),  # not the list's tail
        (b'{"tools":[N],"x":[N]}', None),  # twice
        (b'{"other":[N]}', None),  # a list, but of no tools
    ],
)
def test_an_echo_is_cut_only_where_it_closes_a_list_of_tools_once(data: bytes, cut_to: bytes | None) -> None:
    needle = b'{"name":"memory_search"}'
    assert cut_out(data.replace(b"N", needle), needle) == cut_to


# -- items and their numbers --------------------------------------------------------------------------------


def test_a_second_hops_indexes_shift_past_the_first_hops_items() -> None:
    first = response(
        "resp_0",
        output=[reasoning_item("rs_0", "Check"), call_item("fc_m", "call_m", "memory_search", SEARCH)],
        tools=TOOLS,
    )
    second = response("resp_1", output=[reasoning_item("rs_1"), message_item("msg_1", "Sunny.")], tools=TOOLS)
    out = assert_same([[compact(e) for e in hop_events(first)], [compact(e) for e in hop_events(second)]])
    added = [event for event in out.events if event["type"] == "response.output_item.added"]
    assert [(event["output_index"], event["item"]["id"]) for event in added] == [(0, "rs_0"), (1, "rs_1"), (2, "msg_1")]


def test_a_memory_call_between_visible_items_is_dropped_and_the_next_item_moves_up() -> None:
    output = [
        message_item("msg_1", "Let me check."),
        call_item("fc_m", "call_m", "memory_search", SEARCH),
        call_item("fc_c", "call_c", "get_weather", '{"city":"Paris"}'),
    ]
    stream = [compact(e) for e in hop_events(response("resp_1", output=output, tools=TOOLS))]
    out = assert_same([stream])
    relayed = b"".join(out.pushed)
    assert b"fc_m" not in relayed and b'"output_index":1,"item":{"id":"fc_c"' in relayed


def test_item_events_numbered_with_a_gap_are_renumbered_from_it_on() -> None:
    stream = [compact(event) for event in numbered(answer_hop(), gap_at=4)]
    out = assert_same([stream])
    assert out.pushed[3] == b"event: response.content_part.added\ndata: " + stream[3] + b"\n\n"  # as sent
    assert out.events[4] == {**orjson.loads(stream[4]), "sequence_number": 4}


# -- any stream ---------------------------------------------------------------------------------------------


@st.composite
def items(draw: st.DrawFn, hop: int) -> list[dict[str, Any]]:
    kinds = ["message", "reasoning", "client_call", "memory_call", "web_search"]
    out = []
    for number, kind in enumerate(draw(st.lists(st.sampled_from(kinds), max_size=4))):
        id = f"{kind}_{hop}_{number}"
        if kind == "message":
            out.append(message_item(id, draw(st.text(max_size=12))))
        elif kind == "reasoning":
            out.append(reasoning_item(id, draw(st.none() | st.text(min_size=1, max_size=8))))
        elif kind == "web_search":
            out.append({"id": id, "type": "web_search_call", "status": "completed", "action": {"type": "search"}})
        else:
            name, arguments = ("memory_search", SEARCH) if kind == "memory_call" else ("get_weather", "{}")
            out.append(call_item(id, f"call_{id}", name, arguments))
    return out


@st.composite
def upstream_hop(draw: st.DrawFn, hop: int, tools: list[dict[str, Any]], previous: str | None) -> list[bytes]:
    """One upstream stream: its start events in any of the shapes upstreams send, its items, its end (or none)."""
    end = draw(st.sampled_from(["response.completed", "response.incomplete", "response.failed", None]))
    status = {"response.incomplete": "incomplete", "response.failed": "failed"}.get(end or "", "completed")
    final = response(
        f"resp_{hop}",
        status=status,
        output=draw(items(hop)),
        usage=usage(9, 3),
        tools=tools,
        previous_response_id=previous,
    )
    events = hop_events(final, end=end or "response.completed")[: None if end else -1]
    listed = draw(st.sampled_from(["as_streamed", "none", "one_more"]))  # the final response's output
    if end and listed != "as_streamed":
        extra = [message_item(f"late_{hop}", "listed only at the end")] if listed == "one_more" else []
        events[-1] = {**events[-1], "response": {**final, "output": final["output"] + extra if extra else []}}
    start = draw(st.sampled_from(["repeated", "differing", "missing", "queued_too"]))
    if start == "differing":
        events[1] = {**events[1], "response": {**events[1]["response"], "background": True}}
    elif start == "missing":
        del events[1]
    elif start == "queued_too":
        events.insert(1, {**events[1], "type": "response.queued"})
    gap = draw(st.none() | st.integers(0, len(events)))
    events = numbered(events, first=draw(st.sampled_from([0, 0, 2])), gap_at=gap)
    writer = st.sampled_from([compact, compact, spaced, indented, number_first])
    stream = [draw(writer)(event) for event in events]
    return stream + [b"[DONE]"] if draw(st.booleans()) else stream


@st.composite
def upstream_streams(draw: st.DrawFn) -> tuple[list[list[bytes]], frozenset[str], str | None]:
    tools = draw(st.sampled_from([TOOLS, [CLIENT_TOOL], []]))
    echoed = draw(st.sampled_from([None, "resp_chain"]))
    hops = [draw(upstream_hop(hop, tools, echoed)) for hop in range(draw(st.integers(1, 3)))]
    return hops, draw(st.sampled_from([NAMES, frozenset()])), draw(st.sampled_from([None, "resp_0"]))


@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(upstream_streams())
def test_any_stream_comes_out_as_parsing_every_event_whole_gives(
    case: tuple[list[list[bytes]], frozenset[str], str | None],
) -> None:
    hops, hidden, previous = case
    assert_same(hops, hidden=hidden, previous=previous)


# -- framing ------------------------------------------------------------------------------------------------


def test_every_event_name_is_framed_however_many_the_upstream_uses() -> None:
    for number in range(200):  # past the names kept framed
        name = f"response.custom_{number}"
        assert named_event(name, b"{}") == b"event: " + name.encode() + b"\ndata: {}\n\n"
