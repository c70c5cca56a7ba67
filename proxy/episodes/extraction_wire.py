"""Where a session's extraction call goes, and the call in the wire format of that upstream.

A session is extracted through the upstream its own requests went to, with the credential that upstream accepted,
or with none: a client's Anthropic key never goes to the OpenAI-compatible upstream, nor an OpenAI key to
Anthropic's. ``destination`` names where a session's requests went (as :mod:`proxy.pipeline` sends them); the
request builders and answer readers here are pure, for the Responses API and Anthropic Messages (Chat Completions
calls go through litellm, which speaks that format already).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OPENAI = "openai"  # upstream.base_url: Chat Completions and Responses
ANTHROPIC = "anthropic"  # upstream.anthropic_base_url: Messages
LITELLM = "litellm"  # a model upstream.litellm_models routes through litellm
APIS = ("chat", "responses", "messages")  # the dialect a session's requests spoke
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True, slots=True)
class Credential:
    """A client's upstream credential as the upstream accepted it: the header it came in and its value."""

    value: str
    header: str = "authorization"  # "authorization" (a bearer token) | "x-api-key"

    def headers(self) -> dict[str, str]:
        if self.header == "x-api-key":
            return {"x-api-key": self.value}
        return {"authorization": f"Bearer {self.value}"}


def destination(api: str, model: str | None, litellm_handles: bool) -> str:
    """Where a request of ``api`` for ``model`` went: Messages to Anthropic's upstream, a chat request for a model
    litellm serves to litellm, anything else to the OpenAI-compatible upstream."""
    if api == "messages":
        return ANTHROPIC
    if api == "chat" and litellm_handles:
        return LITELLM
    return OPENAI


@dataclass(frozen=True, slots=True)
class WireCall:
    url: str
    headers: dict[str, str]
    body: dict[str, Any]


def messages_call(
    base_url: str, model: str, messages: list[dict[str, str]], max_tokens: int, credential: Credential | None
) -> WireCall:
    """An Anthropic Messages request: the leading system message becomes ``system``; the prompt asks for JSON, as
    Messages has no JSON mode."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": turns}
    if system:
        body["system"] = system
    headers = {"anthropic-version": ANTHROPIC_VERSION, **(credential.headers() if credential else {})}
    return WireCall(base_url.rstrip("/") + "/messages", headers, body)


def responses_call(
    base_url: str, model: str, messages: list[dict[str, str]], max_tokens: int, credential: Credential | None
) -> WireCall:
    """A Responses API request, stored nowhere upstream (``store: false``), answered as a JSON object."""
    body: dict[str, Any] = {
        "model": model,
        "input": [{"role": m["role"], "content": m["content"]} for m in messages],
        "text": {"format": {"type": "json_object"}},
        "max_output_tokens": max_tokens,
        "store": False,
    }
    return WireCall(base_url.rstrip("/") + "/responses", credential.headers() if credential else {}, body)


@dataclass(frozen=True, slots=True)
class WireAnswer:
    text: str | None
    prompt_tokens: int
    completion_tokens: int


def read_messages_answer(answer: Any) -> WireAnswer:
    content = answer.get("content") if isinstance(answer, dict) else None
    texts = [b.get("text") for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
    usage = answer.get("usage") if isinstance(answer, dict) else None
    return WireAnswer(
        "".join(t for t in texts if isinstance(t, str)) or None,
        _count(usage, "input_tokens"),
        _count(usage, "output_tokens"),
    )


def read_responses_answer(answer: Any) -> WireAnswer:
    output = answer.get("output") if isinstance(answer, dict) else None
    texts = [
        part.get("text")
        for item in output or ()
        if isinstance(item, dict) and item.get("type") == "message"
        for part in item.get("content") or ()
        if isinstance(part, dict) and part.get("type") == "output_text"
    ]
    usage = answer.get("usage") if isinstance(answer, dict) else None
    return WireAnswer(
        "".join(t for t in texts if isinstance(t, str)) or None,
        _count(usage, "input_tokens"),
        _count(usage, "output_tokens"),
    )


def error_message(answer: Any) -> str:
    """The message of an error answer in either shape (OpenAI's or Anthropic's), or ''."""
    error = answer.get("error") if isinstance(answer, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


def _count(usage: Any, name: str) -> int:
    value = usage.get(name) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
