"""End to end: tool-output offload and the window (context.offload_chars, context.window_turns), every wire format.

The openai SDK (chat, Responses) and the anthropic SDK -> memproxy on a socket -> the fake upstream. What the fake
received is what went upstream: placeholders instead of earlier turns' large outputs, an overview instead of
old turns; what the client sent is never changed.
"""

import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from proxy.testing import FakeUpstream, ToolCall

from ..conftest import run_proxy
from .memory_client import api, claude, close_clients, sdk, user

__all__ = ["close_clients", "user"]

LOG = "".join(f"2024-05-01 12:{n // 60:02d}:{n % 60:02d} INFO compiled module_{n}.py in 0.{n}s\n" for n in range(800))
REF = re.compile(r"\[MemoryRef: (r-[0-9a-f]{16}) - [^\]]*\] \((\d+) chars; memory_retrieve reads it\)")
SYSTEM = {"role": "system", "content": "You are a build assistant."}


@pytest.fixture(scope="module")
def context_proxy(fake_upstream_server: FakeUpstream) -> Iterator[str]:
    overrides = {"context.offload_chars": 8000, "context.window_turns": 20, "tools.max_hops": 6}
    with run_proxy(fake_upstream_server.base_url, overrides) as url:
        yield url


def read_log_step(call_id: str = "call_log") -> list[dict[str, Any]]:
    call = {"id": call_id, "type": "function", "function": {"name": "read_log", "arguments": '{"job": "build"}'}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": LOG},
    ]


def chat(url: str, who: str, messages: list[dict[str, Any]]) -> tuple[str, dict[str, str]]:
    raw = sdk(url, who).chat.completions.with_raw_response.create(model="fake-model", messages=messages)
    return raw.parse().choices[0].message.content or "", dict(raw.headers)


def upstream_messages(fake: FakeUpstream, request: int = -1) -> list[dict[str, Any]]:
    return list(fake.requests[request].json["messages"])


def test_an_earlier_40kb_tool_output_goes_upstream_as_one_placeholder_the_model_pages_back_whole(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    assert len(LOG) > 40_000
    conversation = [SYSTEM, {"role": "user", "content": "Why did the build fail?"}, *read_log_step()]
    _, headers = chat(context_proxy, user, conversation)
    assert upstream_messages(fake_upstream)[-1]["content"] == LOG  # the newest turn's output reaches the model whole
    assert headers["x-memproxy-context"] == "offloaded=0; windowed=0"

    conversation += [{"role": "assistant", "content": "Reading it."}, {"role": "user", "content": "And now?"}]
    _, headers = chat(context_proxy, user, conversation)
    sent = upstream_messages(fake_upstream)
    placeholder = sent[3]["content"]
    match = REF.fullmatch(placeholder)
    assert match is not None and int(match.group(2)) == len(LOG), placeholder
    assert "read_log" in placeholder and LOG not in orjson.dumps(sent).decode()
    assert headers["x-memproxy-context"] == "offloaded=1; windowed=0"
    assert [m["role"] for m in sent[:3]] == ["system", "user", "assistant"]  # everything else as the client sent it

    # The model pages the detail back: six pages in one turn, then answers.
    ref = match.group(1)
    pages = [ToolCall("memory_retrieve", {"id": ref, "offset": n * 8000, "limit": 8000}) for n in range(6)]
    fake_upstream.reply(content=None, tool_calls=pages)
    fake_upstream.reply(content="module_799 failed.")
    conversation += [{"role": "assistant", "content": "Still here."}, {"role": "user", "content": "Read it all."}]
    answer, _ = chat(context_proxy, user, conversation)
    assert answer == "module_799 failed."
    first, second = upstream_messages(fake_upstream, -2), upstream_messages(fake_upstream, -1)
    assert first[3]["content"] == placeholder  # byte-identical on every later request
    results = [orjson.loads(m["content"]) for m in second if m["role"] == "tool" and m["tool_call_id"] != "call_log"]
    assert all(r["ok"] and r["tool"] == "read_log" for r in results)
    assert "".join(r["text"] for r in results) == LOG
    assert results[-1]["next_offset"] is None and results[0]["total_chars"] == len(LOG)
    # read_log is not on extraction.trusted_tools: a build log is outside content, and its detail says so
    assert results[0]["untrusted"] is True and results[0]["sources"] == ["read_log"]


def test_a_detail_is_the_owners_alone_and_forget_all_removes_it(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    conversation = [{"role": "user", "content": "Read the log."}, *read_log_step(), {"role": "user", "content": "ok"}]
    chat(context_proxy, user, [*conversation[:-1], {"role": "assistant", "content": "done"}, conversation[-1]])
    ref = REF.search(orjson.dumps(upstream_messages(fake_upstream)).decode())
    assert ref is not None
    export = api(context_proxy, user, "GET", "/memory/export")
    assert export.headers["x-memproxy-details"] == "1"

    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_retrieve", {"id": ref.group(1)})])
    fake_upstream.reply(content="no")
    chat(context_proxy, f"{user}-other", [{"role": "user", "content": "read it"}])
    stolen = [orjson.loads(m["content"]) for m in upstream_messages(fake_upstream) if m["role"] == "tool"]
    assert stolen[0]["ok"] is False and LOG[:100] not in str(stolen)

    assert api(context_proxy, user, "POST", "/memory/forget-all", json={"confirm": True}).status_code == 200
    assert api(context_proxy, user, "GET", "/memory/export").headers["x-memproxy-details"] == "0"


def test_an_untrusted_tools_detail_stays_marked_untrusted(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    call = {"id": "call_web", "type": "function", "function": {"name": "web_fetch", "arguments": '{"url": "x"}'}}
    conversation = [
        {"role": "user", "content": "Fetch the page."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_web", "content": LOG},
        {"role": "assistant", "content": "Fetched."},
        {"role": "user", "content": "Summarise."},
    ]
    chat(context_proxy, user, conversation)
    ref = REF.search(orjson.dumps(upstream_messages(fake_upstream)).decode())
    assert ref is not None
    fake_upstream.reply(content=None, tool_calls=[ToolCall("memory_retrieve", {"id": ref.group(1), "limit": 100})])
    fake_upstream.reply(content="ok")
    later = [{"role": "assistant", "content": "..."}, {"role": "user", "content": "?"}]
    chat(context_proxy, user, [*conversation, *later])
    result = orjson.loads(upstream_messages(fake_upstream)[-1]["content"])
    assert result["untrusted"] is True and result["sources"] == ["web_fetch"] and result["text"] == LOG[:100]


def sixty_turns() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [SYSTEM]
    for n in range(60):
        messages.append({"role": "user", "content": f"Step {n}: run the tests of package {n}"})
        if n % 3 == 0:  # every third turn calls a tool
            call = {"id": f"call_{n}", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": f"{n} passed"})
        messages.append({"role": "assistant", "content": f"Package {n} is green."})
    return messages


def test_a_sixty_turn_conversation_reaches_the_upstream_trimmed_with_tool_pairs_intact(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    conversation = [*sixty_turns()[:-1]]  # ends with turn 59's user message
    _, headers = chat(context_proxy, user, conversation)
    sent = upstream_messages(fake_upstream)
    assert headers["x-memproxy-context"] == "offloaded=0; windowed=40"
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert users[0] == "Step 40: run the tests of package 40" and len(users) == 20
    assert sent[0] == SYSTEM  # instructions stay
    overview = sent[1]["content"]
    assert sent[1]["role"] == "system" and overview.count(" user: Step ") == 40 and 'source "history"' in overview
    calls = {c["id"] for m in sent for c in m.get("tool_calls") or ()}
    results = {m["tool_call_id"] for m in sent if m["role"] == "tool"}
    assert calls == results and calls  # no call without its result, no result without its call

    # The next turn drops the same turns: the previous request is a prefix of this one, overview included.
    conversation += [{"role": "assistant", "content": "Green."}, {"role": "user", "content": "Step 60: and now?"}]
    chat(context_proxy, user, conversation)
    again = upstream_messages(fake_upstream)
    assert again[: len(sent)] == sent
    assert len(again) == len(sent) + 2


def test_responses_input_gets_the_placeholder_in_its_function_call_output(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    items = [
        {"role": "user", "content": "Why did the build fail?"},
        {"type": "function_call", "call_id": "call_log", "name": "read_log", "arguments": '{"job": "build"}'},
        {"type": "function_call_output", "call_id": "call_log", "output": LOG},
        {"role": "assistant", "content": "Reading it."},
        {"role": "user", "content": "And now?"},
    ]
    raw = sdk(context_proxy, user).responses.with_raw_response.create(model="fake-model", input=items)
    raw.parse()
    assert raw.headers["x-memproxy-context"] == "offloaded=1; windowed=0"
    sent = fake_upstream.requests[-1].json["input"]
    output = next(item for item in sent if item.get("type") == "function_call_output")
    assert REF.fullmatch(output["output"]) is not None and LOG not in orjson.dumps(sent).decode()


def test_messages_tool_result_gets_the_placeholder_and_the_window_keeps_a_user_turn_first(
    context_proxy: str, fake_upstream: FakeUpstream, user: str
) -> None:
    messages: list[dict[str, Any]] = []
    for n in range(26):
        messages.append({"role": "user", "content": f"Step {n}: read log {n}"})
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"tu_{n}", "name": "read_log", "input": {"n": n}}],
            }
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu_{n}", "content": f"{n}:" + LOG}]}
        )
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Log {n} read."}]})
    messages.append({"role": "user", "content": "What failed?"})
    raw = claude(context_proxy, user).messages.with_raw_response.create(
        model="fake-claude", max_tokens=256, system="Be brief.", messages=messages
    )
    raw.parse()
    assert raw.headers["x-memproxy-context"] == "offloaded=21; windowed=5"  # 27 turns: 5 dropped, 22 kept
    sent = fake_upstream.requests[-1].json
    assert sent["messages"][0] == {"role": "user", "content": "Step 5: read log 5"}
    assert sent["system"][-1]["text"].count(" user: Step ") == 5
    results = [b for m in sent["messages"] for b in m["content"] if isinstance(b, dict) and b["type"] == "tool_result"]
    assert len(results) == 21 and all(REF.fullmatch(b["content"]) for b in results)
    uses = {b["id"] for m in sent["messages"] for b in m["content"] if isinstance(b, dict) and b["type"] == "tool_use"}
    assert uses == {b["tool_use_id"] for b in results}
