"""The spec validator accepts OpenAI's real wire objects and rejects the mistakes a proxy could make."""

from pathlib import Path
from typing import Any

import pytest

from .openapi_spec import _fix_schema, spec_path, validate

STREAM = "CreateChatCompletionStreamResponse"
USAGE = {
    "prompt_tokens": 19,
    "completion_tokens": 10,
    "total_tokens": 29,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {
        "reasoning_tokens": 0,
        "audio_tokens": 0,
        "accepted_prediction_tokens": 0,
        "rejected_prediction_tokens": 0,
    },
}


def chunk(delta: dict[str, Any] | None = None, finish_reason: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chunk as OpenAI sends it with stream_options.include_usage (so every choice chunk has usage: null)."""
    body: dict[str, Any] = {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion.chunk",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_eb9dce56a8",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish_reason}],
        "usage": None,
    }
    return body | extra


CANONICAL_CHUNKS = {
    "role": chunk({"role": "assistant", "content": "", "refusal": None}),
    "content": chunk({"content": "Hello"}, obfuscation="k3H"),
    "tool call first fragment": chunk(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_DdmO9pD3xa9XTPNJ32zg2hcA",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ],
            "refusal": None,
        }
    ),
    "arguments fragment": chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"location":"'}}]}),
    "finish": chunk({}, "tool_calls"),
    "usage": chunk(None, choices=[], usage=USAGE),
}


@pytest.mark.parametrize("name", CANONICAL_CHUNKS)
def test_openais_canonical_chunks_validate(name: str) -> None:
    validate(STREAM, CANONICAL_CHUNKS[name])


def test_a_canonical_completion_validates() -> None:
    completion = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "The image shows a wooden boardwalk.",
                    "refusal": None,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": USAGE,
        "service_tier": "default",
        "system_fingerprint": "fp_fc9f1d7035",
    }
    validate("CreateChatCompletionResponse", completion)
    validate("ErrorResponse", {"error": {"message": "m", "type": "invalid_request_error", "param": None, "code": None}})


REJECTED = {
    "tool-call delta without index": chunk({"tool_calls": [{"id": "call_1", "function": {"arguments": "{}"}}]}),
    "usage chunk with choices null": chunk(None, choices=None, usage=USAGE),
    "anthropic finish reason": chunk({}, "end_turn"),
}


@pytest.mark.parametrize("name", REJECTED)
def test_invalid_chunks_are_rejected_with_a_readable_message(name: str) -> None:
    with pytest.raises(AssertionError, match=f"{STREAM} validation failed") as caught:
        validate(STREAM, REJECTED[name])
    assert "at choices" in str(caught.value)


def test_nullable_is_rewritten_for_json_schema_2020_12() -> None:
    assert _fix_schema({"type": "string", "enum": ["a"], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    ref = {"$ref": "#/components/schemas/CompletionUsage", "nullable": True}
    assert _fix_schema(dict(ref)) == {"anyOf": [{"$ref": ref["$ref"]}, {"type": "null"}]}
    assert _fix_schema({"type": "number", "minimum": 0, "exclusiveMinimum": True}) == {
        "type": "number",
        "exclusiveMinimum": 0,
    }


def test_unknown_schema_names_fail_loudly() -> None:
    with pytest.raises(KeyError, match="NoSuchSchema"):
        validate("NoSuchSchema", {})


def test_the_spec_location_can_be_overridden(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert spec_path().parts[-3:] == ("tests", "openai", "schemas.json")  # in the repository: a clone needs no more
    monkeypatch.setenv("OPENAI_OPENAPI_SPEC", str(tmp_path / "spec.yaml"))
    assert spec_path() == tmp_path / "spec.yaml"
