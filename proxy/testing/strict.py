"""What strict OpenAI-compatible servers refuse that OpenAI itself accepts, so a fake in strict mode refuses it too.

``FakeUpstream(strict=True)`` (or ``fake.strict = True``; ``python -m proxy.testing --strict``) answers such a request
the way that server does, so a test catches the proxy sending it. Each check names the server it comes from.
"""

from __future__ import annotations

from typing import Any


def strict_refusal(body: Any) -> str | None:
    """Why a strict server would fail this chat request, or None when it would take it."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for position, message in enumerate(messages if isinstance(messages, list) else ()):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        if message.get("tool_calls") and message.get("content") is None:
            # llama-cpp-python's server renders the chat template with the content as a string: a 500.
            return (
                f"messages[{position}]: an assistant message with tool_calls has no content (null or absent); "
                "llama-cpp-python's server fails on it"
            )
    return None
