"""Connections to `memproxy serve` that never finish a request's headers are closed, before any authentication;
ones that did are served as before, however slowly their body comes. Raw sockets against a real server."""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from proxy.testing import FakeUpstream

from ..conftest import free_port

HEADER_TIMEOUT_S = 1.0
WAIT_S = 60.0  # a safety net: every wait ends on its event


@pytest.fixture(scope="module")
def served(fake_upstream_server: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`memproxy serve` in keys mode (nothing is served without a key) with a one-second header deadline."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    env |= {"MEMPROXY_SERVER_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S), "MEMPROXY_AUTH_MODE": "keys"}
    data = tmp_path_factory.mktemp("serving")
    command = [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--data-dir", str(data)]
    process = subprocess.Popen(
        [*command, "--upstream", fake_upstream_server.base_url],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not healthy(port):
            assert process.poll() is None and time.monotonic() < deadline, "memproxy serve did not come up"
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.communicate(timeout=15)


def healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def closed_by_the_server(sockets: list[socket.socket], keep_sending: bool) -> int:
    """How many of ``sockets`` the server closed (EOF or reset) before ``WAIT_S``; a slow client meanwhile sends one
    more header line every 0.2 s, as a slowloris does."""
    selector = selectors.DefaultSelector()
    for sock in sockets:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed, deadline, next_line = 0, time.monotonic() + WAIT_S, time.monotonic()
    while closed < len(sockets) and time.monotonic() < deadline:
        if keep_sending and time.monotonic() >= next_line:
            for key in list(selector.get_map().values()):
                with contextlib.suppress(OSError):
                    key.fileobj.send(b"X-Slow: 1\r\n")  # type: ignore[union-attr]
            next_line = time.monotonic() + 0.2
        for key, _ in selector.select(timeout=0.2):
            sock = key.fileobj
            try:
                data = sock.recv(65536)  # type: ignore[union-attr]
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(sock)
                closed += 1
    selector.close()
    return closed


@pytest.mark.parametrize("slowloris", [False, True], ids=["silent", "a-header-line-now-and-then"])
def test_a_connection_that_never_finishes_its_headers_is_closed(served: int, slowloris: bool) -> None:
    sockets = [socket.create_connection(("127.0.0.1", served), timeout=10) for _ in range(40)]
    try:
        if slowloris:
            for sock in sockets:
                sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: memproxy\r\n")
        started = time.monotonic()
        assert closed_by_the_server(sockets, keep_sending=slowloris) == len(sockets)
        assert time.monotonic() - started >= HEADER_TIMEOUT_S * 0.9  # by the deadline, not at once
    finally:
        for sock in sockets:
            sock.close()
    assert healthy(served)


def test_a_request_whose_headers_came_in_time_is_served_however_slow_its_body(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served), timeout=WAIT_S) as sock:
        sock.sendall(b"POST /memory/import HTTP/1.1\r\nHost: memproxy\r\nContent-Length: 2\r\n\r\n")
        time.sleep(HEADER_TIMEOUT_S * 2)  # past the header deadline: the body is not bound by it
        sock.sendall(b"{}")
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]  # keys mode: no key, refused as ever


def test_a_kept_alive_connection_gets_a_fresh_deadline_for_each_request(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served), timeout=WAIT_S) as sock:
        for _ in range(3):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: memproxy\r\n\r\n")
            answer = b""
            while not answer.endswith(b'{"status":"ok"}'):
                chunk = sock.recv(65536)
                assert chunk, f"closed mid-way: {answer!r}"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200")
            time.sleep(HEADER_TIMEOUT_S * 0.6)  # together longer than the deadline, each request within it
