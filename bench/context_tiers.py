"""What offload and the window save: a scripted 30-step agent session with 20-40 KB tool outputs, through memproxy.

Each step is one user turn of a coding agent: the user asks, the model calls a tool (``run_command`` or
``read_file``), the client sends the tool's output (20-40 KB of build log or source), the model answers. That is
two requests per step, 60 in all, sent through a real memproxy to the fake upstream, in four configurations:

- baseline: neither (what the agent pays anyway, its conversation resent whole every time);
- offload: ``context.offload_chars: 8000``, earlier turns' outputs replaced by ``[MemoryRef: ...]`` placeholders;
- window: ``context.window_turns: 8`` (a step of 2), older turns replaced by an overview;
- offload + window.

For every request it reports the upstream prompt's characters (tools and messages, as the fake received them)
and whether its prefix is stable: whether it starts with the previous request up to that request's newest turn
(a provider caches prefixes; the newest turn's outputs go whole once and are offloaded from the next request
on, so that much of the previous request may change and no more). A request where the window trimmed
(``x-memproxy-context``'s ``windowed`` moved) is counted apart.

    python bench/context_tiers.py

Targets: offload at least halves the prompt from step 10 on, and every request's prefix is stable except at a
window trim. Results go to ``bench/results/context_tiers.json``. Needs no key or network.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from proxy.testing import Reply, ToolCall, run_fake_upstream
from proxy.testing.runner import run_memproxy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import write_results  # noqa: E402

HERE = Path(__file__).resolve().parent
STEPS = 30
OFFLOAD_CHARS = 8000
WINDOW_TURNS = 8
SYSTEM = (
    "You are a coding agent working in the user's repository. Run commands and read files to answer; keep "
    "answers short and cite the lines you relied on."
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]},
        },
    }
    for name, description, arg in (
        ("run_command", "Run a shell command and return its output.", "command"),
        ("read_file", "Read a file of the repository.", "path"),
    )
]
CONFIGS: dict[str, dict[str, Any]] = {
    "baseline": {},
    "offload": {"context.offload_chars": OFFLOAD_CHARS},
    "window": {"context.window_turns": WINDOW_TURNS},
    "offload + window": {"context.offload_chars": OFFLOAD_CHARS, "context.window_turns": WINDOW_TURNS},
}
WORDS = [
    "error",
    "warning",
    "info",
    "debug",
    "compiled",
    "linked",
    "module",
    "test",
    "passed",
    "failed",
    "retry",
    "cache",
    "hit",
    "miss",
    "import",
]


def tool_output(step: int) -> str:
    """20-40 KB of log-like text, the same for a step in every run."""
    rng = random.Random(step)
    size = rng.randint(20_000, 40_000)
    lines, total = [], 0
    while total < size:
        line = f"[{step:02d}:{len(lines):05d}] " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def model(body: dict[str, Any]) -> Reply:
    """The scripted model: a tool call after the user's question, an answer after the tool's output."""
    last = body["messages"][-1]
    if last["role"] == "user":
        step = int(last["content"].split()[1].rstrip(":"))
        name, args = (
            ("run_command", {"command": f"make test-{step}"})
            if step % 2
            else ("read_file", {"path": f"src/m{step}.py"})
        )
        return Reply(content=None, tool_calls=[ToolCall(name, args, id=f"call_{step}")])
    return Reply(content="Read it: the failure is on line 12 of the output; the fix is a missing import.")


def cached_text(body: dict[str, Any], upto: int | None = None) -> bytes:
    """What a provider caches, in order (tools, then messages), as bytes whose prefix grows with the conversation."""
    messages = body["messages"] if upto is None else body["messages"][:upto]
    return orjson.dumps([body.get("tools"), messages])[:-2]


def newest_turn(messages: list[dict[str, Any]]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "assistant":
            return index + 1
    return 0


def common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    low, high = 0, n  # binary search on equal prefixes: the bodies are hundreds of KB
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def run_session(url: str, fake_requests: list[Any]) -> list[dict[str, Any]]:
    """The 30 steps through one proxy; per request what went upstream and what the proxy said it did."""
    rows: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    headers = {"X-Memory-User": "bench-context", "Authorization": "Bearer sk-bench"}
    with httpx.Client(base_url=url, headers=headers, timeout=60, trust_env=False) as client:

        def send() -> dict[str, Any]:
            seen = len(fake_requests)
            started = time.perf_counter()
            response = client.post(
                "/chat/completions", json={"model": "fake-model", "messages": messages, "tools": TOOLS}
            )
            elapsed = time.perf_counter() - started
            response.raise_for_status()
            upstream = fake_requests[seen].json
            context = response.headers.get("x-memproxy-context", "offloaded=0; windowed=0")
            fields = dict(part.strip().split("=") for part in context.split(";"))
            rows.append(
                {
                    "body": upstream,
                    "chars": len(cached_text(upstream)),
                    "offloaded": int(fields["offloaded"]),
                    "windowed": int(fields["windowed"]),
                    "seconds": elapsed,
                }
            )
            return dict(response.json()["choices"][0]["message"])

        for step in range(1, STEPS + 1):
            messages.append({"role": "user", "content": f"Step {step}: what does the output say?"})
            call = send()
            messages.append({"role": "assistant", "content": None, "tool_calls": call["tool_calls"]})
            messages.append({"role": "tool", "tool_call_id": call["tool_calls"][0]["id"], "content": tool_output(step)})
            answer = send()
            messages.append({"role": "assistant", "content": answer["content"]})
    return rows


def stability(rows: list[dict[str, Any]]) -> None:
    """Marks each request: its prefix equal to the previous request's up to that one's newest turn, or a trim."""
    for previous, row in zip(rows, rows[1:], strict=False):
        before = previous["body"]
        must_keep = len(cached_text(before, newest_turn(before["messages"])))
        common = common_prefix(cached_text(before), cached_text(row["body"]))
        row["prefix_kept"] = common / len(cached_text(before))
        row["stable"] = common >= must_keep
        row["trim"] = row["windowed"] != previous["windowed"]
    rows[0].update(prefix_kept=None, stable=True, trim=False)


def main() -> int:
    runs: dict[str, list[dict[str, Any]]] = {}
    with run_fake_upstream() as fake:
        fake.respond_with(model)
        for label, overrides in CONFIGS.items():
            with run_memproxy(fake.base_url, overrides) as url:
                fake.requests.clear()
                runs[label] = run_session(url, fake.requests)
                stability(runs[label])

    base = runs["baseline"]
    print(f"{'req':>3} {'step':>4} " + " ".join(f"{label:>22}" for label in CONFIGS))
    for n in range(len(base)):
        cells = []
        for label in CONFIGS:
            row = runs[label][n]
            mark = "T" if row["trim"] else ("" if row["stable"] else "!")
            cells.append(f"{row['chars']:>12,} {row['chars'] / base[n]['chars']:>6.1%}{mark:>2}")
        print(f"{n + 1:>3} {n // 2 + 1:>4} " + " ".join(f"{cell:>22}" for cell in cells))
    print("chars: upstream prompt characters (tools + messages); %: of baseline; T: a window trim; !: prefix broken")

    late = [n for n in range(len(base)) if n // 2 + 1 >= 10]
    summary: dict[str, Any] = {}
    for label, rows in runs.items():
        ratios = [rows[n]["chars"] / base[n]["chars"] for n in late]
        summary[label] = {
            "total_chars": sum(row["chars"] for row in rows),
            "max_share_of_baseline_from_step_10": max(ratios),
            "mean_share_of_baseline_from_step_10": statistics.fmean(ratios),
            "trims": sum(row["trim"] for row in rows),
            "unstable_prefixes_outside_trims": sum(not row["stable"] and not row["trim"] for row in rows),
            "median_request_ms": statistics.median(row["seconds"] for row in rows) * 1000,
        }
    print()
    for label, s in summary.items():
        most, mean = s["max_share_of_baseline_from_step_10"], s["mean_share_of_baseline_from_step_10"]
        print(
            f"{label:<17} total {s['total_chars']:>11,} chars; from step 10: at most {most:.1%} of baseline"
            f" (mean {mean:.1%}); trims {s['trims']}; prefixes broken outside trims"
            f" {s['unstable_prefixes_outside_trims']}; median request {s['median_request_ms']:.1f} ms"
        )

    checks = [
        (
            summary["offload"]["max_share_of_baseline_from_step_10"] <= 0.5,
            "offload at least halves the prompt on every request from step 10 on: at most "
            f"{summary['offload']['max_share_of_baseline_from_step_10']:.1%} of baseline",
        )
    ]
    for label, s in summary.items():
        checks.append(
            (
                s["unstable_prefixes_outside_trims"] == 0,
                f"{label}: every request's prefix equals the previous request's (up to its newest turn) except at "
                f"a window trim ({s['trims']} trims)",
            )
        )
    print()
    for ok, text in checks:
        print(f"{'PASS' if ok else 'MISS'}  {text}")
    per_request = {
        label: [
            {k: row[k] for k in ("chars", "offloaded", "windowed", "prefix_kept", "stable", "trim")} for row in rows
        ]
        for label, rows in runs.items()
    }
    write_results(
        HERE / "results" / "context_tiers.json",
        {
            "steps": STEPS,
            "offload_chars": OFFLOAD_CHARS,
            "window_turns": WINDOW_TURNS,
            "summary": summary,
            "checks": [{"ok": ok, "check": text} for ok, text in checks],
            "requests": per_request,
        },
    )
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
