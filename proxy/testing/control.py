"""Scripting the fake over HTTP, for the standalone ``python -m proxy.testing`` that curl, a shell script or a test in
another language drives: what the pytest fixture does in-process (`reply`, `requests`, `reset`), under ``/_fake/``.

- ``POST /_fake/replies``: queue replies, one JSON object in `Reply`'s shape or a list of them (a string is a
  reply with that content); 200 ``{"queued", "pending"}``, 400 naming the bad field (nothing queued then).
  ``GET /_fake/replies``: ``{"pending"}``, the replies not used yet.
- ``GET /_fake/requests[?last=N]``: what the fake received (the newest N), oldest first: ``{"count", "requests":
  [{"method", "path", "query", "headers", "body", "json"}]}`` (a long-running fake keeps ``--keep-requests``).
- ``POST /_fake/reset``: forget queued replies, received requests and counters; the fake answers as it was started.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .core import FakeCore, json_response
from .replies import BadReply, Reply, loads_or_none, reply_from_json, seen_request_json

CONTROL_PREFIX = "/_fake"


class ControlRoutes(FakeCore):
    """The ``/_fake/`` endpoints; mixed into `FakeUpstream` beside the wire formats. They are not recorded."""

    async def _queue_replies(self, request: Request) -> Response:
        data = loads_or_none(await request.body())
        if data is None:
            return _bad("the body must be JSON: a reply object, a string, or a list of them")
        replies: list[Reply] = []
        for i, item in enumerate(data if isinstance(data, list) else [data]):
            try:
                replies.append(reply_from_json(item))
            except BadReply as exc:
                where = f"reply {i}: " if isinstance(data, list) else ""
                return _bad(f"{where}{exc}")
        for reply in replies:
            self.reply(reply)
        return json_response({"queued": len(replies), "pending": self.pending}, 200, {})

    async def _pending_replies(self, request: Request) -> Response:
        return json_response({"pending": self.pending}, 200, {})

    async def _seen_requests(self, request: Request) -> Response:
        last = request.query_params.get("last", "")
        if last and not last.isdigit():
            return _bad("last: a number of requests, the newest")
        kept = self.requests[max(len(self.requests) - int(last), 0) :] if last else self.requests
        seen = [seen_request_json(r) for r in kept]
        return json_response({"count": len(seen), "requests": seen}, 200, {})

    async def _reset_over_http(self, request: Request) -> Response:
        self.reset()
        return json_response({"ok": True}, 200, {})


def _bad(message: str) -> Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return json_response({"error": error}, 400, {})
