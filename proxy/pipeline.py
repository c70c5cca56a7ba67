"""A memory-carrying request's way through the proxy, whatever its wire format.

app -> identity -> dialect (parse) -> session and hidden turns -> recall (block, notes) -> tool loop ->
upstream, and back through the dialect's answer reader or stream splitter. The request body is parsed
only to check it and to learn what memory needs; what goes upstream is the client's own bytes, so
fields the proxy does not know arrive unchanged (COMPAT F1), unless memory adds something, in which
case the dialect re-encodes the parsed body with memory in place.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .auth.object_refs import BODY_PARAMS, Reference, not_found_message, request_references
from .auth.objects import UpstreamObjects
from .dialects.base import AnswerReader, Dialect, Splitter
from .dialects.chat import CHAT
from .dialects.responses import RESPONSES
from .episodes.extraction_wire import Credential
from .episodes.sessions import ChainLink, Followed, derive_session_id
from .episodes.trust import SessionTrust
from .errors import ObjectNotFound
from .memory.block import Placement
from .memory.caller import Identity
from .pipe.headers import RawHeaders, upstream_request_headers
from .pipe.hops import Hops, LiteLLMHops, UpstreamHops
from .pipe.relay import SNIFFED_BYTES, ClientGone, answered, read_body, streamed_passthrough, unless_disconnected
from .pipe.upstream import Upstream, once_sent
from .services import Services
from .tools.loop import ToolLoop, complete, stream
from .tools.memory_tools import SCHEMAS

MEMORY_TOOLS = tuple(SCHEMAS.values())
# Status a client that already left never sees; uvicorn just logs it (nginx's "client closed request").
CLIENT_CLOSED = 499
MAX_KEPT_ANSWER = 256 * 1024  # a session keeps its newest whole answer for its transcript, up to this size


async def handle(request: Request, services: Services, dialect: Dialect, upstream: Upstream) -> Response:
    """One request of ``dialect`` to ``upstream``, with memory when the caller is known."""
    raw: RawHeaders = request.scope["headers"]  # as uvicorn gave them: no Headers object, no URL built
    auth = services.auth.authenticate(raw)
    parsed = dialect.parse(await read_body(request, services.settings.server.max_body_bytes))
    caller = auth.identity
    payload = parsed.payload
    # Through the shared upstream key every user's stored objects sit in one account: each id a request names must
    # be one its user made, and what a Responses request makes is bound to them.
    owner = caller.user if caller is not None and auth.upstream_key is not None else None
    if owner is not None:
        await require_owned(services.objects, owner, request_references(payload))
    # What the upstream stores: a Responses answer unless `store: false`, a chat completion with `store: true`.
    binds = owner is not None and (
        (dialect is RESPONSES and payload.get("store") is not False)
        or (dialect is CHAT and payload.get("store") is True)
    )
    # A model outside tools.models gets its memories but no tools (nor the block's line on them): it would
    # write pseudo-calls as text instead of answering.
    tools_on = caller is not None and services.settings.tools.enabled and services.tool_models(payload.get("model"))
    plan = dialect.plan_tools(payload, MEMORY_TOOLS) if tools_on else None
    session, chained = "", False
    trust: SessionTrust | None = None
    previous: str | None = None  # the chain id the client sent, when the upstream gets the proxy's instead
    conversation: Sequence[dict[str, Any]] | None = None
    read = payload  # the payload `conversation` was read from
    if caller is not None:
        conversation = dialect.messages(payload)
        session, chain = await _session(services, dialect, caller, payload, conversation)
        chained = chain is not None
        if not chained and dialect is RESPONSES and _stored_conversation(payload) is not None:
            # The upstream keeps the conversation's items: the block went with its first request and is stored there.
            chained = await _block_sent(services, (caller.user, caller.workspace, session))
        if chain is not None and chain.chain != payload.get("previous_response_id"):
            previous = dialect.chained(payload)
            payload = {**payload, "previous_response_id": chain.chain}  # where the upstream stored the whole loop
        # Of what the client sent, before the hidden turns come back: only that can carry an untrusted tool's output.
        hosted = dialect.hosted(payload)
        trust = services.episodes.trust(caller, session, conversation, chain, hosted, size=len(parsed.body))
        once_sent(trust.session)  # noted while the upstream works
        await services.hidden_turns.load((caller.user, caller.workspace), session)
        kept = services.hidden_turns.kept((caller.user, caller.workspace), session)
        restored = dialect.restore(payload, kept) if kept is not None else None
        if restored is not None:
            payload = restored
    messages = conversation if conversation is not None and payload is read else dialect.messages(payload)
    prepared = await services.memory.prepare(caller, messages, session, tools=tools_on)
    placement = prepared.placement
    before = None  # what the answer waits for: the session's state, written while the upstream works
    if prepared.shared is not None:
        once_sent(prepared.shared.start)
        before = prepared.shared.wait
    if chained:  # the block went upstream with the chain's first request and is stored there: notes only
        placement = Placement(None, placement.notes)
    sent = payload
    payload = dialect.inject(payload, placement)
    headers_out = prepared.headers
    if caller is not None and services.context.enabled:  # offload and window: only what goes upstream changes
        payload, context_headers = await services.context.rewrite(dialect, sent, payload, caller, session)
        headers_out = [*headers_out, *context_headers]
    loop = None
    if plan is not None and caller is not None and trust is not None:
        payload = dialect.offer(payload, plan)
        loop = ToolLoop(
            dialect,
            plan,
            services.tools,
            services.hidden_turns,
            caller,
            services.settings.tools.max_hops,
            services.metrics,
            session,
            trust,
        )
    headers = upstream_request_headers(raw, auth.upstream_key, auth.strip, key_header=upstream.key_header)
    path, query = request.scope["path"], request.scope["query_string"]
    hops: Hops = UpstreamHops(upstream, path, query, headers, services.settings.upstream.max_event_bytes, before)
    if dialect is CHAT and services.litellm.handles(parsed.payload.get("model")):
        hops = LiteLLMHops(services.litellm, auth.upstream_key or auth.client_key, before)
    body = parsed.body if payload is parsed.payload else None
    answer: Callable[[], Sequence[dict[str, Any]]] | None = None
    reader: AnswerReader | None = None
    try:
        if trust is None and loop is None and body is not None and dialect is not CHAT:
            # Nothing of memory's to add, hide or learn from (no caller, no session): the answer goes back as sent.
            send = upstream.send("POST", path, query=query, headers=headers, content=body)
            if before is not None:
                send = answered(send, before)
            sniffed = partial(_bind_sniffed, services.objects, owner) if binds and owner is not None else None
            return streamed_passthrough(await unless_disconnected(request.receive, send), first=sniffed)
        if parsed.stream:
            hidden = loop.plan.names if loop is not None else frozenset()
            splitter = dialect.splitter(include_usage=parsed.include_usage, hidden=hidden, previous=previous)
            streamed = StreamedAnswer(splitter)
            answer = streamed
            settle = partial(_settle_stream, trust, splitter, dialect.echoes_tools) if trust is not None else None
            ended = streamed.end
            if binds and owner is not None:
                ended = partial(_end_and_bind, streamed, services.objects, owner)
            work = stream(splitter, hops, payload, body, loop, headers_out, ended, settle)
        else:
            reader = dialect.reader(loop.plan.names if loop is not None else frozenset(), previous)
            work = complete(reader, hops, payload, body, loop, headers_out)
        response = await unless_disconnected(request.receive, work)
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)
    if binds and owner is not None and not parsed.stream and response.status_code < 400:
        whole = getattr(response, "body", None)
        if isinstance(whole, bytes) and dialect is CHAT:
            _bind_sniffed(services.objects, owner, whole[:SNIFFED_BYTES], _COMPLETION_ID)
        elif isinstance(whole, bytes) and reader is not None:
            reader.glance(whole)
            services.objects.bind(owner, (reader.response_id, reader.chain_id))
    if trust is not None and caller is not None and response.status_code < 400:
        trust.session()  # noted already, unless nothing waited
        whole = getattr(response, "body", None)
        if reader is not None and isinstance(whole, bytes):
            # What the session keeps of a whole answer: what it brought in, the link a request may chain from.
            reader.glance(whole)
            link = ChainLink(reader.response_id, reader.chain_id, reader.called) if dialect.echoes_tools else None
            waiting = trust.settle(reader.brought, link)
            if waiting is not None:
                await waiting  # shared before the client has the answer: its next request may land anywhere
            if len(whole) <= MAX_KEPT_ANSWER:
                answer = partial(dialect.answer, whole)  # parsed only when the session's conversation is read
        credential = Credential(auth.client_key, auth.client_key_header) if auth.client_key is not None else None
        services.episodes.confirm(caller, session, parsed.payload.get("model"), credential, answer, api=dialect.name)
    return response


async def require_owned(objects: UpstreamObjects, owner: str, named: Sequence[Reference]) -> None:
    """A 404 in the API's own shape for the first object named that ``owner`` did not make."""
    if not named:
        return
    stranger = await objects.first_not_owned(owner, [reference.id for reference in named])
    if stranger is not None:
        param = next(reference.param for reference in named if reference.id == stranger)
        code = "previous_response_not_found" if param == "previous_response_id" else None
        shown = param if param in BODY_PARAMS else None  # a path's object is no parameter
        raise ObjectNotFound(not_found_message(param, stranger), param=shown, code=code)


_RESPONSE_ID = re.compile(rb'"id"\s*:\s*"(resp_[^"\\]{1,200})"')
_COMPLETION_ID = re.compile(rb'"id"\s*:\s*"([^"\\]{1,200})"')  # a chat completion's is its first "id"


def _bind_sniffed(
    objects: UpstreamObjects, owner: str, opening: bytes, pattern: re.Pattern[bytes] = _RESPONSE_ID
) -> None:
    """An answer relayed untouched: its id is the first one in it (a whole response's own, or ``response.created``'s
    in a stream). (A streamed chat completion stored upstream is not bound: nobody, its maker too, reaches it through
    the shared key.)"""
    found = pattern.search(opening)
    if found is not None:
        objects.bind(owner, (found[1].decode(),))


def _end_and_bind(streamed: StreamedAnswer, objects: UpstreamObjects, owner: str) -> None:
    streamed.end()
    if streamed.ids is not None:
        objects.bind(owner, (streamed.ids.client, streamed.ids.chain))


def _settle_stream(trust: SessionTrust, splitter: Splitter, chains: bool) -> Awaitable[None] | None:
    """A stream's last step before its end goes out: what its hops brought in, the link a request may chain from
    (only Responses answers are chained from)."""
    return trust.settle(splitter.brought, _link(splitter) if chains else None)


async def _session(
    services: Services,
    dialect: Dialect,
    caller: Identity,
    payload: dict[str, Any],
    conversation: Sequence[dict[str, Any]],
) -> tuple[str, Followed | None]:
    """The session a request belongs to and, when it continues a chain of ours (whose block is already stored
    upstream), where it goes on from: the upstream id, the conversation before it, the tools the chain called.

    ``X-Memory-Session`` names it; a chained Responses request continues the session of the answer it names (this
    process's link, else the store's: an untrusted session's, shared by every replica); otherwise the conversation's
    opening does, for as long as the conversation extends what the session saw.
    """
    sessions = services.episodes.sessions
    previous = dialect.chained(payload)
    if previous is not None:
        found = await services.episodes.follow(caller, previous)
        if found is not None:
            if caller.session and caller.session != found.session:  # its conversation is another session's
                return caller.session, replace(found, after=None)
            return found.session, found
    if caller.session:
        return caller.session, None
    stored = _stored_conversation(payload) if dialect is RESPONSES else None
    if stored is not None:  # a Responses `conversation`: its requests carry only their new items, and are one session
        return "conv-" + hashlib.sha256(stored.encode()).hexdigest()[:24], None
    session, fresh = sessions.resolve(caller.user, caller.workspace, derive_session_id(conversation), conversation)
    if fresh:  # a new conversation under a name an older one had: its block is chosen afresh
        services.memory.recall.forget_session((caller.user, caller.workspace, session))
    return session, None


def _stored_conversation(payload: dict[str, Any]) -> str | None:
    """The upstream conversation a Responses request adds to (``conversation``: its id, or ``{"id": ...}``)."""
    value = payload.get("conversation")
    ident = value.get("id") if isinstance(value, dict) else value
    return ident if isinstance(ident, str) and ident else None


async def _block_sent(services: Services, key: tuple[str, str, str]) -> bool:
    """Whether a session's block was chosen before (so sent with an earlier request): here, or on a replica."""
    if services.memory.recall.has(key):
        return True
    if not services.memory.sessions.shared:
        return False
    try:
        return await services.memory.sessions.get(key) is not None
    except Exception:  # noqa: BLE001 - the store failing: the block goes again rather than the request failing
        return False


@dataclass(slots=True)
class StreamedAnswer:
    """What a session keeps of a streamed answer: its splitter while it streams, then only the answer and its ids.

    A splitter holds every event's parsed state (a Responses stream's whole final response, tools echo and all);
    a session kept it for its idle timeout, and with a conversation per request those piled up until the
    collector's full passes over them took over a tenth of the proxy's CPU (each pass longer than the last).
    """

    splitter: Splitter | None
    said: Sequence[dict[str, Any]] = ()
    ids: ChainLink | None = None  # once it is over: the ids it was stored under upstream

    def end(self) -> None:
        """The stream is over, however it ended: keep what was relayed, let the splitter go."""
        splitter, self.splitter = self.splitter, None
        if splitter is not None:
            self.said = splitter.answer()
            self.ids = _link(splitter)

    def __call__(self) -> Sequence[dict[str, Any]]:
        """The answer (:meth:`Splitter.answer`). A session keeps the object itself: a bound method would be one more
        to collect."""
        return self.splitter.answer() if self.splitter is not None else self.said


NO_LINK = ChainLink(None, None)  # a chat answer's: nothing chains from it


def _link(splitter: Splitter) -> ChainLink:
    if splitter.response_id is None:
        return NO_LINK  # nothing chains from an answer without an id
    return ChainLink(splitter.response_id, splitter.chain_id, splitter.called)
