"""The tool loop: upstream calls until the model answers the client, the proxy running its memory tools between.

One chat request may take several upstream calls ("hops"). When the model calls only memory tools,
the proxy runs them, appends the turn and its results, and calls again; at ``tools.max_hops`` the
last call goes without the memory tools, so the client always gets an answer. The client sees one
response: the first call's ``id`` and ``created``, usage summed over the calls, only its own tool
calls (COMPAT E1, E7). A turn that mixes memory and client calls ends the loop: the memory calls are
run and kept (:mod:`proxy.tools.hidden`), the client gets its calls.

A memory call that repeats one already answered in the loop (same tool, same arguments) ends it too, its memory
calls dropped, never run: a model does that when it never saw the answer (a local server that drops tool results),
and every hop after would be as blind, up to a last one that invents a call of the client's tool to answer at all.
The client gets the text of the hops so far and that hop's (and any call of its own tool that hop made, as a turn
cut short does: a stream has relayed it already); no hop past that point is made.

Upstream calls go through :class:`~proxy.pipe.hops.Hops`: the OpenAI-compatible upstream (httpx) or litellm. An
upstream error on the first call is relayed as the upstream said it; on a later call of a stream it
becomes the stream's error event (COMPAT I1, I2).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from starlette.responses import Response

from ..dialects.base import AnswerReader, Call, Dialect, HiddenStep, Splitter, ToolPlan, Turn
from ..errors import BadUpstreamResponse, StoreUnavailable
from ..memory.caller import Identity
from ..memory.provenance import Provenance
from ..metrics import Metrics
from ..pipe.headers import RawHeaders
from ..pipe.hops import Answer, Hops
from ..pipe.relay import Continue, Fail, Finish, buffered_response, stream_response
from ..telemetry.exchange import CURRENT, hop_ended
from .hidden import HiddenTurns
from .memory_tools import WRITES, MemoryTools

log = logging.getLogger("proxy.tools")

Settle = Callable[[], Awaitable[None] | None]  # the answer's last step before its end reaches the client


class Trust(Protocol):
    """The session's provenance as the loop needs it (:class:`proxy.episodes.trust.SessionTrust`)."""

    def __call__(self) -> Provenance:
        """As this process knows it now."""
        ...

    async def checked(self) -> Provenance:
        """As a memory write must take it: this process's, and the store's when this one holds it trusted."""
        ...

    def saw(self, names: Iterable[str]) -> None:
        """The session took in what these tools brought (the upstream ran them, or a detail read back said so)."""
        ...


@dataclass(slots=True)
class ToolLoop:
    """One request's loop: what it offers, whose memory it runs on, how far it may go."""

    dialect: Dialect
    plan: ToolPlan
    tools: MemoryTools
    hidden_turns: HiddenTurns
    caller: Identity
    max_hops: int
    metrics: Metrics
    session: str
    # The session's, from what was seen on the wire (its writes are held if untrusted); asked for when a tool runs.
    trust: Trust
    steps: list[HiddenStep] = field(default_factory=list)  # the hidden turns and their results so far
    hop: int = 0  # upstream calls made after the first
    answered: set[tuple[str, str]] = field(default_factory=set)  # (tool, arguments) of every memory call run

    async def run(self, calls: list[Call], brought: Iterable[str] = ()) -> list[str]:
        """Run the memory calls in order (a store then a search sees the store); one result each. ``brought``: what
        the answer so far brought in from outside (hosted tools): the calls come after it, so it taints them."""
        trust = self.trust
        trust.saw(brought)
        exchange = CURRENT.get()
        trace = exchange.trace if exchange is not None else None
        results = []
        self.answered.update(map(_said, calls))
        for call in calls:
            span = trace.tool(call.name, call.id) if trace is not None else None
            try:
                provenance = await trust.checked() if call.name in WRITES else trust()
            except StoreUnavailable as exc:  # nothing written that the store could not vouch for
                result = self.tools.refuse(call.name, f"memory is unavailable right now: {exc.message}")
            else:
                result = await self.tools.run(
                    self.caller, self.session, call.name, call.arguments, provenance, trust.saw
                )
            results.append(result)
            if span is not None and trace is not None:
                trace.tool_done(span, result)
        return results

    async def keep(self, turn: Turn, results: list[str]) -> None:
        """Keep a mixed turn's memory calls for the follow-up, shared with other replicas before the answer goes."""
        self.hidden_turns.keep((self.caller.user, self.caller.workspace), self.session, turn, results)
        await self.hidden_turns.flush()

    def next_payload(self, payload: dict[str, Any], turn: Turn, results: list[str]) -> dict[str, Any]:
        self.steps.append(HiddenStep(turn.content, tuple(turn.hidden), tuple(results), state=turn.state))
        self.hop += 1
        self.metrics.tool_hops.inc()
        following = self.dialect.next_payload(payload, self.steps)
        return self.dialect.withdraw(following, self.plan) if self.hop >= self.max_hops else following

    @property
    def offers_tools(self) -> bool:
        return self.hop < self.max_hops

    def repeats(self, calls: Iterable[Call]) -> bool:
        """Whether any of a turn's memory calls was answered already in this loop: the loop ends (module docstring)."""
        repeated = [call.name for call in calls if _said(call) in self.answered]
        if repeated:
            log.warning(
                "the model repeated %s after its answer: the loop ends (does the upstream drop tool results?)",
                ", ".join(repeated),
            )
        return bool(repeated)

    def mentioned_in(self, body: bytes) -> bool:
        """A cheap look before parsing: no memory tool's name in the body, no memory call in it."""
        return any(name.encode() in body for name in self.plan.names)


async def complete(
    reader: AnswerReader,
    hops: Hops,
    payload: dict[str, Any],
    body: bytes | None,
    loop: ToolLoop | None,
    extra: RawHeaders,
) -> Response:
    """A whole (non-streamed) answer, through the loop when there is one, assembled by ``reader``. What the session
    keeps of it (its ids, what it brought in) the caller takes from ``reader`` afterwards."""
    first = await hops.answer(payload, body)
    untouched = first.status >= 400 or (not reader.rewrites and (loop is None or not loop.mentioned_in(first.body)))
    turn = None if untouched else reader.read(first.body)
    if turn is None:
        return buffered_response(first.status, first.headers + extra, first.body)
    if loop is None:  # nothing of memory's in it, only an echo to put back
        return buffered_response(first.status, first.headers + extra, reader.result())
    while True:
        if not turn.hidden:
            if loop.hop == 0 and not loop.dialect.echoes_tools:
                return buffered_response(first.status, first.headers + extra, first.body)  # untouched
            break
        if not loop.offers_tools or turn.cut or loop.repeats(turn.hidden):
            break  # calls made without the tools on offer, cut short or repeated: dropped, never run
        results = await loop.run(turn.hidden, reader.brought)
        if turn.relayed:
            await loop.keep(turn, results)
            break
        answer = await hops.answer(loop.next_payload(payload, turn, results))
        if answer.status >= 400:
            return buffered_response(answer.status, answer.headers + extra, answer.body)
        following = reader.read(answer.body)
        if following is None:
            raise BadUpstreamResponse("the upstream answered with something that is not an answer of this API")
        turn = following
    return buffered_response(200, first.headers + extra, reader.result())


async def stream(
    splitter: Splitter,
    hops: Hops,
    payload: dict[str, Any],
    body: bytes | None,
    loop: ToolLoop | None,
    extra: RawHeaders,
    ended: Callable[[], None] | None = None,
    settle: Settle | None = None,
) -> Response:
    """A streamed answer: every upstream call of the loop relayed into one client stream by ``splitter``;
    ``settle`` run before its end goes out (what the session keeps of it), ``ended`` called once it is over."""
    first = await hops.stream(payload, body)
    if isinstance(first, Answer):
        return buffered_response(first.status, first.headers + extra, first.body)
    after = None
    if loop is not None or settle is not None:
        tool_loop = loop

        def after() -> Awaitable[Continue | Finish | Fail] | None:
            hop_ended()  # the upstream call's last event is in: what follows is the proxy's time
            if tool_loop is not None and splitter.made_memory_calls():
                end = splitter.hop_end()
                if end.hidden:
                    return _after_hop(hops, payload, tool_loop, splitter, end, settle)
            waiting = settle() if settle is not None else None
            return _settled(waiting) if waiting is not None else None

    return stream_response(first.batches, splitter, first.headers + extra, first.close, after, ended)


async def _settled(waiting: Awaitable[None], tail: bytes = b"") -> Finish:
    await waiting
    return Finish(tail)


async def _after_hop(
    hops: Hops, payload: dict[str, Any], loop: ToolLoop, splitter: Splitter, end: Turn, settle: Settle | None
) -> Continue | Finish | Fail:
    if not loop.offers_tools or end.cut or loop.repeats(end.hidden):
        tail = splitter.finish_chunk(loop.dialect.visible_reason(end.reason, end.relayed))
        waiting = settle() if settle is not None else None
        return await _settled(waiting, tail) if waiting is not None else Finish(tail)
    results = await loop.run(end.hidden, splitter.brought)
    if end.relayed:
        await loop.keep(end, results)
        waiting = settle() if settle is not None else None
        tail = splitter.finish_chunk(end.reason)
        return await _settled(waiting, tail) if waiting is not None else Finish(tail)
    following = await hops.stream(loop.next_payload(payload, end, results))
    if isinstance(following, Answer):
        return Fail(splitter.upstream_error(following.status, following.body))
    splitter.next_hop()
    return Continue(following.batches, following.close)


def _said(call: Call) -> tuple[str, str]:
    """A call as what it asks: its tool and its arguments however they are spaced or ordered."""
    try:
        arguments = orjson.loads(call.arguments)
    except orjson.JSONDecodeError:
        return call.name, call.arguments
    return call.name, orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode()
