"""The client side of end-to-end episode tests: a conversation driven through the openai SDK, a scripted fake
model that tells chat calls from extraction calls, polling of the management API, and proxies that can be
restarted on one data directory."""

import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import openai
import pytest

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import (
    FakeUpstream,
    Reply,
    ToolCall,
    extraction_reply,
    is_extraction,
    is_judgement,
    judgement_reply,
    run_fake_upstream,
)
from proxy.testing.responders import chat_view, judged
from proxy.testing.runner import serve_in_background

from .memory_client import api

T = TypeVar("T")

# What docs/memory.md promises of an episode (the API adds `job` and `model`).
EPISODE_FIELDS = {"id", "session_id", "user", "workspace", "turns", "created_at", "summary", "facts", "provenance"}
PROVENANCE_FIELDS = {"untrusted", "sources", "user_approved"}
# A safety net against a hang, not a guess: every wait ends on its event (litellm's import takes 4 s on an idle
# machine, many times that on a loaded one).
WAIT_S = 300.0


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeUpstream]:
    """Each module that imports it has a fake upstream of its own: extraction calls of its proxies (which the
    tests count) never reach another module's."""
    with run_fake_upstream() as fake:
        yield fake


@pytest.fixture
def fake(fake_server: FakeUpstream) -> FakeUpstream:
    fake_server.reset()
    return fake_server


def tool(name: str) -> dict[str, Any]:
    """A client-side tool the SDK offers (the proxy neither runs nor hides it)."""
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


class Model:
    """The fake upstream's model for one test: chat calls take the queued replies, then "ok"; extraction calls
    are answered by ``extract(transcript)``, judgement calls by ``judge(new fact, existing memory)`` (a verdict)."""

    def __init__(
        self,
        fake: FakeUpstream,
        extract: Callable[[str], Reply] | None = None,
        judge: Callable[[str, str], str] | None = None,
    ) -> None:
        self.chat: deque[Reply] = deque()
        self.extract = extract or (lambda transcript: extraction_reply("A session.", []))
        self.judge = judge or (lambda new, existing: "different")
        fake.respond_with(self)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_judgement(body):
            return judgement_reply(self.judge(*judged(body)))
        if is_extraction(body):
            return self.extract(transcript_of(body))
        return self.chat.popleft() if self.chat else Reply("ok")

    def calls(self, *tool_calls: ToolCall, then: str = "ok") -> None:
        """The next chat call answers with these tool calls, the one after with ``then``."""
        self.chat.append(Reply(None, list(tool_calls)))
        self.chat.append(Reply(then))


def transcript_of(body: dict[str, Any]) -> str:
    """The transcript an extraction call carries, whichever format it went in."""
    return str(chat_view(body)[-1]["content"])


def extraction_calls(fake: FakeUpstream) -> list[dict[str, Any]]:
    return [r.json for r in fake.requests if isinstance(r.json, dict) and is_extraction(r.json)]


def chat_calls(fake: FakeUpstream) -> list[dict[str, Any]]:
    return [r.json for r in fake.requests if isinstance(r.json, dict) and not is_extraction(r.json)]


class Chat:
    """One conversation as an agent keeps it: the whole of it resent on every request."""

    def __init__(
        self,
        client: openai.OpenAI,
        *opening: dict[str, Any],
        model: str = "fake-model",
        tools: list[dict[str, Any]] | None = None,
    ) -> None:
        self.client = client
        self.messages: list[dict[str, Any]] = list(opening)
        self.model = model
        self.tools = tools
        self.headers: Any = None

    def say(self, text: str) -> Any:
        self.messages.append({"role": "user", "content": text})
        return self.send()

    def send(self) -> Any:
        create: Any = self.client.chat.completions.with_raw_response.create  # plain dicts, as agents send them
        raw = create(model=self.model, messages=self.messages, **({"tools": self.tools} if self.tools else {}))
        self.headers = raw.headers
        message = raw.parse().choices[0].message
        self.messages.append(message.model_dump(exclude_none=True))
        return message

    def tool_result(self, content: str) -> Any:
        """Answer the model's (first) tool call, as the client runs its own tools."""
        (call, *_) = self.messages[-1]["tool_calls"]
        self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
        return self.send()

    def retry(self) -> Any:
        """The last request again, as a client retries after a timeout."""
        self.messages.pop()
        return self.send()


def wait_until(check: Callable[[], T | None], what: str, timeout: float = WAIT_S) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def get_json(url: str, user: str | None, path: str, **params: Any) -> Any:
    response = api(url, user, "GET", path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def sessions(url: str, user: str) -> list[dict[str, Any]]:
    """The user's live sessions (the list also holds the past ones history knows, without ``live=true``)."""
    return list(get_json(url, user, "/memory/sessions", live="true")["sessions"])


def the_session(url: str, user: str) -> dict[str, Any]:
    (session,) = sessions(url, user)
    return session


def end(url: str, user: str, session_id: str) -> dict[str, Any]:
    response = api(url, user, "POST", f"/memory/sessions/{session_id}/end")
    assert response.status_code == 200, response.text
    return dict(response.json())


def episodes(url: str, user: str) -> dict[str, Any]:
    return dict(get_json(url, user, "/memory/episodes"))


def settled_episodes(url: str, user: str, count: int = 1, timeout: float = WAIT_S) -> list[dict[str, Any]]:
    """The user's episodes once ``count`` are there and no job is left."""

    def ready() -> list[dict[str, Any]] | None:
        found = episodes(url, user)
        return found["episodes"] if found["count"] >= count and not found["jobs"] else None

    return wait_until(ready, f"{count} episode(s) of {user}", timeout)


def memories(url: str, user: str) -> list[dict[str, Any]]:
    return list(get_json(url, user, "/memory/memories", limit=100)["memories"])


@contextmanager
def proxy_on(data_dir: Path, upstream_url: str, overrides: dict[str, Any] | None = None) -> Iterator[str]:
    """A real proxy on ``data_dir`` (which outlives it: start another on it later); leaving it is a graceful
    shutdown. Yields its ``/v1`` base URL."""
    settings = load_settings(
        overrides={"upstream.base_url": upstream_url, "store.path": str(data_dir), **(overrides or {})}
    )
    with serve_in_background(create_app(build_services(settings)), name="memproxy") as root:
        yield f"{root}/v1"
