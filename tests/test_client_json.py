import orjson
import pytest

from proxy.client_json import MAX_DEPTH, check_depth, loads
from proxy.errors import InvalidRequest


def nested(depth: int, leaf: bytes = b"1") -> bytes:
    return b"[" * depth + leaf + b"]" * depth


def test_a_body_nested_to_the_limit_is_read() -> None:
    assert loads(nested(MAX_DEPTH)) == orjson.loads(nested(MAX_DEPTH))
    assert loads(b'{"a":' * (MAX_DEPTH - 1) + nested(1) + b"}" * (MAX_DEPTH - 1)) is not None


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 253, 254, 255, 1024, 1025, 5000])
def test_a_body_nested_deeper_is_a_400_that_names_the_limit(depth: int) -> None:
    """orjson reads 1024 levels but writes about 254: past MAX_DEPTH the proxy could not write the body back."""
    with pytest.raises(InvalidRequest, match=f"more than {MAX_DEPTH} levels deep"):
        loads(b'{"messages":[{"content":' + nested(depth) + b"}]}")


def test_what_is_not_json_is_still_named_so() -> None:
    with pytest.raises(InvalidRequest, match="the request body is not valid JSON"):
        loads(b"{nope")


def test_every_body_within_the_limit_can_be_written_back_inside_a_few_more_levels() -> None:
    """The headroom the proxy relies on: its own wrapping (digests, session fingerprints) adds a few levels."""
    value = orjson.loads(nested(MAX_DEPTH))
    check_depth(value, nested(MAX_DEPTH))
    for _ in range(8):
        value = [value]
    orjson.dumps(value)


def test_a_wide_body_with_many_brackets_but_little_depth_is_read() -> None:
    wide = b"[" + b",".join([b'{"a":[1]}'] * 10_000) + b"]"
    assert len(loads(wide)) == 10_000
