"""Does memory keep provider prompt caches hitting? A scripted 10-turn session through a real memproxy.

Providers cache the longest unchanged prefix of a request: the tool definitions, then the messages in
order. For each request of an agent-style session (a coding agent's system prompt and eight tools) this
reports how much of it equals the previous request's beginning, the part a provider can serve from its
cache, for three runs through the same proxy:

- no memory: the ceiling, what a conversation costs anyway as it grows;
- memproxy: the block frozen per session, later memories as notes placed before the newest message;
- the naive alternative: the block recomputed for every request (each request given its own session).

    python bench/prompt_cache.py

Targets: every request starts with the whole previous request (prefix kept: 100%), and memproxy's cached
share is at least 95%, or, where the session itself allows less, no lower than the no-memory ceiling. Needs
no key or network.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import orjson
from openai import OpenAI

from proxy.app import create_app
from proxy.config import load_settings
from proxy.services import build_services
from proxy.testing import Reply, run_fake_upstream
from proxy.testing.runner import serve_in_background

HERE = Path(__file__).resolve().parent
OURS, NAIVE = "memproxy (frozen block + notes)", "naive (block recomputed per request)"
SYSTEM = (
    "You are a senior software engineer pairing with the user inside their repository. You can read and edit "
    "files, run commands and tests, and open pull requests. Work in small, verified steps: explain what you "
    "are about to do in one sentence, do it, then check the result before moving on. Prefer the project's "
    "existing conventions over your own taste; when they are unclear, look at neighbouring code first. Never "
    "invent APIs: read the source or the documentation. Keep answers short and lead with code. When a command "
    "fails, read the whole error before changing anything. Ask before destructive operations (dropping data, "
    "force-pushing, deleting branches). Write tests for every behaviour change and run them. Summarise what "
    "changed at the end of each task, with the files touched and anything left undone."
)
TURNS = [
    "Let's start on the refund export. Which database should I point the script at while I test it?",
    "ok. what port does that one listen on again?",
    "Write the query that pulls last month's refunds by currency.",
    "How do we usually format SQL in this codebase?",
    "Now wrap it in a CLI command. Which Python version are we on?",
    "Add tests for it. Anything I should know about how we write tests?",
    "Run them in CI too. Which CI system runs the billing service?",
    "Who should review this PR?",
    "When is the next release train?",
    "Great, write the PR description.",
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {arg: {"type": "string", "description": f"The {arg.replace('_', ' ')}."} for arg in args},
                "required": list(args[:1]),
            },
        },
    }
    for name, description, args in [
        (
            "read_file",
            "Read a file of the repository, optionally a range of lines.",
            ("path", "start_line", "end_line"),
        ),
        (
            "edit_file",
            "Replace an exact string in a file with another; fails if it is not unique.",
            ("path", "old", "new"),
        ),
        ("create_file", "Create a file with the given content; refuses to overwrite.", ("path", "content")),
        (
            "run_command",
            "Run a shell command in the repository and return its output and exit status.",
            ("command", "cwd"),
        ),
        ("search_code", "Search the repository for a regular expression; returns matching lines.", ("pattern", "glob")),
        ("list_directory", "List a directory of the repository, with sizes.", ("path", "depth")),
        ("run_tests", "Run the test suite or a subset and return the failures.", ("selector", "timeout_s")),
        ("open_pull_request", "Open a pull request from the current branch.", ("title", "body", "base")),
    ]
]
ANSWER = "Done. " + "Here is the change with a short explanation of each step and the commands I ran. " * 4


def run_session(url: str, user: str, fresh_session_each_request: bool) -> list[str]:
    client = OpenAI(base_url=url, api_key="sk-bench", default_headers={"X-Memory-User": user}, max_retries=0)
    seen: list[str] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    with client:
        for n, question in enumerate(TURNS):
            messages.append({"role": "user", "content": question})
            headers = {"X-Memory-Session": f"{user}-{n}"} if fresh_session_each_request else {}
            raw = client.chat.completions.with_raw_response.create(
                model="fake-model", messages=messages, tools=TOOLS, extra_headers=headers
            )
            seen.append(raw.headers.get("x-memproxy-injected", ""))
            messages.append({"role": "assistant", "content": raw.parse().choices[0].message.content})
    return seen


def prefix_shares(requests: list[bytes]) -> list[tuple[float, float]]:
    """Per request after the first: (common prefix / this request, common prefix / previous request)."""
    out = []
    for previous, current in zip(requests, requests[1:], strict=False):
        common = 0
        for a, b in zip(previous, current, strict=False):
            if a != b:
                break
            common += 1
        out.append((common / len(current), common / len(previous)))
    return out


def main() -> int:
    memories = [json.loads(line) for line in (HERE / "retrieval" / "memories.jsonl").read_text().splitlines() if line]
    with tempfile.TemporaryDirectory() as data_dir, run_fake_upstream() as fake:
        fake.respond_with(lambda body: Reply(content=ANSWER))
        settings = load_settings(overrides={"upstream.base_url": fake.base_url, "store.path": data_dir})
        with serve_in_background(create_app(build_services(settings)), name="memproxy") as root:
            for memory in memories:
                fields = {k: memory[k] for k in ("text", "tags", "category", "scope")}
                httpx.post(
                    f"{root}/memory/memories", json=fields, headers={"X-Memory-User": "bench"}
                ).raise_for_status()
            results = {}
            runs = (("no memory (the ceiling)", "nobody", False), (OURS, "bench", False), (NAIVE, "bench", True))
            for label, user, fresh in runs:
                start = len(fake.requests)
                injected = run_session(f"{root}/v1", user, fresh)
                # What the provider tokenises, in its order: the tools, then the messages.
                bodies = [orjson.dumps([r.json["tools"], r.json["messages"]])[:-2] for r in fake.requests[start:]]
                results[label] = (prefix_shares(bodies), injected, bodies)

    for label, (shares, injected, bodies) in results.items():
        print(f"\n{label}")
        print(f"{'turn':>4} {'bytes':>7} {'cached share':>13} {'prev kept':>10}  injected")
        print(f"{1:>4} {len(bodies[0]):>7} {'-':>13} {'-':>10}  {injected[0]}")
        for n, ((of_current, of_previous), ids) in enumerate(zip(shares, injected[1:], strict=True), 2):
            print(f"{n:>4} {len(bodies[n - 1]):>7} {of_current:>13.1%} {of_previous:>10.1%}  {ids}")
        mean = statistics.fmean(share for share, _ in shares)
        print(f"mean share of each request equal to the previous request's prefix: {mean:.1%}")
    ours = statistics.fmean(share for share, _ in results[OURS][0])
    ceiling = statistics.fmean(share for share, _ in results["no memory (the ceiling)"][0])
    kept = min(kept for _, kept in results[OURS][0])
    checks = [
        (kept == 1.0, f"memproxy kept the whole previous request as the prefix of every request: min {kept:.1%}"),
        (
            ours >= min(0.95, ceiling),
            f"memproxy cached share {ours:.1%} (target >= 95%; this session allows {ceiling:.1%} without memory)",
        ),
    ]
    print()
    for ok, text in checks:
        print(f"{'PASS' if ok else 'MISS'}  {text}")
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
