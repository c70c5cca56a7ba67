"""How fast the console's pages answer at 10,000 memories: ``PYTHONPATH=$PWD python bench/console.py``.

Fills a store with 10,000 memories of one user in one workspace (``bench/retrieval``'s synthetic memories: its 336
with a third of their words swapped, in sessions of six, over a year; 1% held for review, their sessions' history
holding the web_fetch call that held them, a few pinned), 10,000 history lines in 500 sessions and 20 episodes, plus
``--users`` other users with 20 memories each (what the admin pages count), starts a real memproxy process in keys
mode on it (``memory.max_total`` raised to hold them) in front of the fake upstream, has a few sessions chat through
it (so their pages have a block and notes to explain), edits ten memories (versions) and deletes one, signs in
through the sign-in form as a browser would, as the user (a personal key) and as an admin, and times every page (and
the API's list, which pages the same way): the median, p95 and slowest of ``--rounds`` loads after a warm-up, each a
whole request over a real socket. Search terms are ``bench/retrieval/queries.jsonl``'s questions, a different one
each load. Target: every page's p95 within 100 ms.

    python bench/console.py                      # files store
    python bench/console.py --backend postgres   # a throwaway PostgreSQL server (Debian's binaries)
    python bench/console.py --memories 1000 --rounds 20

Results also go to ``bench/results/console.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "retrieval"))
sys.path.insert(0, str(HERE.parent))

from run import synthetic  # noqa: E402

from bench.results_file import write_results  # noqa: E402
from proxy.auth.keys import create_key  # noqa: E402
from proxy.config import Settings, load_settings  # noqa: E402
from proxy.memory.episodes import Episode, episode_id  # noqa: E402
from proxy.memory.history import HistoryLine  # noqa: E402
from proxy.memory.provenance import Provenance  # noqa: E402
from proxy.memory.records import Memory, MemoryDraft  # noqa: E402
from proxy.memory.store import Owner  # noqa: E402
from proxy.services import build_episode_store, build_history_store, build_key_store, build_store  # noqa: E402
from proxy.testing import Reply  # noqa: E402
from proxy.testing.runner import run_fake_upstream  # noqa: E402

RESULTS = HERE / "results" / "console.json"
TARGET_MS = 100.0
USER = "bench"
OWNER = Owner(USER, "default")
HELD = Provenance(True, ("web_fetch",))


def memories(count: int, rng: random.Random) -> list[Memory]:
    base = [
        Memory.from_json(json.loads(line)) for line in (HERE / "retrieval" / "memories.jsonl").read_text().splitlines()
    ]
    made = synthetic(base, count, rng)
    now = time.time()
    return [replace(m, created=now - (count - n) * 3000.0) for n, m in enumerate(made)]  # a year, oldest first


SESSIONS = 500  # history's sessions: 20 lines each at 10,000 lines


def fill(settings: Settings, count: int, users: int, rng: random.Random) -> tuple[dict[str, str], list[str]]:
    """The store as the benchmark reads it; returns the keys (the user's and an admin's) and memory ids to open."""

    async def write() -> tuple[dict[str, str], list[str]]:
        store, episodes = build_store(settings), build_episode_store(settings)
        history, keys = build_history_store(settings), build_key_store(settings)
        sessions = max(1, count // 20)
        try:
            drafts = []
            for n, memory in enumerate(memories(count, rng)):
                held = n % 100 == 7
                drafts.append(
                    MemoryDraft(
                        memory.text[:500],
                        tags=memory.tags,
                        category=memory.category,
                        session=f"s-{n % sessions}" if held else memory.session,  # its history holds the call
                        created=memory.created,
                        origin=("api", "tool", "extraction")[n % 3],
                        provenance=HELD if held else Provenance(),
                        pinned=n in (11, 222, 3333),
                    )
                )
            stored = []
            for start in range(0, len(drafts), 1000):  # an import's batch at a time
                stored += await store.add_many(OWNER, drafts[start : start + 1000], max_total=count + 1000)
            now = time.time()
            lines = []
            for n in range(count):
                session, turn = f"s-{n // 20}", n % 20
                text, role, untrusted = rng.choice(drafts).text, ("user", "assistant")[n % 2], False
                if turn == 5:  # every session read a page: the evidence the review queue shows
                    text, role, untrusted = 'called web_fetch({"url": "https://example.com/docs"})', "assistant", True
                elif turn == 6:
                    text, role, untrusted = "web_fetch: " + text, "tool", True
                lines.append(HistoryLine(session, turn // 2 + 1, role, now - (count - n) * 60.0, text, untrusted,
                                         ("web_fetch",) if untrusted else ()))  # fmt: skip
            await history.append(OWNER, lines)
            for n in range(20):
                session = f"s-{n}"
                await episodes.put(OWNER, Episode(
                    episode_id(USER, "default", session), session, USER, "default", 20, now - n * 3600,
                    f"Session {n}: " + drafts[n].text, tuple(d.text for d in drafts[n : n + 3]),
                    HELD if n % 4 == 0 else Provenance(),
                ))  # fmt: skip
            for n in range(users):  # other users, for the admin pages to count
                other = Owner(f"user-{n:03}", ("default", "research")[n % 2])
                few = [MemoryDraft(d.text[:500], provenance=HELD if k == 0 else Provenance()) for k, d in
                       enumerate(rng.sample(drafts, 20))]  # fmt: skip
                await store.add_many(other, few, max_total=1000)
            _, key = await create_key(keys, USER, "personal")
            _, admin = await create_key(keys, "ops", "admin")
        finally:
            for closing in (store, episodes, history, keys):
                await closing.aclose()
        return {"user": key, "admin": admin}, [m.id for m in stored[:: max(1, len(stored) // 10)]]

    return asyncio.run(write())


FILES = 100


def prepare(root: str, key: str, ids: list[str], questions: list[str]) -> str:
    """What a person finds after a while of use: sessions that chatted (their blocks and notes known), memories
    edited (versions) and one deleted. Returns the deleted one's id."""
    headers = {"X-Memproxy-Key": key, "Authorization": "Bearer sk-bench"}
    with httpx.Client(base_url=root, timeout=60, headers=headers) as client:
        client.get("/memory/memories").raise_for_status()  # the store read in: no chat request goes without memory
        for n in range(10):
            messages = [{"role": "system", "content": "You are helpful."}]
            for question in questions[n * 3 : n * 3 + 3]:
                messages.append({"role": "user", "content": question})
                answer = client.post("/v1/chat/completions", json={"model": "m", "messages": messages},
                                     headers={"X-Memory-Session": f"live-{n}"})  # fmt: skip
                answer.raise_for_status()
                messages.append({"role": "assistant", "content": "ok"})
        for memory_id in ids:
            for suffix in (" (checked)", " (checked again)"):
                text = client.get(f"/memory/memories/{memory_id}").json()["text"]
                client.patch(f"/memory/memories/{memory_id}", json={"text": text[:480] + suffix}).raise_for_status()
        gone = ids[-1]
        client.delete(f"/memory/memories/{gone}").raise_for_status()
        for n in range(FILES):  # the memory tool's /memories directory: files of 200 lines in a few directories
            text = "".join(f"- {questions[(n + line) % len(questions)]}\n" for line in range(200))
            client.put(f"/memory/files/topic-{n % 5}/notes-{n}.md", json={"text": text}).raise_for_status()
    return gone


@contextmanager
def memproxy(settings: Settings, count: int, upstream: str) -> Iterator[str]:
    port = _free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    environ |= {
        "MEMPROXY_AUTH_MODE": "keys",
        "MEMPROXY_MEMORY_MAX_TOTAL": str(count + 1000),
        "MEMPROXY_EXTRACTION_ENABLED": "false",
        "MEMPROXY_SERVER_LOG_LEVEL": "warning",
    }
    if settings.store.backend == "postgres":
        environ |= {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": str(settings.store.dsn)}
    command = [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--data-dir", settings.store.path,
               "--upstream", upstream]  # fmt: skip
    process = subprocess.Popen(command, env=environ, stderr=subprocess.PIPE)
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise SystemExit(f"memproxy exited: {process.stderr.read().decode() if process.stderr else ''}")
            try:
                if httpx.get(f"{root}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("memproxy did not start")
            time.sleep(0.1)
        yield root
    finally:
        process.terminate()
        process.wait(timeout=30)


def sign_in(client: httpx.Client, key: str) -> None:
    page = client.get("/ui/")
    token = re.search(r'name="signin" value="([^"]+)"', page.text)
    assert token is not None, page.text[:300]
    done = client.post(
        "/ui/sign-in", data={"key": key, "signin": token.group(1)}, headers={"sec-fetch-site": "same-origin"}
    )
    assert done.status_code == 303, done.text[:300]


def measure(
    client: httpx.Client,
    path: Callable[[int], str],
    rounds: int,
    *,
    headers: dict[str, str] | None = None,
    before: Callable[[int], None] | None = None,
) -> dict[str, float]:
    """``before``: called ahead of each load, untimed (a change the page must then take into account)."""
    for n in range(3):  # warm-up: first reads of the owner's files or rows, the templates
        client.get(path(n), headers=headers).raise_for_status()
    timings = []
    for n in range(rounds):
        if before is not None:
            before(n)
        started = time.perf_counter()
        response = client.get(path(n + 3), headers=headers)
        timings.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    timings.sort()
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(timings[max(0, int(len(timings) * 0.95) - 1)], 2),
        "max_ms": round(timings[-1], 2),
        "bytes": len(response.content),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=50, help="other users, 20 memories each (the admin pages)")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--backend", choices=["files", "postgres"], default="files")
    args = parser.parse_args()
    rng = random.Random(35)
    queries = [json.loads(line)["query"] for line in (HERE / "retrieval" / "queries.jsonl").read_text().splitlines()]
    words = [w for q in queries for w in re.findall(r"[A-Za-z]{4,}", q)]

    if args.backend == "postgres":
        from proxy.testing.postgres import postgres_server

        database: Any = postgres_server()
    else:
        database = nullcontext(None)
    with tempfile.TemporaryDirectory(prefix="memproxy-console-bench-") as temp, database as server:
        overrides: dict[str, Any] = {"store.path": temp}
        if server is not None:
            overrides |= {"store.backend": "postgres", "store.dsn": server.create_database()}
        settings = load_settings(overrides=overrides)
        started = time.perf_counter()
        keys, ids = fill(settings, args.memories, args.users, rng)
        print(f"filled {args.memories:,} memories, {args.memories:,} history lines, 20 episodes, {args.users} other "
              f"users ({args.backend}) in {time.perf_counter() - started:.1f}s")  # fmt: skip
        with run_fake_upstream() as fake:
            fake.respond_with(lambda body: Reply(content="ok"))
            with memproxy(settings, args.memories, fake.base_url) as root:
                gone = prepare(root, keys["user"], ids[:10], queries)
                results = time_pages(root, keys, ids, gone, queries, words, args)
    width = max(len(name) for name in results)
    print(f"\n{'page':<{width}}  {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'KB':>6}  target p95 <= {TARGET_MS:g} ms")
    missed = 0
    for name, timing in results.items():
        ok = timing["p95_ms"] <= TARGET_MS
        missed += not ok
        print(f"{name:<{width}}  {timing['p50_ms']:>8.1f} {timing['p95_ms']:>8.1f} {timing['max_ms']:>8.1f} "
              f"{timing['bytes'] / 1024:>6.1f}  {'PASS' if ok else 'MISS'}")  # fmt: skip
    write_results(RESULTS, {"memories": args.memories, "users": args.users, "backend": args.backend,
                            "rounds": args.rounds, "target_p95_ms": TARGET_MS, "pages": results})  # fmt: skip
    print(f"\n{len(results) - missed}/{len(results)} within target; results: {RESULTS.relative_to(HERE.parent)}")


def time_pages(
    root: str, keys: dict[str, str], ids: list[str], gone: str, queries: list[str], words: list[str], args: Any
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    last = (args.memories // 25) * 25
    hx = {"hx-request": "true", "hx-target": "results"}
    edited = [memory_id for memory_id in ids[:10] if memory_id != gone]
    with httpx.Client(base_url=root, timeout=30) as client:
        sign_in(client, keys["user"])
        pages: list[tuple[str, Callable[[int], str], dict[str, str] | None]] = [
            ("memories, newest first", lambda n: "/ui/memories", None),
            ("memories, last page", lambda n: f"/ui/memories?offset={last}", None),
            ("memories, filtered", lambda n: "/ui/memories?origin=tool&category=preference&pinned=false", None),
            ("search (a question)", lambda n: "/ui/memories?q=" + queries[n % len(queries)], None),
            ("search as you type (htmx)", lambda n: "/ui/memories?q=" + words[n % len(words)], hx),
            (
                "search, filtered, page 3",
                lambda n: f"/ui/memories?origin=tool&offset=50&q={words[n % len(words)]}",
                None,
            ),  # fmt: skip
            ("a memory's page (versions)", lambda n: f"/ui/memories/{edited[n % len(edited)]}", None),
            ("a deleted memory's page", lambda n: f"/ui/memories/{gone}", None),
            ("review queue (100 held, 5 episodes; 25 shown with evidence)", lambda n: "/ui/review", None),
            ("episodes", lambda n: "/ui/episodes", None),
            ("sessions (510, first page)", lambda n: "/ui/sessions", None),
            ("a past session's page", lambda n: f"/ui/sessions/s-{n % SESSIONS}", None),
            ("a session's page with its block and why", lambda n: f"/ui/sessions/live-{n % 10}", None),
            ("history search", lambda n: "/ui/history?q=" + queries[n % len(queries)], None),
            ("whose memory (picker)", lambda n: "/ui/acting", None),
            (f"files ({FILES} in /memories)", lambda n: "/ui/files", None),
            ("a file's page (200 lines)", lambda n: f"/ui/files/topic-{n % 5}/notes-{n % 5}.md", None),
        ]
        for name, path, headers in pages:
            results[name] = measure(client, path, args.rounds, headers=headers)
        with httpx.Client(base_url=root, timeout=30, headers={"X-Memproxy-Key": keys["user"]}) as api:

            def change(n: int) -> None:  # a memory edited: what the episodes' facts would do is worked out anew
                api.patch(f"/memory/memories/{edited[0]}", json={"text": f"Reviewed on round {n}"}).raise_for_status()

            results["review queue, right after a change"] = measure(
                client, lambda n: "/ui/review", args.rounds, before=change
            )
            held = [episode_id(USER, "default", f"s-{n}") for n in range(0, 20, 4)]  # the held episodes
            results["an episode's facts and what approving does (htmx)"] = measure(
                client, lambda n: f"/ui/review/{held[n % len(held)]}/facts", args.rounds, headers={"hx-request": "true"}
            )
            results["the same, right after a change"] = measure(
                client,
                lambda n: f"/ui/review/{held[n % len(held)]}/facts",
                args.rounds,
                headers={"hx-request": "true"},
                before=change,
            )
    with httpx.Client(base_url=root, timeout=30) as admin:
        sign_in(admin, keys["admin"])
        switched = admin.post(
            "/ui/acting",
            data={"user": USER, "workspace": "default", "csrf": _csrf(admin)},
            headers={"sec-fetch-site": "same-origin"},
        )
        assert switched.status_code == 303, switched.text[:300]
        for name, path in [
            ("admin: memories (everyone's held count)", lambda n: "/ui/memories"),
            ("admin: review (and who else waits)", lambda n: "/ui/review"),
            (f"admin: users ({args.users + 2})", lambda n: "/ui/users"),
            ("admin: keys", lambda n: "/ui/keys"),
            ("admin: forget preview (10,000 memories)", lambda n: f"/ui/users/forget?user={USER}"),
            ("admin: health", lambda n: "/ui/health"),
            ("admin: whose memory (every user)", lambda n: "/ui/acting"),
        ]:
            results[name] = measure(admin, path, args.rounds)
    with httpx.Client(base_url=root, timeout=30, headers={"X-Memproxy-Key": keys["user"]}) as api:
        results["API: GET /memory/memories?q="] = measure(
            api, lambda n: "/memory/memories?limit=25&q=" + queries[n % len(queries)], args.rounds
        )
    return results


def _csrf(client: httpx.Client) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', client.get("/ui/acting").text)
    assert found is not None
    return found.group(1)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
