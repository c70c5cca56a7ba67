"""``python -m proxy.testing``: the fake upstream in the foreground, scriptable over HTTP (``/_fake/...``, see
`control`), for trying memproxy without a key and for the benchmark, which runs it in a subprocess so its CPU is not
counted against the proxy's."""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from collections.abc import Callable

import uvicorn

from .control import CONTROL_PREFIX
from .responders import Responder, either, extraction_responder, is_extraction, memory_hop_responder
from .streams import quiet_deliberate_aborts
from .upstream import FakeUpstream

KEEP_ALIVE_S = 75  # nginx's default, and longer than any client here keeps an idle connection
KEEP_REQUESTS = 1000  # received requests `GET /_fake/requests` shows: enough to inspect, bounded for a long run
BACKLOG = 2048  # uvicorn's default


def main(argv: list[str] | None = None) -> None:
    """Runs the fake upstream in the foreground until it is stopped."""
    parser = argparse.ArgumentParser(
        prog="python -m proxy.testing",
        description="Fake OpenAI-compatible upstream. Script it over HTTP: POST /_fake/replies (queue replies, "
        "Reply's JSON shape), GET /_fake/requests (what it received), POST /_fake/reset.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100, help="0: a free one (the line it prints names it)")
    parser.add_argument(
        "--memory-hop",
        action="store_true",
        help="when nothing is queued: call memory_search whenever it is offered, then answer with how many "
        "memories it returned (see responders.memory_hop_responder)",
    )
    parser.add_argument(
        "--extraction",
        action="store_true",
        help="when nothing is queued: answer memproxy's extraction calls with a summary and facts taken from the "
        "transcript (with --memory-hop too: both)",
    )
    parser.add_argument(
        "--keep-requests",
        type=int,
        default=KEEP_REQUESTS,
        metavar="N",
        help=f"received requests kept for GET /_fake/requests (default {KEEP_REQUESTS}; 0: none, for load tests)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse what strict servers refuse (an assistant turn with tool calls and null content: a 500)",
    )
    args = parser.parse_args(argv)
    fake = FakeUpstream(
        record_requests=args.keep_requests > 0, keep_requests=max(args.keep_requests, 0), strict=args.strict
    )
    fake.default_responder = _responder(args.memory_hop, args.extraction)
    fake.reset()  # starts the default responder
    try:
        listening = socket.create_server(
            (args.host, args.port),
            family=socket.AF_INET6 if ":" in args.host else socket.AF_INET,
            backlog=BACKLOG,
        )
    except OSError as exc:
        sys.exit(f"python -m proxy.testing: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    host = f"[{args.host}]" if ":" in args.host else args.host
    root = f"http://{host}:{listening.getsockname()[1]}"
    fake.base_url = f"{root}/v1"
    print(  # noqa: T201 -- the one line a person (or a test waiting for it) reads
        f"fake upstream listening on {fake.base_url}; script it at {root}{CONTROL_PREFIX}/replies, "
        f"see what it received at {root}{CONTROL_PREFIX}/requests",
        file=sys.stderr,
        flush=True,
    )
    # Connections stay open longer than any client here pools them (memproxy 30 s, the bench's forwarder 60 s),
    # as at hosted APIs: with uvicorn's 5 s a request could race the server's close on a reused connection.
    config = uvicorn.Config(
        fake.app,
        host=args.host,
        port=args.port,
        access_log=False,
        log_level="warning",
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE_S,
        backlog=BACKLOG,
    )
    quiet_deliberate_aborts()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how one stops it
        uvicorn.Server(config).run(sockets=[listening])


def _responder(memory_hop: bool, extraction: bool) -> Callable[[], Responder] | None:
    """What answers when nothing is queued, as a factory: a reset starts it afresh (its counters too)."""
    if memory_hop and extraction:
        return lambda: either(is_extraction, extraction_responder(), memory_hop_responder())
    if memory_hop:
        return memory_hop_responder
    if extraction:
        return extraction_responder
    return None
