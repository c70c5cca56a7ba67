"""`FakeUpstream`: one server speaking every wire format (Chat Completions, Responses, Anthropic Messages), so a test
scripts a single reply queue whichever client (the openai SDK, the Agents SDK, the anthropic SDK, litellm's
``openai/`` or ``anthropic/`` provider, or memproxy itself) sits in front of it."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .anthropic_fake import AnthropicRoutes
from .control import CONTROL_PREFIX, ControlRoutes
from .openai_fake import OpenAIRoutes
from .responses_fake import ResponsesRoutes

_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class FakeUpstream(OpenAIRoutes, ResponsesRoutes, AnthropicRoutes, ControlRoutes):
    """The fake's state (reply queue, seen requests, counters) and its Starlette app.

    Queue `Reply` objects with `reply()`, or script a tiny model with `respond_with()`; assert on `requests`.
    Over HTTP the same is ``POST /_fake/replies``, ``GET /_fake/requests`` and ``POST /_fake/reset``.
    """

    def __init__(self, *, record_requests: bool = True, keep_requests: int | None = None, strict: bool = False) -> None:
        super().__init__(record_requests=record_requests, keep_requests=keep_requests, strict=strict)
        self.app = Starlette(
            routes=[
                Route(f"{CONTROL_PREFIX}/replies", self._queue_replies, methods=["POST"]),
                Route(f"{CONTROL_PREFIX}/replies", self._pending_replies, methods=["GET"]),
                Route(f"{CONTROL_PREFIX}/requests", self._seen_requests, methods=["GET"]),
                Route(f"{CONTROL_PREFIX}/reset", self._reset_over_http, methods=["POST"]),
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
                Route("/v1/messages", self._anthropic_messages, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/models", self._list_models, methods=["GET"]),
                Route("/v1/models/{model_id:path}", self._get_model, methods=["GET"]),
                Route("/{path:path}", self._echo, methods=_ALL_METHODS),
            ]
        )
