"""The extraction call: one litellm completion per ended session, answered as a JSON object.

Which model, where, and with whose key:

- ``extraction.model: null`` means the session's own model, where the session's requests went: the
  OpenAI-compatible upstream (``upstream.base_url``), or litellm when ``upstream.litellm_models`` matches.
- A name ``upstream.litellm_models`` matches goes to litellm as chat requests for it do; a name with a
  provider prefix litellm knows (``anthropic/...``) goes to that provider with its own environment
  (``ANTHROPIC_API_KEY``); any other name is a model of the configured upstream.
- The key is ``upstream.api_key`` when set, else the user's own bearer token as their latest request
  carried it, held in memory only. A client's key only ever goes where that client's requests go: never
  to a provider it did not call.

This runs in the extraction process (:mod:`proxy.episodes.extraction_process`), which imports litellm; the proxy's own
process never does for extraction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..config import Settings
from ..errors import ProxyError
from ..pipe.providers import LiteLLMRoute, import_litellm, translate_litellm_error
from ..scanning import redact

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
        self, messages: list[dict[str, str]], *, session_model: str | None, client_key: str | None
    ) -> Answer: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Target:
    model: str  # as litellm names it
    api_base: str | None
    client_key_allowed: bool  # the client's own requests go there too


class LiteLLMExtractor:
    def __init__(self, settings: Settings, route: LiteLLMRoute) -> None:
        self.settings = settings
        self.route = route

    def target(self, session_model: str | None) -> Target:
        upstream = self.settings.upstream
        configured = self.settings.extraction.model
        name = configured or session_model
        if not name:
            raise ExtractionFailed("no model to extract with: the session named none and extraction.model is null")
        if self.route.handles(name):
            return Target(name, upstream.litellm_api_base, client_key_allowed=True)
        if configured and "/" in name and name.split("/", 1)[0] in _providers():
            return Target(name, None, client_key_allowed=False)
        return Target(f"openai/{name}", upstream.base_url, client_key_allowed=True)

    async def extract(
        self, messages: list[dict[str, str]], *, session_model: str | None, client_key: str | None
    ) -> Answer:
        litellm = import_litellm()
        target = self.target(session_model)
        key = self.settings.upstream.api_key or (client_key if target.client_key_allowed else None)
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
            raise ExtractionFailed(reason, upstream_status=error.status, keyless=key is None) from exc
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        usage = getattr(response, "usage", None)
        return Answer(
            text=getattr(message, "content", None),
            model=target.model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )

    async def aclose(self) -> None:
        await self.route.aclose()


def _providers() -> frozenset[str]:
    litellm = import_litellm()
    return frozenset(str(getattr(p, "value", p)) for p in litellm.provider_list)
