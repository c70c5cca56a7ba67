"""``memproxy demo``: a real proxy in front of the built-in fake model, showing memory at work.

Two sessions of one user and a second user, through the ``openai`` SDK: the model stores a memory
with the proxy's ``memory_store`` tool (the proxy runs the call; the client never sees it), the
memory is injected into the next session's request right after the system prompt and recalled by
the model; the other user never gets it. No API key, no network; the data dir is temporary.
"""

from __future__ import annotations

import re
import tempfile
import textwrap
from collections.abc import Callable
from typing import Any

import orjson

from .app import create_app
from .config import load_settings
from .services import build_services
from .testing import Reply, ToolCall, run_fake_upstream
from .testing.runner import serve_in_background

SYSTEM = "You are a concise coding assistant."
_ENTRY = re.compile(r"^- \((m-\d+), (\w+)\) (.+)$", re.MULTILINE)


def fake_model(body: dict[str, Any]) -> Reply:
    """A scripted stand-in for an LLM: it saves what it is asked to remember, and answers from its memories."""
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        stored = orjson.loads(last["content"])
        return Reply(content=f"Noted, I'll remember that ({stored.get('id')}).")
    entries = _ENTRY.findall("\n".join(str(m.get("content")) for m in messages if m.get("role") == "system"))
    question = str(last.get("content", ""))
    offered = {tool["function"]["name"] for tool in body.get("tools") or () if tool.get("type") == "function"}
    if "remember" in question.lower() and "memory_store" in offered:
        fact = {"text": "Ada indents Python with tabs, never spaces", "category": "preference", "source": "explicit"}
        return Reply(content=None, tool_calls=[ToolCall("memory_store", fact)])
    if "indent" in question.lower() and question.rstrip().endswith("?"):
        for memory_id, _, memory in entries:
            if "tab" in memory.lower():
                return Reply(content=f"Tabs: you told me before that you indent Python with tabs ({memory_id}).")
        return Reply(content="I don't know your preference yet; PEP 8 suggests 4 spaces.")
    return Reply(content="Noted.")


def run_demo(echo: Callable[[str], None]) -> None:
    with tempfile.TemporaryDirectory(prefix="memproxy-demo-") as data_dir, run_fake_upstream() as fake:
        fake.respond_with(fake_model)
        settings = load_settings(overrides={"upstream.base_url": fake.base_url, "store.path": data_dir})
        with serve_in_background(create_app(build_services(settings)), name="memproxy") as root:
            _script(root, fake, echo)


def _script(root: str, fake: Any, echo: Callable[[str], None]) -> None:
    from openai import OpenAI

    echo(f"memproxy demo: a real proxy on {root}/v1 in front of a scripted fake model (no key, no network).\n")
    ada = OpenAI(base_url=f"{root}/v1", api_key="sk-demo-ada", default_headers={"X-Memory-User": "ada"})
    bob = OpenAI(base_url=f"{root}/v1", api_key="sk-demo-bob", default_headers={"X-Memory-User": "bob"})

    def turn(client: Any, who: str, messages: list[dict[str, Any]], text: str) -> None:
        messages.append({"role": "user", "content": text})
        echo(f"{who:>5} > {text}")
        seen = len(fake.requests)
        raw = client.chat.completions.with_raw_response.create(model="fake-model", messages=messages)
        answer = raw.parse().choices[0].message.content
        injected = raw.headers.get("x-memproxy-injected")
        if injected:
            echo(f"proxy > injected {injected} (x-memproxy-injected); the model received:")
            for position, message in enumerate(fake.requests[seen].json["messages"]):
                body = textwrap.indent(str(message["content"]), " " * 22).lstrip()
                echo(f"        [{position}] {message['role']:<9} {body}")
        elif who != "ada" or len(messages) > 2:
            echo("proxy > nothing injected")
        for request in fake.requests[seen + 1 :]:  # the proxy's own calls to the model, after running a tool
            call, result = request.json["messages"][-2:]
            function = call["tool_calls"][0]["function"]
            echo(f"proxy > the model called {function['name']}({function['arguments']})")
            echo(f"        the proxy ran it -> {result['content']}, then asked the model again")
        echo(f"model > {answer}\n")
        messages.append({"role": "assistant", "content": answer})

    echo("== Session 1: ada states a preference ==")
    session: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    turn(ada, "ada", session, "I always indent Python with tabs, never spaces. Please remember that.")
    echo("        (ada's client got one ordinary answer: the memory_store call never reached it)\n")

    echo("== Session 2: a new conversation, days later ==")
    turn(ada, "ada", [{"role": "system", "content": SYSTEM}], "What indentation should the new module use?")

    echo("== Another user asks the same ==")
    turn(bob, "bob", [{"role": "system", "content": SYSTEM}], "What indentation should the new module use?")
    echo("bob never sees ada's memories: each user's memories are kept and recalled apart.")
    echo("Try it yourself: `memproxy serve`, then see `memproxy memories --help` and the README and docs/.")
