"""Record upstream exchanges to a folder and serve them back in place of the upstream.

Both are httpx transports, so the proxy behaves identically in record, replay and live mode.
An exchange is keyed by method, path (below the base URL) and body (JSON canonicalised), and
numbered per key, so a conversation that sends the same request twice replays both answers in
order. Request headers are never written: they carry the client's credentials.
"""

from __future__ import annotations

import base64
import hashlib
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson

from ..errors import InvalidRequest

_NOT_RECORDED = frozenset({"set-cookie", "content-length", "transfer-encoding", "connection", "keep-alive"})


def exchange_key(method: str, path: str, query: str, body: bytes) -> str:
    try:
        canonical = orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body else b""
    except orjson.JSONDecodeError:
        canonical = body
    digest = hashlib.sha256(f"{method.upper()} {path}?{query}\n".encode() + canonical).hexdigest()
    return digest[:20]


class _Exchanges:
    """Where exchanges live and how requests map to them."""

    def __init__(self, directory: str | Path, base_url: str) -> None:
        self.directory = Path(directory)
        self.base_path = httpx.URL(base_url).path.rstrip("/")
        self.counts: defaultdict[str, int] = defaultdict(int)

    def key(self, request: httpx.Request, body: bytes) -> str:
        path = request.url.path
        if self.base_path and path.startswith(self.base_path):
            path = path[len(self.base_path) :]
        return exchange_key(request.method, path, request.url.query.decode("latin-1"), body)

    def file(self, key: str, sequence: int) -> Path:
        return self.directory / f"{key}-{sequence:03d}.json"


class RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, directory: str | Path, base_url: str) -> None:
        self._inner = inner
        self._exchanges = _Exchanges(directory, base_url)
        self._exchanges.directory.mkdir(parents=True, exist_ok=True)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        key = self._exchanges.key(request, body)
        sequence = self._exchanges.counts[key]
        self._exchanges.counts[key] += 1
        response = await self._inner.handle_async_request(request)
        record = {
            "request": {
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query.decode(),
                "body": _body_text(body),
            },
            "response": {
                "status": response.status_code,
                "headers": [[k, v] for k, v in response.headers.multi_items() if k not in _NOT_RECORDED],
            },
        }
        target = self._exchanges.file(key, sequence)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, record, target),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _TeeStream(httpx.AsyncByteStream):
    """Relays the body as it arrives and writes the exchange once it has all gone by."""

    def __init__(self, inner: Any, record: dict[str, Any], target: Path) -> None:
        self._inner, self._record, self._target = inner, record, target
        self._chunks: list[bytes] = []
        self._complete = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._chunks.append(chunk)
            yield chunk
        self._complete = True

    async def aclose(self) -> None:
        await self._inner.aclose()
        self._record["response"]["complete"] = self._complete
        self._record["response"]["chunks"] = [_body_text(chunk) for chunk in self._chunks]
        tmp = self._target.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(self._record, option=orjson.OPT_INDENT_2))
        tmp.replace(self._target)


class ReplayTransport(httpx.AsyncBaseTransport):
    """Serves recorded exchanges; a request never recorded gets a 404 that says so."""

    def __init__(self, directory: str | Path, base_url: str) -> None:
        self._exchanges = _Exchanges(directory, base_url)
        if not self._exchanges.directory.is_dir():
            raise FileNotFoundError(f"replay folder {directory} does not exist")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = self._exchanges.key(request, await request.aread())
        sequence = self._exchanges.counts[key]
        self._exchanges.counts[key] += 1
        target = self._exchanges.file(key, sequence)
        while not target.exists() and sequence > 0:  # asked more often than recorded: repeat the last answer
            sequence -= 1
            target = self._exchanges.file(key, sequence)
        if not target.exists():
            message = f"no recorded exchange for {request.method} {request.url.path} (key {key})"
            return httpx.Response(404, json=InvalidRequest(message, code="replay_miss").envelope())
        response = orjson.loads(target.read_bytes())["response"]
        chunks = [_body_bytes(chunk) for chunk in response["chunks"]]
        return httpx.Response(response["status"], headers=response["headers"], stream=_Replayed(chunks))


class _Replayed(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


def _body_text(body: bytes) -> str | dict[str, str]:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode()}


def _body_bytes(body: str | dict[str, str]) -> bytes:
    return base64.b64decode(body["base64"]) if isinstance(body, dict) else body.encode("utf-8")
