"""``python -m proxy.testing``: the fake upstream in the foreground, as the benchmark runs it in a subprocess so
its CPU is not counted against the proxy's."""

from __future__ import annotations

import argparse

import uvicorn

from .responders import extraction_responder, memory_hop_responder
from .streams import quiet_deliberate_aborts
from .upstream import FakeUpstream

KEEP_ALIVE_S = 75  # nginx's default, and longer than any client here keeps an idle connection


def main(argv: list[str] | None = None) -> None:
    """Runs the fake upstream in the foreground (used by the benchmark)."""
    parser = argparse.ArgumentParser(prog="python -m proxy.testing", description="Fake OpenAI-compatible upstream.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument(
        "--memory-hop",
        action="store_true",
        help="call memory_search once whenever it is offered, then answer (see responders.memory_hop_responder)",
    )
    parser.add_argument(
        "--extraction",
        action="store_true",
        help="answer memproxy's extraction calls with a summary and facts taken from the transcript",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse what strict servers refuse (an assistant turn with tool calls and null content: a 500)",
    )
    args = parser.parse_args(argv)
    fake = FakeUpstream(record_requests=False, strict=args.strict)
    if args.memory_hop:
        fake.respond_with(memory_hop_responder())
    elif args.extraction:
        fake.respond_with(extraction_responder())
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
    )
    quiet_deliberate_aborts()
    uvicorn.Server(config).run()
