"""What episode extraction costs: upstream tokens per episode, and the proxy's CPU time per extraction.

Builds realistic agent sessions from a seed (``bench/extraction_sessions.py``: a coding agent's system prompt,
3-8 user turns, assistant answers of a few sentences, client tool calls whose outputs are source files, test runs,
logs and ``.env`` files of a few KB, some holding credentials) and then:

1. Tokens: for each session, the exact extraction request memproxy would send
   (``extraction_messages(build_transcript(messages, proxy_tools=...))``), counted with litellm's
   ``token_counter`` for gpt-4o-mini, next to the raw conversation the proxy last saw and to everything the
   session itself sent upstream; plus the completion: a representative answer (a summary and five facts
   written for the session) and the fake upstream's actual answer.
2. CPU: the real ``EpisodeService`` in this process, built by ``build_services`` against the fake upstream
   (``python -m proxy.testing --extraction``) running as a subprocess, so only the proxy's CPU is counted.
   Each session's requests go through ``observe`` and ``confirm``, then ``end`` (transcript + durable job), then
   ``run_due`` runs its job: CPU (``time.process_time``, every thread of this process) and wall time of each.
   The extraction call itself runs in memproxy's extraction process (litellm lives there): its CPU per call is
   read from ``/proc/<pid>/schedstat``. The first (warm-up) job, which starts that process, is reported on its
   own.

    python bench/extraction.py            # 30 sessions
    python bench/extraction.py --quick    # 8 sessions, a few seconds plus litellm's import

The table goes to stdout, everything to bench/results/extraction.json (the fake's output to
bench/results/logs/extraction-upstream.log). Exit status 1 when a job did not finish, a planted credential
reached an extraction request, or the request memproxy sent differs from the one counted here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before anything imports litellm: no network fetch

# bench/extraction_sessions.py: found as the script's directory is first on sys.path (python bench/extraction.py)
from extraction_sessions import MODEL, TOOLS, SessionSpec, build_sessions  # noqa: E402
from results_file import write_results  # noqa: E402

from proxy.config import load_settings  # noqa: E402
from proxy.episodes.extraction import Answer, Extractor  # noqa: E402
from proxy.episodes.sessions import derive_session_id  # noqa: E402
from proxy.episodes.transcript import build_transcript, extraction_messages  # noqa: E402
from proxy.memory.caller import Identity  # noqa: E402
from proxy.memory.records import check_draft  # noqa: E402
from proxy.memory.store import Owner  # noqa: E402
from proxy.pipe.providers import import_litellm  # noqa: E402
from proxy.services import build_services  # noqa: E402
from proxy.tools.memory_tools import NAMES  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
LOG_DIR = RESULTS_DIR / "logs"
RESULTS_FILE = RESULTS_DIR / "extraction.json"
RETRIEVAL = BENCH_DIR / "retrieval"

CLIENT_KEY = "sk-fake"
PROXY_TOOLS = frozenset(NAMES)  # memproxy's own memory tools: the transcript leaves them out

# -- tokens ---------------------------------------------------------------------------------------------------


def count_tokens(sessions: list[SessionSpec], fake_answers: dict[str, str]) -> tuple[list[dict[str, Any]], float]:
    litellm = import_litellm()
    started = time.perf_counter()
    rows = []
    for spec in sessions:
        transcript = build_transcript(spec.last_messages, proxy_tools=PROXY_TOOLS)
        request = extraction_messages(transcript)
        prompt = litellm.token_counter(model=MODEL, messages=request)
        raw = litellm.token_counter(model=MODEL, messages=spec.last_messages)
        # What the session itself sent upstream: every request, tool schemas included.
        session_total = sum(
            litellm.token_counter(model=MODEL, messages=payload["messages"], tools=TOOLS) for payload in spec.requests
        )
        fake = fake_answers.get(spec.id)
        rows.append(
            {
                "session": spec.id,
                "project": spec.project.name,
                "turns": len(spec.turns),
                "requests": len(spec.requests),
                "raw_chars": sum(len(json.dumps(m)) for m in spec.last_messages),
                "transcript_chars": len(transcript),
                "capped": "characters omitted …]" in transcript,
                "raw_tokens": raw,
                "prompt_tokens": prompt,
                "session_prompt_tokens": session_total,
                "completion_tokens_representative": litellm.token_counter(model=MODEL, text=spec.representative),
                "completion_tokens_fake": litellm.token_counter(model=MODEL, text=fake) if fake else None,
                "secrets_planted": len(spec.secrets),
                "secrets_leaked": sum(secret in json.dumps(request) for secret in spec.secrets),
            }
        )
    return rows, time.perf_counter() - started


# -- CPU ------------------------------------------------------------------------------------------------------


@dataclass
class Clock:
    cpu_ms: float = 0.0
    wall_ms: float = 0.0


class StallMeter:
    """The longest callback the event loop ran while this is entered: how long a request arriving then would wait
    before the loop even looked at it. Counts every loop step (``asyncio.Handle._run``) of this process."""

    def __init__(self) -> None:
        self.max_ms = 0.0
        self._original: Any = None

    def __enter__(self) -> StallMeter:
        original = self._original = asyncio.events.Handle._run
        meter = self

        def run(handle: asyncio.Handle) -> None:
            started = time.perf_counter()
            try:
                original(handle)
            finally:
                meter.max_ms = max(meter.max_ms, 1000 * (time.perf_counter() - started))

        asyncio.events.Handle._run = run  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.events.Handle._run = self._original  # type: ignore[method-assign]


def child_cpu_ms(pid: int | None) -> float:
    """CPU time a process has run, from the scheduler's nanosecond count (``/proc/<pid>/stat`` ticks are 10 ms)."""
    if pid is None:
        return 0.0
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


class TimedExtractor:
    """Wraps the service's extractor: CPU and wall time of each extraction call, the extraction process's CPU for
    it, and what it sent and got."""

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.last = Clock()
        self.last_child_ms = 0.0
        self.sent: list[list[dict[str, str]]] = []
        self.answers: list[Answer] = []

    async def extract(
        self, messages: list[dict[str, str]], *, session_model: str | None, client_key: str | None
    ) -> Answer:
        cpu, wall = time.process_time(), time.perf_counter()
        child = child_cpu_ms(getattr(self.inner, "pid", None))  # 0 before the process starts
        try:
            answer = await self.inner.extract(messages, session_model=session_model, client_key=client_key)
        finally:
            self.last = Clock(1000 * (time.process_time() - cpu), 1000 * (time.perf_counter() - wall))
            self.last_child_ms = child_cpu_ms(getattr(self.inner, "pid", None)) - child
        self.sent.append(messages)
        self.answers.append(answer)
        return answer

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class CpuRun:
    warmup_jobs: list[dict[str, Any]]
    jobs: list[dict[str, Any]]
    observe_cpu_us: list[float]
    observe_wall_us: list[float]
    derive_session_id_us: list[float]
    end_cpu_ms: list[float]
    end_wall_ms: list[float]
    transcript_cpu_ms: list[float]
    end_stall_ms: list[float]
    metrics: dict[str, float]
    fake_answers: dict[str, str]
    mismatched_requests: list[str]
    problems: list[str]


async def seed_memories(services: Any, users: list[str], count: int) -> None:
    texts = [json.loads(line)["text"] for line in (RETRIEVAL / "memories.jsonl").read_text().splitlines() if line]
    max_total = services.settings.memory.max_total
    for user in users:
        owner = Owner(user, "default")
        for n in range(count):
            text = texts[n % len(texts)] + ("" if n < len(texts) else f" (variant {n // len(texts)})")
            await services.memory.store.add(owner, check_draft({"text": text}), max_total=max_total)


async def measure_cpu(
    sessions: list[SessionSpec], warmups: list[SessionSpec], upstream_url: str, data_dir: Path, memories: int
) -> CpuRun:
    settings = load_settings(overrides={"upstream.base_url": upstream_url, "store.path": str(data_dir)})
    services = build_services(settings)
    episodes = services.episodes
    timed = TimedExtractor(episodes.extractor)
    episodes.extractor = timed  # the worker is never started: jobs run only when this function runs them
    problems: list[str] = []
    await seed_memories(services, sorted({s.user for s in sessions + warmups}), memories)

    observe_cpu: list[float] = []
    observe_wall: list[float] = []
    derive_us: list[float] = []
    end_cpu: list[float] = []
    end_wall: list[float] = []
    transcript_cpu: list[float] = []
    end_stalls: list[float] = []
    mismatched: list[str] = []
    fake_answers: dict[str, str] = {}

    async def one(spec: SessionSpec, measured: bool) -> dict[str, Any]:
        caller = Identity(spec.user, "default", spec.id)
        for payload in spec.requests:
            cpu_ns, wall_ns = time.process_time_ns(), time.perf_counter_ns()
            episodes.observe(caller, spec.id, payload)
            episodes.confirm(caller, spec.id, payload.get("model"), CLIENT_KEY)  # as the proxy once upstream accepts
            if measured:
                observe_cpu.append((time.process_time_ns() - cpu_ns) / 1000)
                observe_wall.append((time.perf_counter_ns() - wall_ns) / 1000)
                wall_ns = time.perf_counter_ns()
                derive_session_id(payload["messages"])  # what a request without X-Memory-Session pays as well
                derive_us.append((time.perf_counter_ns() - wall_ns) / 1000)
        if measured:
            cpu = time.process_time()
            build_transcript(spec.last_messages, proxy_tools=PROXY_TOOLS)
            transcript_cpu.append(1000 * (time.process_time() - cpu))
        cpu, wall = time.process_time(), time.perf_counter()
        with StallMeter() as end_stall:
            await asyncio.sleep(0)  # a new loop step, under the meter: end() runs its synchronous part in it
            ended = await episodes.end(caller, spec.id)
        if measured:
            end_cpu.append(1000 * (time.process_time() - cpu))
            end_wall.append(1000 * (time.perf_counter() - wall))
            end_stalls.append(end_stall.max_ms)
        if ended.job is None:
            problems.append(f"{spec.id}: ending it queued no job")
        sent_before = len(timed.sent)
        cpu, wall = time.process_time(), time.perf_counter()
        with StallMeter() as stall:
            await asyncio.sleep(0)
            finished = await episodes.run_due()
        job = Clock(1000 * (time.process_time() - cpu), 1000 * (time.perf_counter() - wall))
        if finished != 1:
            problems.append(f"{spec.id}: run_due finished {finished} jobs, expected 1")
        if len(timed.sent) > sent_before:
            expected = extraction_messages(build_transcript(spec.last_messages, proxy_tools=PROXY_TOOLS))
            if timed.sent[-1] != expected:
                mismatched.append(spec.id)
            if timed.answers[-1].text:
                fake_answers[spec.id] = timed.answers[-1].text
        return {
            "session": spec.id,
            "untrusted": bool(ended.job and ended.job.untrusted),
            "cpu_ms": job.cpu_ms,
            "wall_ms": job.wall_ms,
            "extract_cpu_ms": timed.last.cpu_ms,
            "extraction_process_cpu_ms": timed.last_child_ms,
            "extract_wall_ms": timed.last.wall_ms,
            "stall_ms": stall.max_ms,
        }

    try:
        warm = [await one(spec, measured=False) for spec in warmups]
        jobs = [await one(spec, measured=True) for spec in sessions]
    finally:
        await services.__aexit__(None, None, None)  # nothing left to end: every session was ended above
    metrics = {}
    for family in services.metrics.registry.collect():
        if family.name.startswith(("memproxy_extraction", "memproxy_sessions_ended")):
            for sample in family.samples:
                label = ",".join(f"{k}={v}" for k, v in sample.labels.items())
                metrics[f"{sample.name}{{{label}}}"] = sample.value
    return CpuRun(
        warm,
        jobs,
        observe_cpu,
        observe_wall,
        derive_us,
        end_cpu,
        end_wall,
        transcript_cpu,
        end_stalls,
        metrics,
        fake_answers,
        mismatched,
        problems,
    )


# -- the fake upstream ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def fake_upstream() -> Any:
    """``python -m proxy.testing --extraction`` as a subprocess: its CPU is not this process's."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    port = free_port()
    cmd = [sys.executable, "-m", "proxy.testing", "--extraction", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--keep-requests", "0"]  # a long run: the fake's request log would only grow
    with (LOG_DIR / "extraction-upstream.log").open("w") as log:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=BENCH_DIR.parent,
            start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}/v1"
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            deadline = time.monotonic() + 30
            while True:
                if proc.poll() is not None:
                    raise SystemExit(f"the fake upstream exited with status {proc.returncode}; see {log.name}")
                with contextlib.suppress(OSError, urllib.error.URLError), opener.open(f"{url}/models", timeout=2):
                    break
                if time.monotonic() > deadline:
                    raise SystemExit(f"the fake upstream did not start; see {log.name}")
                time.sleep(0.1)
            yield url
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


# -- report ---------------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "mean": statistics.fmean(values),
        "p50": pct(values, 0.5),
        "p95": pct(values, 0.95),
        "max": max(values),
    }


def row(label: str, values: dict[str, float], fmt: str = ",.0f", unit: str = "") -> str:
    if not values.get("n"):
        return f"  {label:<60} {'-':>9}"
    cells = " ".join(f"{values[k]:>9{fmt}}" for k in ("mean", "p50", "p95", "max"))
    return f"  {label:<60} {cells}{unit}"


def report(sessions: list[SessionSpec], tokens: list[dict[str, Any]], cpu: CpuRun) -> dict[str, Any]:
    def col(key: str) -> list[float]:
        return [r[key] for r in tokens if r[key] is not None]

    token_stats = {
        key: stats(col(key))
        for key in (
            "raw_tokens",
            "prompt_tokens",
            "session_prompt_tokens",
            "completion_tokens_representative",
            "completion_tokens_fake",
            "transcript_chars",
            "raw_chars",
        )
    }
    saved = 1 - sum(col("prompt_tokens")) / max(sum(col("raw_tokens")), 1)
    episode_total = [r["prompt_tokens"] + r["completion_tokens_representative"] for r in tokens]
    share = sum(episode_total) / max(sum(col("session_prompt_tokens")), 1)
    turns = [len(s.turns) for s in sessions]
    requests = [len(s.requests) for s in sessions]
    untrusted = [j for j in cpu.jobs if j["untrusted"]]
    trusted = [j for j in cpu.jobs if not j["untrusted"]]
    header = f"  {'':<60} {'mean':>9} {'p50':>9} {'p95':>9} {'max':>9}"

    print(
        f"{len(sessions)} sessions, {min(turns)}-{max(turns)} turns and {min(requests)}-{max(requests)} requests each; "
        f"{sum(bool(s.secrets) for s in sessions)} with credentials in them; {len(untrusted)} untrusted "
        "(called read_file)"
    )
    print()
    print(f"upstream tokens per episode ({MODEL} tokenizer, litellm.token_counter)")
    print(header)
    print(row("raw conversation (messages of the last request)", token_stats["raw_tokens"]))
    print(row("extraction prompt (instructions + transcript)", token_stats["prompt_tokens"]))
    print(row("completion: representative (summary + 5 facts)", token_stats["completion_tokens_representative"]))
    print(row("completion: the fake upstream's answer", token_stats["completion_tokens_fake"]))
    print(row("the session's own requests, all of them (+ tool schemas)", token_stats["session_prompt_tokens"]))
    print(row("chars: raw conversation (JSON)", token_stats["raw_chars"]))
    print(row("chars: transcript", token_stats["transcript_chars"]))
    capped = sum(r["capped"] for r in tokens)
    print(
        f"  stripping and clipping save {saved:.0%} of the raw conversation's tokens; {capped} transcript(s) hit the "
        f"24,000-character cap; an episode (prompt + representative completion) costs {share:.1%} of the tokens "
        "the session itself sent upstream"
    )
    planted = sum(r["secrets_planted"] for r in tokens)
    leaked = sum(r["secrets_leaked"] for r in tokens)
    print(f"  credentials planted: {planted}; found in an extraction request: {leaked}")
    print()

    first = cpu.warmup_jobs[0] if cpu.warmup_jobs else None
    print("proxy time per extraction (in this process; the fake upstream is a subprocess)")
    print(header)
    job_cpu = stats([j["cpu_ms"] for j in cpu.jobs])
    print(row("job cpu ms (call + episode + facts + queue)", job_cpu, ",.2f"))
    print(row("  trusted: facts stored as memories", stats([j["cpu_ms"] for j in trusted]), ",.2f"))
    print(row("  untrusted: episode held, no memories", stats([j["cpu_ms"] for j in untrusted]), ",.2f"))
    print(
        row(
            "  of which the call: a line out and back, cpu ms",
            stats([j["extract_cpu_ms"] for j in cpu.jobs]),
            ",.2f",
        )
    )
    print(
        row("job wall ms (episode writes wait out a 50 ms mtime tick)", stats([j["wall_ms"] for j in cpu.jobs]), ",.1f")
    )
    print(row("  of which the call, wall ms", stats([j["extract_wall_ms"] for j in cpu.jobs]), ",.1f"))
    print(
        row(
            "the extraction process (litellm), cpu ms per call",
            stats([j["extraction_process_cpu_ms"] for j in cpu.jobs]),
            ",.2f",
        )
    )
    print(row("longest event-loop step during a job, ms", stats([j["stall_ms"] for j in cpu.jobs]), ",.2f"))
    print(row("observe()+confirm() per request, cpu us", stats(cpu.observe_cpu_us), ",.1f"))
    print(row("derive_session_id() per request (no X-Memory-Session), us", stats(cpu.derive_session_id_us), ",.1f"))
    print(row("end(): transcript + durable job write, cpu ms", stats(cpu.end_cpu_ms), ",.2f"))
    print(row("end(), wall ms (fsync)", stats(cpu.end_wall_ms), ",.2f"))
    print(row("  of which build_transcript(), cpu ms", stats(cpu.transcript_cpu_ms), ",.2f"))
    print(row("longest event-loop step during end(), ms", stats(cpu.end_stall_ms), ",.2f"))
    if first:
        print(
            f"  one-time: the first job starts the extraction process (litellm's import there, then its first call): "
            f"{first['wall_ms']:,.0f} ms wall, {first['extraction_process_cpu_ms']:,.0f} ms of that process's cpu; "
            f"here {first['cpu_ms']:,.1f} ms cpu, longest event-loop step {first['stall_ms']:,.1f} ms"
        )
    done = cpu.metrics.get("memproxy_extraction_jobs_total{outcome=done}", 0)
    print(
        f"  metrics: {done:.0f} jobs done, prompt/completion tokens as the fake reported them (word counts): "
        f"{cpu.metrics.get('memproxy_extraction_tokens_total{kind=prompt}', 0):.0f}/"
        f"{cpu.metrics.get('memproxy_extraction_tokens_total{kind=completion}', 0):.0f}"
    )
    return {
        "sessions": {
            "count": len(sessions),
            "turns": stats(turns),
            "requests": stats(requests),
            "with_credentials": sum(bool(s.secrets) for s in sessions),
            "untrusted": len(untrusted),
        },
        "tokens": token_stats
        | {
            "saved_fraction": saved,
            "episode_share_of_session": share,
            "capped": capped,
            "credentials_planted": planted,
            "credentials_leaked": leaked,
        },
        "cpu": {
            "warmup_jobs": cpu.warmup_jobs,
            "job_cpu_ms": job_cpu,
            "job_cpu_ms_trusted": stats([j["cpu_ms"] for j in trusted]),
            "job_cpu_ms_untrusted": stats([j["cpu_ms"] for j in untrusted]),
            "job_wall_ms": stats([j["wall_ms"] for j in cpu.jobs]),
            "extract_cpu_ms": stats([j["extract_cpu_ms"] for j in cpu.jobs]),
            "extract_wall_ms": stats([j["extract_wall_ms"] for j in cpu.jobs]),
            "extraction_process_cpu_ms": stats([j["extraction_process_cpu_ms"] for j in cpu.jobs]),
            "observe_cpu_us": stats(cpu.observe_cpu_us),
            "observe_wall_us": stats(cpu.observe_wall_us),
            "derive_session_id_us": stats(cpu.derive_session_id_us),
            "end_cpu_ms": stats(cpu.end_cpu_ms),
            "end_wall_ms": stats(cpu.end_wall_ms),
            "build_transcript_cpu_ms": stats(cpu.transcript_cpu_ms),
            "job_loop_stall_ms": stats([j["stall_ms"] for j in cpu.jobs]),
            "end_loop_stall_ms": stats(cpu.end_stall_ms),
        },
        "metrics": cpu.metrics,
        "per_session": tokens,
        "jobs": cpu.jobs,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, help="sessions measured (default 30; --quick 8)")
    parser.add_argument("--users", type=int, default=3, help="users the sessions belong to (default 3)")
    parser.add_argument("--memories", type=int, help="memories each user holds before (default 300; --quick 100)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the generated sessions (default 7)")
    parser.add_argument("--quick", action="store_true", help="fewer sessions and memories: a smoke run")
    parser.add_argument("--output", type=Path, default=RESULTS_FILE, help=f"JSON results (default {RESULTS_FILE})")
    args = parser.parse_args(argv)
    if args.sessions is None:
        args.sessions = 8 if args.quick else 30
    if args.memories is None:
        args.memories = 100 if args.quick else 300
    if args.sessions < 1 or args.users < 1 or args.memories < 0:
        parser.error("--sessions and --users must be at least 1, --memories at least 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.monotonic()
    sessions = build_sessions(args.seed, args.sessions, args.users)
    warmups = build_sessions(args.seed + 1, 2, args.users, prefix="warmup")
    with tempfile.TemporaryDirectory(prefix="memproxy-extraction-") as scratch, fake_upstream() as url:
        cpu = asyncio.run(measure_cpu(sessions, warmups, url, Path(scratch) / "data", args.memories))
    tokens, counting_s = count_tokens(sessions, cpu.fake_answers)
    print()
    results = report(sessions, tokens, cpu)
    problems = list(cpu.problems)
    if cpu.mismatched_requests:
        problems.append(f"the extraction request differs from the one counted for {cpu.mismatched_requests}")
    if results["tokens"]["credentials_leaked"]:
        problems.append(
            f"{results['tokens']['credentials_leaked']} planted credential(s) reached an extraction request"
        )
    for problem in problems:
        print(f"PROBLEM  {problem}")
    results["meta"] = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.monotonic() - began, 1),
        "token_counting_s": round(counting_s, 1),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "model": MODEL,
    }
    results["problems"] = problems
    results["ok"] = not problems
    write_results(args.output, results)
    print(f"results: {args.output}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
