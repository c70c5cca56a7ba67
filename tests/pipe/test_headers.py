from proxy.pipe.headers import relayed_response_headers, upstream_request_headers

CLIENT = [
    (b"Host", b"proxy:8787"),
    (b"Connection", b"keep-alive"),
    (b"Content-Length", b"12"),
    (b"Accept-Encoding", b"gzip, br"),
    (b"Authorization", b"Bearer sk-client"),
    (b"OpenAI-Organization", b"org-1"),
    (b"OpenAI-Project", b"proj-1"),
    (b"X-Stainless-Retry-Count", b"0"),
    (b"X-Memory-User", b"alice"),
    (b"Proxy-Authorization", b"x"),
    (b"TE", b"trailers"),
]


def test_client_headers_reach_the_upstream_less_hop_by_hop_and_our_own() -> None:
    headers = dict(upstream_request_headers(CLIENT, api_key=None))
    assert headers == {
        b"authorization": b"Bearer sk-client",
        b"openai-organization": b"org-1",
        b"openai-project": b"proj-1",
        b"x-stainless-retry-count": b"0",
        b"accept-encoding": b"identity",
    }


def test_a_configured_key_replaces_the_clients() -> None:
    headers = upstream_request_headers(CLIENT, api_key="sk-proxy")
    assert [v for k, v in headers if k == b"authorization"] == [b"Bearer sk-proxy"]


def test_upstream_response_headers_pass_less_framing() -> None:
    upstream = [
        (b"X-Request-Id", b"req_1"),
        (b"Content-Length", b"10"),
        (b"Content-Encoding", b"gzip"),
        (b"Transfer-Encoding", b"chunked"),
        (b"Retry-After", b"3"),
        (b"Set-Cookie", b"a=1"),
        (b"Set-Cookie", b"b=2"),
        (b"Content-Type", b"application/json"),
    ]
    assert relayed_response_headers(upstream) == [
        (b"x-request-id", b"req_1"),
        (b"retry-after", b"3"),
        (b"set-cookie", b"a=1"),
        (b"set-cookie", b"b=2"),
        (b"content-type", b"application/json"),
    ]


def test_headers_that_carried_memproxys_key_never_go_upstream() -> None:
    raw = [(b"X-Memproxy-Key", b"mp-secret"), (b"x-api-key", b"mp-secret"), (b"authorization", b"Bearer sk-1")]
    sent = upstream_request_headers(raw, None, frozenset({b"x-memproxy-key", b"x-api-key"}))
    assert (b"authorization", b"Bearer sk-1") in sent and b"mp-secret" not in str(sent).encode()
