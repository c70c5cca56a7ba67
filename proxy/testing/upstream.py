"""`FakeUpstream`: one server speaking every wire format (Chat Completions, Responses, Anthropic Messages), so a test
scripts a single reply queue whichever client (the openai SDK, the Agents SDK, the anthropic SDK, litellm's
``openai/`` or ``anthropic/`` provider, or memproxy itself) sits in front of it."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .anthropic_fake import AnthropicRoutes
from .openai_fake import OpenAIRoutes
from .responses_fake import ResponsesRoutes

_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class FakeUpstream(OpenAIRoutes, ResponsesRoutes, AnthropicRoutes):
    """The fake's state (reply queue, seen requests, counters) and its Starlette app.

    Queue `Reply` objects with `reply()`, or script a tiny model with `respond_with()`; assert on `requests`.
    """

    def __init__(self, *, record_requests: bool = True) -> None:
        super().__init__(record_requests=record_requests)
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
                Route("/v1/messages", self._anthropic_messages, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/models", self._list_models, methods=["GET"]),
                Route("/v1/models/{model_id:path}", self._get_model, methods=["GET"]),
                Route("/{path:path}", self._echo, methods=_ALL_METHODS),
            ]
        )
