import hashlib

import pytest

from proxy.auth.identity import Authenticator, identify
from proxy.config import load_settings
from proxy.episodes.sessions import derive_session_id
from proxy.errors import InvalidRequest, MissingIdentity
from proxy.memory.caller import Identity


def test_headers_name_user_workspace_and_session() -> None:
    headers = [(b"X-Memory-User", b"ada"), (b"x-memory-workspace", b"repo"), (b"X-Memory-Session", b"s1")]
    assert identify(headers) == Identity("ada", "repo", "s1")


def test_without_a_user_header_the_user_is_a_hash_of_the_key_never_the_key() -> None:
    identity = identify([(b"authorization", b"Bearer sk-live-123456")])
    assert identity is not None and identity.workspace == "default"
    assert identity.user == "key-" + hashlib.sha256(b"sk-live-123456").hexdigest()[:24]
    assert "sk-live" not in identity.user
    assert identify([(b"authorization", b"Bearer sk-other")]) != identity


def test_no_header_and_no_bearer_token_is_no_identity() -> None:
    assert identify([]) is None
    assert identify([(b"authorization", b"Basic dXNlcjpwYXNz")]) is None
    with pytest.raises(MissingIdentity):
        Authenticator(load_settings()).require([])


@pytest.mark.parametrize("value", [b"", b"   ", b"x" * 201, b"a\x01b", b"\xff\xfe"])
def test_a_malformed_identity_header_is_rejected(value: bytes) -> None:
    with pytest.raises(InvalidRequest):
        identify([(b"x-memory-user", value)])


def test_the_admin_key_must_match_exactly() -> None:
    assert identify([(b"x-memory-user", b"a"), (b"x-memory-admin-key", b"k")], admin_key="k").admin  # type: ignore[union-attr]
    assert not identify([(b"x-memory-user", b"a"), (b"x-memory-admin-key", b"k2")], admin_key="k").admin  # type: ignore[union-attr]
    assert not identify([(b"x-memory-user", b"a"), (b"x-memory-admin-key", b"k")]).admin  # type: ignore[union-attr]


def test_a_conversation_is_named_by_its_opening_messages() -> None:
    system = {"role": "system", "content": "Be brief."}
    first = [system, {"role": "user", "content": "hi"}]
    later = [*first, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "more"}]
    other = [system, {"role": "user", "content": "something else"}]
    assert derive_session_id(first) == derive_session_id(later) != derive_session_id(other)


def test_an_x_api_key_credential_identifies_like_a_bearer_token() -> None:
    """Anthropic clients send their key as x-api-key."""
    assert identify([(b"x-api-key", b"sk-ant-1")]) == identify([(b"authorization", b"Bearer sk-ant-1")])


@pytest.mark.parametrize("name", [b"key-0123456789abcdef01234567", b"svc:k-1:ada"])
def test_a_header_may_not_claim_a_name_memproxy_derives(name: bytes) -> None:
    """Sending someone's key-<hash> (it shows in logs and episode files) must not read their memories."""
    with pytest.raises(InvalidRequest):
        identify([(b"x-memory-user", name)])
