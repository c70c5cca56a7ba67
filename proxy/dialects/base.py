"""The seam between the proxy and a wire format: what every dialect must do, and the records they share.

Recall, the tool loop, sessions and provenance never branch on the format. They read a request through
:meth:`Dialect.messages` (a read-only, chat-shaped view: ``role`` and ``content`` per message, tool calls
as ``tool_calls``), place memory with :meth:`Dialect.inject`, and drive the hidden tool loop through
:class:`ToolPlan`, :class:`AnswerReader` and the dialect's stream splitter. One module per format
implements it: Chat Completions (``chat``), the Responses API (``responses``), Anthropic Messages
(``messages``). What a format needs carried from one hop to the next beyond text and calls travels opaque
in :attr:`Turn.state`; a mixed turn's memory calls come back on the client's follow-up through
:meth:`Dialect.restore`, and errors leave in the format's own shape through :meth:`Dialect.error_body`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..context.edits import ContextEdits
from ..errors import InvalidRequest, ProxyError
from ..memory.block import Placement
from ..pipe.relay import StreamSplitter
from .views import View


@dataclass(frozen=True, slots=True)
class Call:
    """One call the model made: to a memory tool (the loop runs it), or a client tool's in an answer a session keeps."""

    id: str
    name: str
    arguments: str


class ToolFailure(str):
    """A tool result the model is to read as an error (Anthropic's ``tool_result`` ``is_error``): the text of a
    call of Anthropic's memory tool that could not be carried out. Everywhere else it is the plain text it is."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A memory tool as every format describes it: a name, guidance, and a JSON schema of its arguments."""

    name: str
    description: str  # "" when the name says it all: no description is sent
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ParsedRequest:
    body: bytes  # the client's own bytes: sent as they came when memory adds nothing
    payload: dict[str, Any]
    stream: bool
    include_usage: bool  # the client asked for usage in the stream


@dataclass(frozen=True, slots=True)
class HiddenStep:
    """One hidden turn of the loop: the model's text and memory calls, and each call's result."""

    content: str | None
    calls: tuple[Call, ...]
    results: tuple[str, ...]
    state: Any = None  # the hop's Turn.state, handed back untouched: the format's own record of the model's turn


@dataclass(frozen=True, slots=True)
class Turn:
    """How one upstream answer ended, for the tool loop (whole or streamed)."""

    hidden: list[Call]  # memory calls to run
    order: list[str]  # ids of every call of the turn, hidden and the client's, in the model's order
    relayed: int  # the client's own calls in the turn, relayed to it
    reason: str | None  # the finish reason, held back when the turn made memory calls
    content: str | None = None
    cut: bool = False  # the answer was cut short (a token limit): its calls are dropped, never run
    client_calls: tuple[tuple[str, str], ...] = ()  # (id, name) of the client's calls, as the client got them
    # The format's own record of the model's turn, for next_payload through HiddenStep.state (None for chat):
    # Responses keeps the hop's response id and output items (reasoning with encrypted_content), Messages the
    # content blocks as sent (thinking with its signature), which the next hop must carry back unchanged.
    state: Any = None


@dataclass(frozen=True, slots=True)
class KeptTurn:
    """A mixed turn's memory calls and their results, kept for the client's follow-up (COMPAT E3).

    ``order``: the id of every call of the turn, the memory ones and the client's, in the model's order.
    """

    order: tuple[str, ...]
    calls: tuple[Call, ...]
    results: tuple[str, ...]
    client: tuple[tuple[str, str], ...] = ()  # (id, name) of the calls the client got, when known


# The kept turn a client call id belongs to (the caller's own turns only), or None.
Kept = Callable[[str], KeptTurn | None]


@dataclass(frozen=True, slots=True)
class ToolPlan:
    """The memory tools one request gets; the proxy runs these, the client never sees them."""

    names: frozenset[str]
    specs: tuple[ToolSpec, ...] = field(default=())
    # Tools offered as the provider defines them, not as functions: Anthropic's memory tool
    # (``{"type": "memory_20250818", "name": "memory"}``, ``tools.anthropic_memory: offer``). Messages only.
    native: tuple[dict[str, Any], ...] = field(default=())


class AnswerReader(Protocol):
    """Reads a non-streamed request's upstream answers, hop after hop, and assembles the one the client gets."""

    def read(self, body: bytes) -> Turn | None:
        """The turn an answer ended with; None when it is not an answer of this format."""
        ...

    def result(self) -> bytes:
        """The client's answer: the first hop's identity, the text of every hop, the client's calls, usage summed."""
        ...

    @property
    def rewrites(self) -> bool:
        """The answer goes through :meth:`result` even without a memory call in it: it echoes something the proxy
        changed in the request (a chain id), which the client must get back as it sent it."""
        ...

    @property
    def response_id(self) -> str | None:
        """As :attr:`Splitter.response_id`."""
        ...

    @property
    def chain_id(self) -> str | None:
        """As :attr:`Splitter.chain_id`."""
        ...

    @property
    def called(self) -> tuple[tuple[str, str], ...]:
        """As :attr:`Splitter.called`."""
        ...

    @property
    def brought(self) -> tuple[str, ...]:
        """As :attr:`Splitter.brought`, over the hops read so far."""
        ...

    def glance(self, body: bytes) -> None:
        """The client's answer went back untouched (:meth:`read` never saw it): read it now if what the session
        needs of it (the ids a later request chains from, what it brought in from outside) may be in it."""
        ...


class Splitter(StreamSplitter, Protocol):
    """A streamed request's splitter: the relay's protocol plus what the tool loop needs between hops."""

    def hop_end(self) -> Turn: ...

    def made_memory_calls(self) -> bool:
        """Whether the hop that just ended called the proxy's tools: most hops did not, and that is all the loop
        asks of them (their turn is built only when it needs more, :meth:`hop_end`)."""
        ...

    def upstream_error(self, status: int, body: bytes) -> bytes:
        """An upstream error met on a later hop, after the stream started: the stream's last event."""
        ...

    def finish_chunk(self, reason: str | None) -> bytes:
        """The end-of-turn event held back while the loop decided, with the reason the client sees."""
        ...

    def next_hop(self) -> None: ...

    def answer(self) -> list[dict[str, Any]]:
        """What the client got over the whole stream, as the session's conversation keeps it
        (:func:`assistant_answer`)."""
        ...

    @property
    def response_id(self) -> str | None:
        """The id a later request may chain from (Responses' ``previous_response_id``); None for other formats."""
        ...

    @property
    def chain_id(self) -> str | None:
        """The id the upstream stored the whole loop under, which a chained request is sent on from."""
        ...

    @property
    def called(self) -> tuple[tuple[str, str], ...]:
        """The calls the answer made that the client got, ``(call id, tool)``, and ``("", name)`` for what it brought
        in from outside: a request chaining from it carries only the calls' results (the calls are stored upstream),
        so provenance learns them here. () for other formats."""
        ...

    @property
    def brought(self) -> tuple[str, ...]:
        """What the hops so far brought in from outside, by name: the tools the upstream ran itself (Responses'
        ``web_search_call`` ..., Anthropic's server tools and MCP connector), and any item or block this proxy does
        not know. They taint the session from then on (DESIGN "Provenance")."""
        ...


class Dialect(Protocol):
    name: str
    echoes_tools: bool  # answers repeat the request's tools: with memory tools offered, none goes back untouched

    def parse(self, body: bytes) -> ParsedRequest: ...

    def messages(self, payload: dict[str, Any]) -> Sequence[dict[str, Any]]: ...

    def inject(self, payload: dict[str, Any], placement: Placement) -> dict[str, Any]: ...

    def plan_tools(self, payload: dict[str, Any], specs: Sequence[ToolSpec]) -> ToolPlan | None: ...

    def offer(self, payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]: ...

    def withdraw(self, payload: dict[str, Any], plan: ToolPlan) -> dict[str, Any]: ...

    def next_payload(self, payload: dict[str, Any], steps: Sequence[HiddenStep]) -> dict[str, Any]: ...

    # ``previous``: the ``previous_response_id`` the client sent, when the proxy sent the upstream another one (its
    # chain): answers echo the client's again. Only Responses chains; the other formats ignore it.
    def reader(self, hidden: frozenset[str], previous: str | None = None) -> AnswerReader: ...

    def splitter(self, *, include_usage: bool, hidden: frozenset[str], previous: str | None = None) -> Splitter: ...

    def visible_reason(self, reason: str | None, relayed: int) -> str | None: ...

    def answer(self, body: bytes) -> list[dict[str, Any]]:
        """A whole answer the client got, as the session's conversation keeps it (read only when needed)."""
        ...

    def hosted(self, payload: dict[str, Any]) -> tuple[str, ...]:
        """Tools the upstream runs for this request whose calls its answer never shows (chat's
        ``web_search_options``): the answer brings outside content in whatever it says. () for the other formats,
        whose answers show such calls (:attr:`Splitter.brought`)."""
        ...

    def chained(self, payload: dict[str, Any]) -> str | None:
        """The stored answer this request continues (its conversation and memory block live upstream), if any."""
        ...

    def structured(self, payload: dict[str, Any]) -> bool:
        """Whether the request asks for structured output (a JSON object or schema): the client parses the answer,
        so it is a side request unless configured otherwise (:mod:`proxy.tools.side_requests`)."""
        ...

    def restore(self, payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
        """The request with each kept mixed turn made whole again; None when nothing was restored."""
        ...

    def error_body(self, error: ProxyError) -> bytes:
        """An error response's body in the format's own shape."""
        ...

    def context_view(self, payload: dict[str, Any]) -> View:
        """:meth:`messages` with where each came from in the format's own list (what context edits index)."""
        ...

    def rewrite_context(self, payload: dict[str, Any], edits: ContextEdits) -> dict[str, Any]:
        """The request with offloaded tool results replaced and a cut's turns replaced by the overview, in the
        format's own shapes; the same body when there is nothing to change."""
        ...


def call_message(call: Call) -> dict[str, Any]:
    """A call in chat's shape, as the model's turn carries it in ``tool_calls``."""
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def assistant_answer(text: str | None, calls: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """An answer's text and the client's calls in it (chat-shaped ``tool_calls``) as the chat-shaped messages
    sessions, history and transcripts read; none when it has neither.

    A chat or Messages client sends an answer's calls back with its next turn, but a session that ends right after
    one never gets that turn: the calls are kept with the answer, as a Responses answer's are
    (:func:`.responses_input.said`).
    """
    if not calls:
        return [{"role": "assistant", "content": text}] if text else []
    return [{"role": "assistant", "content": text or None, "tool_calls": list(calls)}]


def asks_for_json(output_format: Any) -> bool:
    """A format field that asks for JSON (``json_schema``, ``json_object``), as every format spells it."""
    return isinstance(output_format, dict) and output_format.get("type") in ("json_schema", "json_object")


def add_usage(total: dict[str, Any] | None, usage: Any) -> dict[str, Any] | None:
    """Usage summed over a loop's upstream calls (what the calls cost, as billing counts it; COMPAT D4).

    Numbers add up, nested details too; anything else keeps the latest value.
    """
    if not isinstance(usage, dict):
        return total
    if total is None:
        return usage
    summed = dict(total)
    for key, value in usage.items():
        before = summed.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and isinstance(before, int | float):
            summed[key] = before + value
        elif isinstance(value, dict) and isinstance(before, dict):
            summed[key] = add_usage(before, value)
        else:
            summed[key] = value
    return summed


def check_tools(payload: dict[str, Any], param: Callable[[int], str], *, required: str) -> None:
    """A ``tools`` list the proxy can read: objects, each with a string ``required`` field (what every tool of the
    format has: ``type`` in the Responses API, ``name`` in Messages), and a ``name``, where one is given, a string.

    The proxy reads every tool's name to offer its own beside them and to tell its calls from the client's: a
    list holding ``null``, ``{}``, a nested list or a name that is an object is a 400 here (``param(i)`` names the
    item in the format's own way), never a crash further on. Anything else about a tool is the upstream's to judge."""
    tools = payload.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        raise InvalidRequest("'tools' must be a list of tools", param="tools")
    for position, tool in enumerate(tools):
        where = param(position)
        if not isinstance(tool, dict) or not isinstance(tool.get(required), str):
            raise InvalidRequest(f"{where} must be a tool: an object with a string '{required}'", param=where)
        if "name" in tool and not isinstance(tool["name"], str):
            raise InvalidRequest(f"{where}.name must be a string", param=f"{where}.name")
