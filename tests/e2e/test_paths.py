"""Pass-through paths against a real proxy holding the server's own upstream key: every way of writing a dot segment
is refused before anything goes upstream, and an ordinary path reaches the upstream as the client wrote it."""

from __future__ import annotations

import posixpath
import socket
from collections.abc import Iterator
from urllib.parse import unquote

import pytest

from proxy.testing import FakeUpstream

from ..conftest import run_proxy
from ..pipe.traversal import ESCAPES, ORDINARY


@pytest.fixture(scope="module")
def keyed_proxy(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_upstream_server.base_url, {"upstream.api_key": "sk-server"}) as url:
        yield url


def send_raw(url: str, method: str, path: str, credential: str = "Authorization: Bearer sk-client\r\n") -> bytes:
    """One request with its target exactly as given (an HTTP client would normalise it first)."""
    host, port = url.removeprefix("http://").removesuffix("/v1").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        request = f"{method} {path} HTTP/1.1\r\nHost: x\r\n{credential}Connection: close\r\n"
        sock.sendall(request.encode("latin-1") + b"Content-Length: 0\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def resolved(path: str) -> str:
    """Where a path lands on the most forgiving server: decoded until it stops changing, backslashes as slashes."""
    for _ in range(5):
        path = unquote(path)
    return posixpath.normpath(path.replace("\\", "/"))


ANTHROPIC = tuple(path.replace("/v1/", "/v1/messages/batches/", 1) for path in ESCAPES if path.startswith("/v1/"))


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_no_encoding_of_a_dot_segment_reaches_the_upstream(
    keyed_proxy: str, fake_upstream: FakeUpstream, method: str
) -> None:
    refused = []
    for path in (*ESCAPES, *ANTHROPIC):
        answer = send_raw(keyed_proxy, method, path)
        if answer.startswith(b"HTTP/1.1 400"):
            refused.append(path)
    landed = [seen.path for seen in fake_upstream.requests]
    assert [path for path in landed if not resolved(path).startswith("/v1/")] == []
    assert landed == []
    assert len(refused) == len(ESCAPES) + len(ANTHROPIC)


def test_an_ordinary_path_reaches_the_upstream_under_its_base_path(
    keyed_proxy: str, fake_upstream: FakeUpstream
) -> None:
    for path in ORDINARY:  # without a credential: nobody's objects to check (tests/e2e/test_tenancy.py does)
        send_raw(keyed_proxy, "GET", path, credential="")  # the fake's answer (a 404 for a model) is not the point
    expected = [unquote("/v1" + path.removeprefix("/v1")) for path in ORDINARY]
    assert [seen.path for seen in fake_upstream.requests] == expected
    assert all(seen.headers["authorization"] == "Bearer sk-server" for seen in fake_upstream.requests)


def test_a_refused_path_on_anthropics_side_is_an_anthropic_error(keyed_proxy: str, fake_upstream: FakeUpstream) -> None:
    answer = send_raw(keyed_proxy, "GET", "/v1/messages/%252e%252e/%252e%252e/admin")
    assert answer.startswith(b"HTTP/1.1 400") and b'"type":"error"' in answer.replace(b" ", b"")
    assert fake_upstream.requests == []
