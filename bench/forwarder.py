"""The floor for a Python proxy: forward every request verbatim, stream every response back.

It does nothing a proxy could skip -- no parsing, no logging -- so its added latency is the
cost of the stack itself (uvicorn + Starlette + httpx over aiohttp). memproxy is compared
against it in bench/overhead.py.

    python bench/forwarder.py --port 8100 --upstream http://127.0.0.1:8000/v1

A client talks to it as to the upstream: ``/v1/<rest>`` is forwarded to ``<upstream>/<rest>``
(any other path is appended to the upstream base as is).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator

import httpx
import httpx_aiohttp
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
        b"host",
        b"content-length",
    }
)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def create_app(upstream: str) -> Starlette:
    base = upstream.rstrip("/")
    client: httpx.AsyncClient | None = None

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        nonlocal client
        transport = httpx_aiohttp.AiohttpTransport(limits=httpx.Limits(max_connections=1000, keepalive_expiry=60))
        client = httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(300.0, connect=10.0), trust_env=False)
        async with client:
            yield

    async def forward(request: Request) -> StreamingResponse:
        assert client is not None
        path = request.url.path
        rest = path[3:] if path == "/v1" or path.startswith("/v1/") else path
        url = base + rest + (f"?{request.url.query}" if request.url.query else "")
        headers = [(k, v) for k, v in request.headers.raw if k.lower() not in HOP_BY_HOP]
        upstream_request = client.build_request(request.method, url, headers=headers, content=await request.body())
        response = await client.send(upstream_request, stream=True)
        out = StreamingResponse(
            response.aiter_raw(), status_code=response.status_code, background=BackgroundTask(response.aclose)
        )
        out.raw_headers = [(k.lower(), v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
        return out

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="upstream base URL, e.g. http://127.0.0.1:8000/v1")
    args = parser.parse_args()
    uvicorn.run(
        create_app(args.upstream),
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level="warning",
        server_header=False,  # the upstream's Server and Date headers are relayed; don't add a second pair
        date_header=False,
    )


if __name__ == "__main__":
    main()
