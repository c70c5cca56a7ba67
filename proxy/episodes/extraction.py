"""The extraction call: one litellm completion per ended session, answered as a JSON object.

Which model, where, in which format and with whose key:

- ``extraction.model: null`` means the session's own model, where the session's requests went, in their format:
  a Chat Completions session through the OpenAI-compatible upstream (``upstream.base_url``), or litellm when
  ``upstream.litellm_models`` matches; a Responses session through that upstream's Responses API; an Anthropic
  Messages session through ``upstream.anthropic_base_url``'s Messages API.
- A name ``upstream.litellm_models`` matches goes to litellm as chat requests for it do; a name with a
  provider prefix litellm knows (``anthropic/...``) goes to that provider with its own environment
  (``ANTHROPIC_API_KEY``); any other name is a Chat Completions model of the OpenAI-compatible upstream.
- The key is ``upstream.api_key`` when set, else the client's own credential as the upstream of the session's
  requests accepted it (held in memory only), in the header it came in, and only when the call goes to that same
  upstream: a client's key never goes to a provider it did not call (an Anthropic key never reaches
  ``upstream.base_url``). Otherwise the call goes without a key, for an upstream that needs none.

This runs in the extraction process (:mod:`proxy.episodes.extraction_process`), which imports litellm; the proxy's own
process never does for extraction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from ..config import Settings
from ..errors import ProxyError
from ..pipe.providers import LiteLLMRoute, import_litellm, translate_litellm_error
from ..scanning import redact
from .extraction_wire import (
    ANTHROPIC,
    LITELLM,
    OPENAI,
    Credential,
    WireAnswer,
    WireCall,
    destination,
    error_message,
    messages_call,
    read_messages_answer,
    read_responses_answer,
    responses_call,
)

MAX_OUTPUT_TOKENS = 1_000  # a summary and ten facts fit with room to spare; a runaway answer costs no more
NO_KEY = "memproxy-no-key"  # litellm's OpenAI client refuses to start without some key; keyless upstreams ignore it


class ExtractionFailed(ProxyError):
    """The extraction call failed (an upstream error, a timeout, no model): the job is retried later."""

    status = 502
    code = "extraction_failed"

    def __init__(self, message: str, *, upstream_status: int | None = None, keyless: bool = False) -> None:
        super().__init__(message)
        self.upstream_status = upstream_status
        self.keyless = keyless  # the call went without a key: a key refused is not the job's fault


@dataclass(frozen=True, slots=True)
class Answer:
    text: str | None
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Extractor(Protocol):
    async def extract(
        self,
        messages: list[dict[str, str]],
        *,
        session_model: str | None,
        client_key: str | None,
        api: str = "chat",
        key_header: str = "authorization",
    ) -> Answer:
        """``api``: the dialect the session's requests spoke; ``client_key`` the credential the upstream of those
        requests accepted, in ``key_header``."""
        ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Target:
    model: str  # as litellm names it (the upstream's own name for a wire call)
    api_base: str | None
    destination: str  # OPENAI | ANTHROPIC | LITELLM, or PROVIDER: a provider litellm reaches with its own environment
    wire: str = "litellm"  # "litellm" (Chat Completions through litellm) | "responses" | "messages"


PROVIDER = "provider"


class LiteLLMExtractor:
    def __init__(self, settings: Settings, route: LiteLLMRoute) -> None:
        self.settings = settings
        self.route = route
        self._client: httpx.AsyncClient | None = None  # for wire calls; made in the loop that uses it

    def target(self, session_model: str | None, api: str = "chat") -> Target:
        upstream = self.settings.upstream
        configured = self.settings.extraction.model
        name = configured or session_model
        if not name:
            raise ExtractionFailed("no model to extract with: the session named none and extraction.model is null")
        if self.route.handles(name):
            return Target(name, upstream.litellm_api_base, LITELLM)
        if configured and "/" in name and name.split("/", 1)[0] in _providers():
            return Target(name, None, PROVIDER)
        if not configured and api == "messages":
            return Target(name, upstream.anthropic_base_url, ANTHROPIC, wire="messages")
        if not configured and api == "responses":
            return Target(name, upstream.base_url, OPENAI, wire="responses")
        return Target(f"openai/{name}", upstream.base_url, OPENAI)

    async def extract(
        self,
        messages: list[dict[str, str]],
        *,
        session_model: str | None,
        client_key: str | None,
        api: str = "chat",
        key_header: str = "authorization",
    ) -> Answer:
        target = self.target(session_model, api)
        # The client's credential only where the session's own requests took it.
        mine = target.destination == destination(api, session_model, self.route.handles(session_model))
        credential = self._credential(target, client_key if mine else None, key_header)
        # Keyless, where a key of the client's would have been used: a refusal means "wait for their key".
        keyless = credential is None and mine
        if target.wire != "litellm":
            return await self._wire(target, messages, credential, keyless)
        litellm = import_litellm()
        key = credential.value if credential is not None else None
        arguments: dict[str, Any] = {
            "model": target.model,
            "messages": messages,
            "response_format": {"type": "json_object"},
            "max_tokens": MAX_OUTPUT_TOKENS,
            "timeout": self.settings.upstream.timeout_s,
            "drop_params": True,  # a provider without JSON mode still gets the call; the prompt asks for JSON too
        }
        if target.api_base is not None:
            arguments["api_base"] = target.api_base
        if key is not None or target.model.startswith("openai/"):
            arguments["api_key"] = key or NO_KEY
        self.route.mark_used()
        try:
            response = await litellm.acompletion(**arguments)
        except Exception as exc:  # noqa: BLE001 - every failure is the job's to retry
            error = translate_litellm_error(exc)
            reason = redact(f"{target.model}: {error.message}")[:500]
            raise ExtractionFailed(reason, upstream_status=error.status, keyless=keyless) from exc
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        usage = getattr(response, "usage", None)
        return Answer(
            text=getattr(message, "content", None),
            model=target.model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )

    def _credential(self, target: Target, client_key: str | None, key_header: str) -> Credential | None:
        """``upstream.api_key`` (in the header the target's upstream takes a key in), else the client's own."""
        if target.destination == PROVIDER:  # its own environment's key: neither the server's nor the client's
            return None
        configured = self.settings.upstream.api_key
        if configured:
            return Credential(configured, "x-api-key" if target.destination == ANTHROPIC else "authorization")
        return Credential(client_key, key_header) if client_key else None

    async def _wire(
        self, target: Target, messages: list[dict[str, str]], credential: Credential | None, keyless: bool
    ) -> Answer:
        """The call in the session's own format (Responses or Messages), straight to its upstream."""
        assert target.api_base is not None
        build = messages_call if target.wire == "messages" else responses_call
        call: WireCall = build(target.api_base, target.model, messages, MAX_OUTPUT_TOKENS, credential)
        client = self._client or self._open()
        try:
            response = await client.post(call.url, json=call.body, headers=call.headers)
        except httpx.HTTPError as exc:
            reason = redact(f"{target.model}: cannot reach the upstream: {type(exc).__name__}: {exc}")[:500]
            raise ExtractionFailed(reason, keyless=keyless) from exc
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400:
            said = error_message(body) or f"the upstream answered {response.status_code}"
            reason = redact(f"{target.model}: {said}")[:500]
            raise ExtractionFailed(reason, upstream_status=response.status_code, keyless=keyless)
        read: WireAnswer = read_messages_answer(body) if target.wire == "messages" else read_responses_answer(body)
        return Answer(read.text, target.model, read.prompt_tokens, read.completion_tokens)

    def _open(self) -> httpx.AsyncClient:
        self._client = httpx.AsyncClient(timeout=self.settings.upstream.timeout_s, follow_redirects=False)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        await self.route.aclose()


def _providers() -> frozenset[str]:
    litellm = import_litellm()
    return frozenset(str(getattr(p, "value", p)) for p in litellm.provider_list)
