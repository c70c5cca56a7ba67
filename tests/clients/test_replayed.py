"""Claude Code's and Codex's own requests, recorded from the real CLIs (``fixtures/``, see ``recording.py``), replayed
byte for byte through a real proxy on a socket in front of the fake upstream.

What those clients do that SDK-driven tests never did: Claude Code moves its ``cache_control`` breakpoint to the newest
message every turn (and sends the message it left as a plain string next turn), ends its first request with a
``system`` message, and asks for a session title (structured output, no tools) and a compaction (the whole
conversation plus a prompt) beside the conversation; Codex opens with its AGENTS.md and ``<environment_context>``
as a user item. A conversation of four turns is still one session of four turns, its block byte for byte the same on
every request, its mixed turn's hidden call restored in the follow-up, one extraction, history once per line and
without the clients' own context or side requests in it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from proxy.memory.block import BLOCK_TITLE
from proxy.testing import FakeUpstream, Reply, ToolCall, extraction_reply
from proxy.tools.memory_tools import SCHEMAS

from ..conftest import run_proxy
from ..e2e.episode_client import Model, extraction_calls, fake, fake_server, wait_until
from .recording import Recorded, load

__all__ = ["fake", "fake_server"]  # fixtures, in this module's namespace

MEMORY_TOOLS = set(SCHEMAS)
CLAUDE_CODE = load("claude_code.json")  # title, turn 1, turn 2 (a Bash call), its result, turns 3 and 4, /compact
CODEX = load("codex.json")  # turn 1, turn 2 (an exec_command call), its result, turns 3 and 4
SAID = ["Hi, I'm Ada. I indent Python with tabs.", "Which shell am I in? Check it.", "I work on a Rust compiler."]
SAID.append("Thanks, bye.")
COFFEE = "Ada drinks her coffee black"


@pytest.fixture(scope="module")
def proxy(fake_server: FakeUpstream) -> Iterator[str]:
    with run_proxy(fake_server.base_url) as url:
        yield url.removesuffix("/v1")


def replay(proxy: str, recorded: Recorded, key: str) -> httpx.Response:
    """One recorded request as its client sent it (its own credential replaced by the test's)."""
    url = f"{proxy}{recorded.path}" + (f"?{recorded.query}" if recorded.query else "")
    credential = {"x-api-key": key} if recorded.path == "/v1/messages" else {"authorization": f"Bearer {key}"}
    response = httpx.post(url, content=recorded.body, headers={**recorded.headers, **credential}, timeout=60)
    assert response.status_code == 200, response.text
    return response


def api(proxy: str, key: str, method: str, path: str) -> Any:
    """The management API as the same caller: open mode names the user after a hash of the client's key."""
    response = httpx.request(method, f"{proxy}{path}", headers={"x-api-key": key}, timeout=30)
    assert response.status_code in (200, 201), response.text
    return response


def live_sessions(proxy: str, key: str) -> list[dict[str, Any]]:
    return list(api(proxy, key, "GET", "/memory/sessions?live=true").json()["sessions"])


def history(proxy: str, key: str) -> list[tuple[int, str, str]]:
    lines = map(orjson.loads, api(proxy, key, "GET", "/memory/export").text.splitlines())
    return [(line["turn"], line["role"], line["text"]) for line in lines if line.get("kind") == "history"]


def upstream_got(fake: FakeUpstream) -> list[dict[str, Any]]:
    """What the upstream got, before any session ended (no extraction call yet)."""
    assert not extraction_calls(fake)
    return [r.json for r in fake.requests]


def ended_into_one_episode(proxy: str, key: str, fake: FakeUpstream) -> dict[str, Any]:
    (session,) = live_sessions(proxy, key)
    api(proxy, key, "POST", f"/memory/sessions/{session['id']}/end")
    episodes = wait_until(lambda: _settled(proxy, key), "the episode")
    assert len(extraction_calls(fake)) == 1
    (episode,) = episodes
    return dict(episode)


def _settled(proxy: str, key: str) -> list[dict[str, Any]] | None:
    found = api(proxy, key, "GET", "/memory/episodes").json()
    return found["episodes"] if found["count"] and not found["jobs"] else None


TITLE, *CONVERSATION, COMPACTION = CLAUDE_CODE


def claude_code_answers(fake: FakeUpstream, *, title: bool = False) -> None:
    """What the model answered Claude Code when it was recorded, its mixed turn now calling memory_store too."""
    model = Model(fake, lambda transcript: extraction_reply("Ada set up her shell.", ["Ada indents with tabs"]))
    model.chat.extend([Reply('{"title": "Ada prefers tabs"}')] if title else [])
    model.chat.extend(
        [
            Reply("Nice to meet you, Ada. Tabs it is."),
            Reply(  # a mixed turn: the proxy runs memory_store, Claude Code gets (and runs) Bash
                "Let me check.",
                [
                    ToolCall("memory_store", {"text": "Ada works in bash"}, id="toolu_01mem"),
                    ToolCall("Bash", {"command": "echo $0", "description": "Print the shell"}, id="toolu_01shell"),
                ],
            ),
            Reply("You are in bash."),
            Reply("A compiler in Rust: noted."),
            Reply("Bye, Ada."),
            Reply("<summary>Ada indents Python with tabs, uses bash and works on a Rust compiler.</summary>"),
        ]
    )


def remembered(proxy: str, key: str) -> None:
    created = httpx.post(f"{proxy}/memory/memories", json={"text": COFFEE}, headers={"x-api-key": key}, timeout=30)
    assert created.status_code == 201, created.text


def test_claude_code_four_turns_are_one_session_with_one_block_restored_calls_and_one_episode(
    proxy: str, fake: FakeUpstream
) -> None:
    key = f"sk-ant-{uuid.uuid4().hex}"
    claude_code_answers(fake)
    remembered(proxy, key)

    first, *rest = CONVERSATION
    replay(proxy, first, key)  # ends with a `system` message: still a user turn
    assert [s["turns"] for s in live_sessions(proxy, key)] == [1]
    for recorded in rest:
        replay(proxy, recorded, key)  # the cache breakpoint moves to the newest message every time

    (session,) = live_sessions(proxy, key)
    assert session["turns"] == 4
    conversation = upstream_got(fake)
    assert len(conversation) == len(CONVERSATION)

    # One block, byte for byte, after Claude Code's own `system` on every request, and the same tools: Anthropic's
    # prompt cache hits. (Claude Code's own system prompt names another model after its first request: the session
    # goes on all the same.)
    block = conversation[0]["system"][-1]
    assert block["text"].startswith(BLOCK_TITLE) and COFFEE in block["text"]
    offered = conversation[0]["tools"][len(first.json["tools"]) :]
    assert {tool["name"] for tool in offered} == MEMORY_TOOLS
    for request, recorded in zip(conversation, CONVERSATION, strict=True):
        assert request["system"] == [*recorded.json["system"], block]
        assert request["tools"] == [*recorded.json["tools"], *offered]
    assert conversation[1]["system"] != conversation[0]["system"]  # the model named in it
    assert all(request["system"] == conversation[1]["system"] for request in conversation[1:])

    # The follow-up of the mixed turn carries its hidden call again, before the client's, and its result first.
    follow_up = conversation[2]["messages"]
    assert [block.get("id") for block in follow_up[-2]["content"] if block["type"] == "tool_use"] == [
        "toolu_01mem",
        "toolu_01shell",
    ]
    assert [block["tool_use_id"] for block in follow_up[-1]["content"]] == ["toolu_01mem", "toolu_01shell"]

    # History: each line once, the user's words without Claude Code's reminders.
    said = history(proxy, key)
    assert [(turn, text) for turn, role, text in said if role == "user"] == list(enumerate(SAID, start=1))
    assert len(said) == len(set(said))
    assert not [text for _, _, text in said if "system-reminder" in text]

    episode = ended_into_one_episode(proxy, key, fake)
    assert episode["turns"] == 4


def test_claude_codes_title_and_compaction_go_as_sent_and_stay_out_of_sessions_and_history(
    proxy: str, fake: FakeUpstream
) -> None:
    key = f"sk-ant-{uuid.uuid4().hex}"
    claude_code_answers(fake, title=True)
    remembered(proxy, key)

    for recorded in CLAUDE_CODE:  # the title (structured output) first, /compact last
        replay(proxy, recorded, key)

    (session,) = live_sessions(proxy, key)  # the title and the compaction are no sessions, nor turns
    assert session["turns"] == 4
    got = upstream_got(fake)
    # Byte for byte as Claude Code sent them: no memory tools, no block, no notes.
    assert fake.requests[0].body == TITLE.body and got[0]["tools"] == []
    assert fake.requests[-1].body == COMPACTION.body
    assert not MEMORY_TOOLS & {tool["name"] for tool in got[-1]["tools"]}
    # They took the answers meant for them, the conversation its own.
    assert fake.requests[1].json["system"][-1]["text"].startswith(BLOCK_TITLE)
    said = history(proxy, key)
    assert [text for _, role, text in said if role == "user"] == SAID
    assert not [text for _, _, text in said if "<session>" in text or "CRITICAL" in text or "summary" in text]


def test_codex_four_turns_are_one_session_whose_environment_context_is_no_turn(proxy: str, fake: FakeUpstream) -> None:
    key = f"sk-{uuid.uuid4().hex}"
    model = Model(fake, lambda transcript: extraction_reply("Ada set up her shell.", ["Ada indents with tabs"]))
    model.chat.extend(
        [
            Reply("Nice to meet you, Ada. Tabs it is."),
            Reply(  # a mixed turn: the proxy runs memory_store, Codex gets (and runs) exec_command
                "Let me check.",
                [
                    ToolCall("memory_store", {"text": "Ada works in bash"}, id="call_mem1"),
                    ToolCall("exec_command", {"cmd": "echo $0"}, id="call_shell1"),
                ],
            ),
            Reply("You are in bash."),
            Reply("A compiler in Rust: noted."),
            Reply("Bye, Ada."),
        ]
    )
    remembered(proxy, key)

    for recorded in CODEX:
        replay(proxy, recorded, key)

    (session,) = live_sessions(proxy, key)
    assert session["turns"] == 4  # AGENTS.md and <environment_context> are Codex's, not a turn of Ada's
    got = upstream_got(fake)
    assert len(got) == len(CODEX)
    blocks = [[item for item in request["input"] if BLOCK_TITLE in str(item.get("content"))] for request in got]
    assert all(found == blocks[0] for found in blocks) and len(blocks[0]) == 1 and COFFEE in blocks[0][0]["content"]
    # The block sits after the leading developer items, before Codex's context: the same place every turn.
    assert [item.get("role") for item in got[0]["input"][:4]] == ["developer", "developer", "developer", "user"]

    follow_up = got[2]["input"]
    calls = [item["call_id"] for item in follow_up if item.get("type") == "function_call"]
    outputs = [item["call_id"] for item in follow_up if item.get("type") == "function_call_output"]
    assert calls == ["call_mem1", "call_shell1"] and outputs == ["call_mem1", "call_shell1"]

    said = history(proxy, key)
    assert [(turn, text) for turn, role, text in said if role == "user"] == list(enumerate(SAID, start=1))
    assert len(said) == len(set(said))
    assert not [text for _, _, text in said if "environment_context" in text or "AGENTS.md" in text]

    episode = ended_into_one_episode(proxy, key, fake)
    assert episode["turns"] == 4
