"""Models served through litellm instead of the OpenAI-compatible upstream (``upstream.litellm_models``).

litellm is slow to import and fetches a price map at import time unless told not to, so it is
imported here, lazily, on the first request for such a model; the plain OpenAI-compatible path
never touches it. Its responses and chunks are already OpenAI-shaped; its exceptions are
translated into ours where they enter.
"""

from __future__ import annotations

import fnmatch
import gc
import os
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ProxyError, UpstreamStatusError, UpstreamTimeout, UpstreamUnreachable

if TYPE_CHECKING:
    from ..config import UpstreamSettings

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


def import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    first = "litellm" not in sys.modules
    import litellm

    if first:
        # Its 300,000 objects live as long as the process: keep them out of every full collection, which otherwise
        # takes 200 ms each time and stalls every request in flight (measured: stream c=16 p99 250 ms).
        gc.freeze()

    litellm.suppress_debug_info = True
    # litellm's aiohttp transport keeps sessions bound to the event loop that made them and leaves connections
    # open at shutdown; its httpx transport closes cleanly. This route is not the hot path.
    litellm.disable_aiohttp_transport = True
    return litellm


class LiteLLMRoute:
    def __init__(self, patterns: tuple[str, ...], *, api_base: str | None, timeout_s: float) -> None:
        self.patterns = patterns
        self.api_base = api_base
        self.timeout_s = timeout_s
        self._used = False

    @classmethod
    def of(cls, upstream: UpstreamSettings) -> LiteLLMRoute:
        return cls(upstream.litellm_models, api_base=upstream.litellm_api_base, timeout_s=upstream.timeout_s)

    def mark_used(self) -> None:
        """litellm's cached clients need closing at shutdown (the extractor calls litellm too)."""
        self._used = True

    def handles(self, model: object) -> bool:
        return isinstance(model, str) and any(fnmatch.fnmatchcase(model, pattern) for pattern in self.patterns)

    async def complete(self, payload: dict[str, Any], api_key: str | None) -> bytes:
        litellm = import_litellm()
        try:
            response = await litellm.acompletion(**self._arguments(payload, api_key))
        except Exception as exc:
            raise translate_litellm_error(exc) from exc
        return orjson.dumps(_completion_shape(response.model_dump(exclude_none=True)))

    async def stream(self, payload: dict[str, Any], api_key: str | None) -> AsyncIterator[bytes]:
        """Chunks as JSON bytes; the first is awaited before returning, so a failed call is an error status."""
        litellm = import_litellm()
        try:
            chunks = await litellm.acompletion(**self._arguments(payload, api_key))
            first = await anext(aiter(chunks))
        except StopAsyncIteration:
            first = None
        except Exception as exc:
            raise translate_litellm_error(exc) from exc
        return self._relay(chunks, first)

    async def _relay(self, chunks: Any, first: Any) -> AsyncIterator[bytes]:
        if first is None:
            return
        yield orjson.dumps(_chunk_shape(first.model_dump(exclude_none=True)))
        try:
            async for chunk in chunks:
                yield orjson.dumps(_chunk_shape(chunk.model_dump(exclude_none=True)))
        except Exception as exc:
            raise translate_litellm_error(exc) from exc

    async def aclose(self) -> None:
        """Close the HTTP clients litellm caches globally, if this process ever used it."""
        if self._used:
            litellm = import_litellm()
            await litellm.close_litellm_async_clients()
            litellm.in_memory_llm_clients_cache.flush_cache()

    def _arguments(self, payload: dict[str, Any], api_key: str | None) -> dict[str, Any]:
        self.mark_used()
        arguments = dict(payload)
        arguments.setdefault("timeout", self.timeout_s)
        if self.api_base is not None:
            arguments["api_base"] = self.api_base
        if api_key is not None:
            arguments["api_key"] = api_key
        return arguments


def _completion_shape(completion: dict[str, Any]) -> dict[str, Any]:
    """litellm's dump without its nulls, but with the nullable fields OpenAI's schema requires (COMPAT B7)."""
    for choice in completion.get("choices", []):
        choice.setdefault("logprobs", None)
        message = choice.setdefault("message", {})
        message.setdefault("content", None)
        message.setdefault("refusal", None)
    return completion


def _chunk_shape(chunk: dict[str, Any]) -> dict[str, Any]:
    for choice in chunk.get("choices", []):
        choice.setdefault("delta", {})
        choice.setdefault("finish_reason", None)
        choice.setdefault("logprobs", None)
    return chunk


def translate_litellm_error(exc: Exception) -> ProxyError:
    litellm = import_litellm()
    if isinstance(exc, ProxyError):
        return exc
    if isinstance(exc, litellm.Timeout):
        return UpstreamTimeout(f"the provider did not answer in time: {exc}")
    if isinstance(exc, litellm.APIConnectionError):
        return UpstreamUnreachable(f"cannot reach the provider: {getattr(exc, 'message', exc)}")
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or not 400 <= status <= 599:
        status = 502
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    retry = {name: headers[name] for name in ("retry-after", "retry-after-ms") if name in headers}
    message = str(getattr(exc, "message", None) or exc)
    return UpstreamStatusError(status, message, type=_ERROR_TYPES.get(status, "server_error"), headers=retry)
