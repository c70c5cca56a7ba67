"""Realistic coding-agent sessions for ``bench/extraction.py``, built deterministically from a seed.

Each session is what an agent client would send through memproxy: a coding agent's system prompt, 3-8 user turns,
assistant answers of a few sentences, and client tool calls whose outputs are source files, test runs, logs,
``.env`` files and git output of a few KB. About a third of the sessions have credentials planted in them (a
``.env`` file, a connection string in a log, a token the user pastes), so the benchmark can check that none reach
an extraction request. The same seed always gives the same sessions, so runs compare.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

MODEL = "gpt-4o-mini"  # the sessions' model: the extraction call goes to the same model (extraction.model: null)

SYSTEM_PROMPT = """\
You are Forge, an autonomous coding agent working inside the user's repository. You help with software \
engineering tasks: fixing bugs, adding features, refactoring, explaining code, running tests and deploying.

# Working style
- Be concise and direct. Answer in a few sentences unless the user asks for detail; no preamble, no summary \
of what you are about to do.
- Before editing a file, read it. Never guess at a file's contents, a function's signature or a library's API: \
look it up in the code.
- Follow the conventions of the surrounding code: naming, formatting, typing, error handling, imports. Do not \
add dependencies without asking.
- After a change, run the relevant tests and the linter. If something fails, fix it before you report back.
- Never commit, push or deploy unless the user asks you to. Never rewrite published history.
- Treat secrets with care: never print the contents of credential files back to the user, never paste tokens \
into commit messages, issues or logs.

# Tools
- bash: run a shell command in the repository root. Output is truncated at 30,000 characters. Long-running \
commands time out after 120 seconds.
- read_file: read a file (optionally a line range). Prefer it to `cat`.
- grep: search the repository with ripgrep syntax.
- apply_patch: apply a unified diff. Keep patches minimal and focused.

# Environment
Working directory: /home/dev/src/{project}
Platform: linux, shell: bash. Today's date: 2026-03-{day:02d}.
Git repository: yes. Default branch: main."""

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }
    for name, description, properties in (
        ("bash", "Run a shell command in the repository root.", {"command": {"type": "string"}}),
        ("read_file", "Read a file of the repository.", {"path": {"type": "string"}}),
        (
            "grep",
            "Search the repository (ripgrep syntax).",
            {"pattern": {"type": "string"}, "path": {"type": "string"}},
        ),
        ("apply_patch", "Apply a unified diff to the repository.", {"patch": {"type": "string"}}),
    )
]


@dataclass(frozen=True)
class Project:
    name: str
    language: str  # python | go | typescript
    stack: str
    files: tuple[str, ...]
    test_cmd: str
    deploy: str
    dependency: str


PROJECTS = (
    Project(
        "billing-api",
        "python",
        "Python 3.12, FastAPI and PostgreSQL 16",
        ("app/invoices.py", "app/payments.py", "app/models.py", "app/tax.py"),
        "pytest -x -q",
        "Docker images on ECS Fargate",
        "sqlalchemy",
    ),
    Project(
        "ingest-worker",
        "go",
        "Go 1.22, Kafka and ClickHouse",
        ("internal/consumer/consumer.go", "internal/batch/writer.go", "cmd/worker/main.go", "internal/schema/event.go"),
        "go test ./...",
        "Helm charts on a GKE cluster",
        "segmentio/kafka-go",
    ),
    Project(
        "ops-dashboard",
        "typescript",
        "TypeScript, React 18, Vite and pnpm",
        ("src/components/LatencyChart.tsx", "src/api/client.ts", "src/hooks/useMetrics.ts", "src/pages/Alerts.tsx"),
        "pnpm test --run",
        "static files on Cloudflare Pages",
        "recharts",
    ),
    Project(
        "ml-features",
        "python",
        "Python 3.11, Polars and DuckDB",
        ("features/sessions.py", "features/windows.py", "pipeline/run.py", "features/encoders.py"),
        "pytest -q tests/",
        "a nightly Airflow DAG",
        "polars",
    ),
    Project(
        "auth-gateway",
        "go",
        "Go 1.21, chi and Redis",
        ("internal/tokens/jwt.go", "internal/middleware/ratelimit.go", "internal/session/store.go", "main.go"),
        "go test -race ./...",
        "systemd units on two Hetzner VMs",
        "go-redis/redis",
    ),
)

NOUNS = (
    "invoice",
    "payment",
    "customer",
    "batch",
    "event",
    "window",
    "token",
    "session",
    "metric",
    "alert",
    "record",
    "schema",
    "offset",
    "tenant",
    "currency",
    "discount",
    "refund",
    "partition",
    "feature",
    "chart",
)
VERBS = (
    "load",
    "build",
    "apply",
    "merge",
    "flush",
    "validate",
    "compute",
    "parse",
    "render",
    "resolve",
    "refresh",
    "encode",
    "normalize",
    "schedule",
    "retry",
    "split",
    "collect",
    "format",
)
CAUSES = (
    "a float comparison that breaks once amounts are rounded to the cent",
    "a timezone-naive datetime compared with an aware one",
    "the batch size being read before the config is loaded, so it stays at zero",
    "a map iterated in random order where the test expects insertion order",
    "a retry loop that never resets its backoff after a success",
    "an off-by-one in the window boundary: the end is exclusive in the query but inclusive in the code",
    "a nil pointer when the upstream returns an empty page",
    "the new version of {dependency} returning a generator instead of a list",
    "a stale cache key that does not include the tenant id",
)
PREFERENCES = (
    "By the way, I always want type hints and short docstrings on anything public.",
    "For the record: we squash-merge everything, so commit messages can be short.",
    "Please keep answers short, I'll ask if I need more detail.",
    "Note that we never use ORMs for reporting queries here, only plain SQL.",
    "I prefer table-driven tests, that's the house style.",
    "We deploy from main every afternoon, so keep changes small.",
    "Our staging database is a nightly copy of production, so don't write to it from tests.",
    "I'm on call this week, so anything touching alerts needs to be extra careful.",
)


def _secret(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def make_secrets(rng: random.Random) -> dict[str, str]:
    """Credentials of the shapes agents meet in .env files, logs and git remotes."""
    return {
        "openai": "sk-proj-" + _secret(rng, ALNUM, 48),
        "github": "ghp_" + _secret(rng, ALNUM, 36),
        "aws_id": "AKIA" + _secret(rng, UPPER_DIGITS, 16),
        "aws_secret": _secret(rng, ALNUM + "+/", 40),
        "stripe": "sk_live_" + _secret(rng, ALNUM, 24),
        "db_password": _secret(rng, ALNUM, 6) + "9" + _secret(rng, ALNUM, 9),
    }


def _code(rng: random.Random, project: Project, path: str) -> str:
    """A source file of a few KB in the project's language."""
    lines: list[str] = []
    lang = project.language
    if lang == "python":
        lines += [
            f'"""{path}: {rng.choice(NOUNS)} handling for {project.name}."""',
            "",
            "from __future__ import annotations",
            "",
            "import logging",
            "from dataclasses import dataclass",
            "from decimal import Decimal",
            "",
            "log = logging.getLogger(__name__)",
            "",
        ]
    elif lang == "go":
        lines += [
            f"// Package {path.split('/')[-2] if '/' in path else 'main'} handles {rng.choice(NOUNS)}s.",
            f"package {path.split('/')[-2] if '/' in path else 'main'}",
            "",
            "import (",
            '\t"context"',
            '\t"errors"',
            '\t"fmt"',
            '\t"time"',
            ")",
            "",
        ]
    else:
        lines += [
            f"// {path}",
            "import { useEffect, useMemo, useState } from 'react';",
            "import type { Series, Point } from '../types';",
            "",
        ]
    for _ in range(rng.randint(6, 11)):
        noun, verb, other = rng.choice(NOUNS), rng.choice(VERBS), rng.choice(NOUNS)
        body = rng.randint(4, 10)
        if lang == "python":
            lines += [
                f"def {verb}_{noun}({noun}: {noun.title()}, {other}s: list[{other.title()}]) -> Decimal:",
                f'    """{verb.title()} the {noun} against its {other}s."""',
                "    total = Decimal(0)",
            ]
            for k in range(body):
                lines += rng.choice(
                    (
                        [f"    for item in {other}s:", f"        total += item.amount * Decimal({k + 1})"],
                        [f"    if {noun}.{other}_id is None:", f'        raise ValueError("{noun} has no {other}")'],
                        [f'    log.debug("{verb} %s: %d {other}s", {noun}.id, len({other}s))'],
                        [f"    total = total.quantize(Decimal('0.01')) if {noun}.currency != 'JPY' else total"],
                    )
                )
            lines += ["    return total", "", ""]
        elif lang == "go":
            lines += [
                f"// {verb.title()}{noun.title()} {verb}s a {noun} against its {other}s.",
                f"func {verb.title()}{noun.title()}(ctx context.Context, {noun} *{noun.title()}, "
                f"{other}s []{other.title()}) (int64, error) {{",
                "\tvar total int64",
            ]
            for k in range(body):
                lines += rng.choice(
                    (
                        [f"\tfor _, it := range {other}s {{", f"\t\ttotal += it.Amount * {k + 1}", "\t}"],
                        [f"\tif {noun} == nil {{", f'\t\treturn 0, errors.New("{noun} is nil")', "\t}"],
                        ["\tif err := ctx.Err(); err != nil {", f'\t\treturn 0, fmt.Errorf("{verb}: %w", err)', "\t}"],
                        [f"\tdeadline := time.Now().Add({k + 2} * time.Second)", "\t_ = deadline"],
                    )
                )
            lines += ["\treturn total, nil", "}", ""]
        else:
            lines += [
                f"export function {verb}{noun.title()}({noun}: {noun.title()}, {other}s: {other.title()}[]): number {{",
                "  let total = 0;",
            ]
            for k in range(body):
                lines += rng.choice(
                    (
                        [f"  for (const item of {other}s) {{", f"    total += item.value * {k + 1};", "  }"],
                        [f"  if (!{noun}) {{", f"    throw new Error('{noun} is missing');", "  }"],
                        [f"  const {other}Count = {other}s.filter((x) => x.enabled).length;"],
                        [f"  console.debug('{verb}', {noun}.id, {other}s.length);"],
                    )
                )
            lines += ["  return total;", "}", ""]
    return "\n".join(lines)


def _test_run(rng: random.Random, project: Project, failing: bool) -> str:
    """A test runner's output of a few KB: passes, and a failure with its traceback when ``failing``."""
    n_files = rng.randint(8, 16)
    out = [f"$ {project.test_cmd}"]
    if project.language == "go":
        for i in range(n_files):
            pkg = f"github.com/acme/{project.name}/internal/{rng.choice(NOUNS)}{i}"
            out.append(f"ok  \t{pkg}\t{rng.uniform(0.01, 2.5):.3f}s")
        if failing:
            noun = rng.choice(NOUNS)
            out += [
                f"--- FAIL: Test{rng.choice(VERBS).title()}{noun.title()} (0.00s)",
                f"    {noun}_test.go:{rng.randint(20, 300)}: got {rng.randint(1, 99)}, want {rng.randint(100, 999)}",
                f"    {noun}_test.go:{rng.randint(20, 300)}: unexpected error: context deadline exceeded",
                "FAIL",
                f"FAIL\tgithub.com/acme/{project.name}/internal/{noun}\t0.{rng.randint(100, 999)}s",
                "FAIL",
            ]
        return "\n".join(out)
    total = 0
    for _ in range(n_files):
        name = f"tests/test_{rng.choice(NOUNS)}_{rng.choice(VERBS)}.py"
        count = rng.randint(4, 30)
        total += count
        out.append(f"{name} " + "." * count + " " * 4 + f"[{min(100, total)}%]")
    if failing:
        noun, verb = rng.choice(NOUNS), rng.choice(VERBS)
        out += [
            "",
            "=" * 30 + " FAILURES " + "=" * 30,
            f"_____ test_{verb}_{noun}_rounding _____",
            "",
            f"    def test_{verb}_{noun}_rounding():",
            f"        {noun} = make_{noun}(amount=Decimal('10.005'))",
            f">       assert {verb}_{noun}({noun}, []) == Decimal('10.01')",
            "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')",
            f"E        +  where Decimal('10.00') = {verb}_{noun}(<{noun.title()} id=42>, [])",
            "",
            f"tests/test_{noun}.py:{rng.randint(10, 200)}: AssertionError",
        ]
        for i in range(rng.randint(6, 14)):
            out.append(
                f"  /usr/lib/python3.12/site-packages/{project.dependency}/core/{rng.choice(NOUNS)}.py:{i * 37 + 11}:"
                f" in {rng.choice(VERBS)}_{rng.choice(NOUNS)}"
            )
        out.append(f"FAILED tests/test_{noun}.py::test_{verb}_{noun}_rounding - AssertionError")
        out.append(f"1 failed, {total - 1} passed in {rng.uniform(2, 40):.2f}s")
    else:
        out.append(f"{total} passed in {rng.uniform(2, 40):.2f}s")
    return "\n".join(out)


def _logs(rng: random.Random, project: Project, secrets: dict[str, str] | None) -> str:
    """A service's log tail; with ``secrets``, a startup line leaks a connection string."""
    out = []
    for i in range(rng.randint(30, 60)):
        level = rng.choices(("INFO", "WARN", "ERROR", "DEBUG"), (70, 12, 6, 12))[0]
        noun, verb = rng.choice(NOUNS), rng.choice(VERBS)
        day, hour, minute = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
        ts = f"2026-03-{day:02d}T{hour:02d}:{minute:02d}:{i % 60:02d}.{rng.randint(0, 999):03d}Z"
        msg = rng.choice(
            (
                f"{verb} {noun} id={rng.randint(1000, 99999)} took {rng.randint(1, 900)}ms",
                f"retrying {noun} {verb} after error: connection reset by peer (attempt {rng.randint(1, 5)})",
                f"{noun} queue depth {rng.randint(0, 5000)}, lag {rng.randint(0, 120)}s",
                f"request POST /v1/{noun}s status={rng.choice((200, 201, 400, 409, 500, 503))} "
                f"dur={rng.randint(2, 400)}ms",
            )
        )
        out.append(f"{ts} {level:<5} {project.name} {msg}")
        if secrets is not None and i == 3:
            out.append(
                f"{ts} INFO  {project.name} connecting to postgres://app:{secrets['db_password']}"
                f"@db.internal:5432/{project.name.replace('-', '_')}"
            )
    return "\n".join(out)


def _env_file(project: Project, secrets: dict[str, str]) -> str:
    return "\n".join(
        (
            f"# {project.name} local settings - do not commit",
            "APP_ENV=development",
            "LOG_LEVEL=debug",
            f"DATABASE_URL=postgres://app:{secrets['db_password']}@localhost:5432/{project.name.replace('-', '_')}",
            f"OPENAI_API_KEY={secrets['openai']}",
            f"STRIPE_API_KEY={secrets['stripe']}",
            f"AWS_ACCESS_KEY_ID={secrets['aws_id']}",
            f"AWS_SECRET_ACCESS_KEY={secrets['aws_secret']}",
            "AWS_REGION=eu-west-1",
            f"GITHUB_TOKEN={secrets['github']}",
            "FEATURE_FLAGS=new_checkout,fast_ingest",
        )
    )


def _git_log(rng: random.Random) -> str:
    return "\n".join(
        f"{rng.getrandbits(28):07x} {rng.choice(VERBS).title()} {rng.choice(NOUNS)} {rng.choice(NOUNS)}s "
        f"({rng.choice(('fix', 'feat', 'chore', 'refactor'))}) #{rng.randint(100, 999)}"
        for _ in range(rng.randint(15, 25))
    )


@dataclass
class Action:
    tool: str
    arguments: dict[str, Any]
    output: str


@dataclass
class Turn:
    user: str
    rounds: list[list[Action]]  # each round: the tool calls of one assistant message
    answer: str


@dataclass
class SessionSpec:
    id: str
    user: str
    project: Project
    turns: list[Turn]
    secrets: list[str]  # credentials planted in it: none may reach the extraction request
    requests: list[dict[str, Any]] = field(default_factory=list)  # the chat payloads the client sends, in order
    representative: str = ""  # a realistic extraction answer: a summary and five facts

    @property
    def last_messages(self) -> list[dict[str, Any]]:
        return self.requests[-1]["messages"]


def build_session(rng: random.Random, n: int, user: str) -> SessionSpec:
    project = rng.choice(PROJECTS)
    leaky = rng.random() < 0.35
    secrets = make_secrets(rng) if leaky else None
    reads_with = "read_file" if rng.random() < 0.35 else "bash"  # read_file is an untrusted tool by default
    path = rng.choice(project.files)
    dependency_version = f"{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
    cause = rng.choice(CAUSES).format(dependency=project.dependency)
    func = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"

    def read(file: str) -> Action:
        if reads_with == "read_file":
            return Action("read_file", {"path": file}, _code(rng, project, file))
        return Action("bash", {"command": f"cat {file}"}, _code(rng, project, file))

    def bash(command: str, output: str) -> Action:
        return Action("bash", {"command": command}, output)

    task = rng.choice(("failing tests", "deploy", "feature", "refactor"))
    turns: list[Turn] = []
    if task == "failing tests":
        turns.append(
            Turn(
                f"The tests started failing after I bumped {project.dependency} to {dependency_version}. "
                f"Can you figure out why? It's the {project.name} repo.",
                [[bash(project.test_cmd, _test_run(rng, project, failing=True))], [read(path)]],
                f"The failure comes from {cause} in `{func}` ({path}). The old {project.dependency} hid it. "
                "I can fix it in the function itself rather than in the test - want me to go ahead?",
            )
        )
        turns.append(
            Turn(
                "Yes, fix it in the code, not the test.",
                [
                    [
                        Action(
                            "apply_patch",
                            {"patch": f"--- a/{path}\n+++ b/{path}\n@@ -40,7 +40,9 @@\n" + "+ fix\n" * 30},
                            f"Applied patch to {path}.",
                        )
                    ],
                    [bash(project.test_cmd, _test_run(rng, project, failing=False))],
                ],
                f"Fixed: `{func}` now handles it explicitly, and the whole suite passes. "
                "I kept the change to one function.",
            )
        )
    elif task == "deploy":
        turns.append(
            Turn(
                f"The {project.name} deploy to {project.deploy} keeps crash-looping since this morning. "
                "Can you look at the logs?",
                [[bash(f"kubectl logs deploy/{project.name} --tail=80", _logs(rng, project, secrets))]],
                "The service starts, then dies when it cannot reach its database: every restart logs a connection "
                "reset right after the pool opens. That points at configuration rather than code.",
            )
        )
        env = _env_file(project, secrets) if secrets is not None else "APP_ENV=production\nLOG_LEVEL=info"
        turns.append(
            Turn(
                "Check the env config, maybe something's off there.",
                [[bash("cat .env", env), bash("git log --oneline -20", _git_log(rng))]],
                "DATABASE_URL points at localhost, which only works on your machine; the deploy needs the internal "
                "host. I did not copy any of the credentials anywhere. Rotate the keys in that file if it was "
                "ever committed.",
            )
        )
    elif task == "feature":
        noun = rng.choice(NOUNS)
        turns.append(
            Turn(
                f"I need a way to export {noun}s as CSV from {project.name}. Where would that fit best?",
                [
                    [
                        Action(
                            "grep",
                            {"pattern": f"def .*{noun}|func .*{noun.title()}", "path": "."},
                            "\n".join(
                                f"{rng.choice(project.files)}:{rng.randint(5, 400)}: {rng.choice(VERBS)}_{noun}(...)"
                                for _ in range(rng.randint(8, 25))
                            ),
                        )
                    ],
                    [read(path)],
                ],
                f"Next to `{func}` in {path}: it already loads {noun}s in pages. I'd add an `export_{noun}s_csv` "
                "that streams rows instead of building the file in memory.",
            )
        )
        turns.append(
            Turn(
                "Sounds good, do it, and stream it, some tenants have millions of rows.",
                [
                    [
                        Action(
                            "apply_patch",
                            {"patch": f"--- a/{path}\n+++ b/{path}\n" + "+ stream rows\n" * 60},
                            f"Applied patch to {path}.",
                        )
                    ],
                    [bash(project.test_cmd, _test_run(rng, project, failing=False))],
                ],
                f"Added `export_{noun}s_csv`: it writes rows as it pages through them, so memory stays flat. "
                "Tests pass; I added one for an empty export.",
            )
        )
    else:
        turns.append(
            Turn(
                f"{path} has grown too big. Can you split it up sensibly without changing behaviour?",
                [[read(path)], [read(rng.choice(project.files))]],
                f"It mixes three things: parsing, the {rng.choice(NOUNS)} rules and I/O. I'd move the rules into "
                "their own module and keep the public functions where they are, re-exported.",
            )
        )
        turns.append(
            Turn(
                "OK, go ahead. Keep the public API identical.",
                [
                    [Action("apply_patch", {"patch": "--- a/x\n+++ b/x\n" + "+ moved\n" * 80}, "Applied patch.")],
                    [bash(project.test_cmd, _test_run(rng, project, failing=False))],
                ],
                "Done: the rules live in their own module now and the old names are re-exported, so callers do not "
                "change. All tests pass.",
            )
        )
    follow_ups = [
        Turn(rng.choice(PREFERENCES), [], "Noted - I'll stick to that from here on."),
        Turn(
            "Run the linter too please.",
            [[bash("make lint", "ruff check . ... ok\nmypy app ... Success: no issues found in 48 source files")]],
            "Lint and type checks are clean.",
        ),
        Turn(
            f"Can you add a regression test for the {func} edge case?",
            [
                [Action("apply_patch", {"patch": "+ def test_edge_case(): ...\n" * 12}, "Applied patch.")],
                [bash(project.test_cmd, _test_run(rng, project, failing=False))],
            ],
            f"Added a test that fails on the old `{func}` and passes now.",
        ),
        Turn(
            "What else in that module worries you?",
            [],
            f"Two things: `{rng.choice(VERBS)}_{rng.choice(NOUNS)}` swallows exceptions and returns zero, and "
            f"nothing bounds the retries in `{rng.choice(VERBS)}_{rng.choice(NOUNS)}`. Neither is urgent; both "
            "would make the next incident harder to read.",
        ),
        Turn(
            "Commit it with a sensible message, I'll push myself.",
            [
                [
                    bash(
                        "git add -A && git commit -m 'Fix " + func + "'",
                        f"[main {rng.getrandbits(28):07x}] Fix {func}\n"
                        f" 3 files changed, {rng.randint(10, 90)} insertions(+), {rng.randint(1, 40)} deletions(-)",
                    )
                ]
            ],
            "Committed on main; not pushed.",
        ),
        Turn(
            f"How long does the {project.test_cmd} run take on CI vs locally? It feels slow.",
            [
                [
                    bash(
                        "gh run list --limit 5",
                        "\n".join(
                            f"completed success CI main push {rng.randint(10**9, 10**10)} "
                            f"{rng.randint(3, 14)}m{rng.randint(0, 59)}s"
                            for _ in range(5)
                        ),
                    )
                ]
            ],
            "CI takes 8-12 minutes against about two locally; most of it is installing dependencies without a cache. "
            "Caching the package directory would cut it roughly in half.",
        ),
    ]
    leak = None
    if secrets is not None:  # a credential pasted by the user and echoed by a tool, whatever else the session shows
        leak = Turn(
            f"The GitHub action fails to clone the private submodule. I set the token to {secrets['github']} "
            "in the repo settings, is it maybe expired?",
            [
                [
                    bash(
                        "git remote -v",
                        f"origin\thttps://x-access-token:{secrets['github']}@github.com/acme/"
                        f"{project.name}.git (fetch)",
                    )
                ]
            ],
            "The token works for the main repo but has no access to the submodule's repository. Give it read "
            "access there - and since you pasted it here, rotate it afterwards.",
        )
    rng.shuffle(follow_ups)
    chosen = follow_ups[: rng.randint(1, 6 if leak is None else 5)]
    if leak is not None:
        chosen.insert(rng.randint(0, len(chosen)), leak)
    turns += chosen
    spec = SessionSpec(f"s-{n:03d}", user, project, turns, [])
    spec.requests = client_requests(rng, spec)
    seen = json.dumps(spec.last_messages)
    spec.secrets = [secret for secret in (secrets or {}).values() if secret in seen]  # those the session shows
    facts = [
        f"The user's {project.name} project is built with {project.stack}.",
        f"{project.name} is deployed as {project.deploy}.",
        f"{project.name} runs its tests with `{project.test_cmd}`.",
        f"{project.name} depends on {project.dependency} ({dependency_version} since this session).",
        f"The user keeps the {project.name} sources in /home/dev/src/{project.name}.",
    ]
    summary = (
        f"The user and the agent worked on {task} in {project.name} around {path} ({cause} came up). "
        "The change was tested and left uncommitted unless the user asked."
    )
    spec.representative = json.dumps({"summary": summary, "facts": facts}, ensure_ascii=False)
    return spec


def client_requests(rng: random.Random, spec: SessionSpec) -> list[dict[str, Any]]:
    """The requests an agent sends: each turn's user message, then one request per round of tool results.
    The last turn's answer is never sent: no request follows it."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT.format(project=spec.project.name, day=rng.randint(1, 28))}
    ]
    requests: list[dict[str, Any]] = []

    def send() -> None:
        requests.append({"model": MODEL, "messages": list(messages), "tools": TOOLS, "stream": True})

    for turn in spec.turns:
        messages.append({"role": "user", "content": turn.user})
        send()
        for actions in turn.rounds:
            calls = [
                {
                    "id": f"call_{rng.getrandbits(96):024x}",
                    "type": "function",
                    "function": {"name": action.tool, "arguments": json.dumps(action.arguments)},
                }
                for action in actions
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            for call, action in zip(calls, actions, strict=True):
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": action.output})
            send()
        messages.append({"role": "assistant", "content": turn.answer})
    return requests


def build_sessions(seed: int, count: int, users: int, prefix: str = "s") -> list[SessionSpec]:
    rng = random.Random(seed)
    sessions = []
    for n in range(count):
        spec = build_session(rng, n, f"bench-user-{n % users}")
        spec.id = f"{prefix}-{n:03d}"
        sessions.append(spec)
    return sessions
