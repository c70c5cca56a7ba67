"""Issue 36's transport and tenancy attacks against real proxies, counted: what should be 0 is printed beside 0.

    PYTHONPATH=$PWD python bench/redteam_tenancy.py                  # files store; replicas share a data dir
    PYTHONPATH=$PWD python bench/redteam_tenancy.py --postgres       # replicas on a throwaway PostgreSQL
    PYTHONPATH=$PWD python bench/redteam_tenancy.py --dsn postgresql://...   # or on this one (a fresh database)
    PYTHONPATH=/old/checkout python bench/redteam_tenancy.py         # the same attacks against older code

Every proxy is a real one on a socket (``proxy.testing.runner``) in front of the fake upstream (or an upstream that
keeps objects as OpenAI's and Anthropic's do, ``tests/e2e/objects_upstream.py``); settings are only ones every
version knows, so the script measures an older checkout too (its ``proxy`` comes first on ``PYTHONPATH``).

1. traversal: every encoding of a dot segment (``tests/pipe/traversal.py``), GET and POST, through a proxy holding
   the server's upstream key: how many reached the upstream outside its base path.
2. objects: with a shared upstream key, bob names ada's stored response, file, conversation and message batch in
   11 ways: how many reached the upstream or listed her object.
3. nul: a NUL character on every write path (API write, import, chat and tool output, ending the session, history
   search, export), per backend: how many answers were 5xx, and whether the session's episode came.
4. forget: ada's live session, kept hidden turn and queued history on replica B, forget-all on replica A, then ada
   simply goes on: how many things of hers came back (or stayed) anywhere.
5. extraction key: an Anthropic session's extraction: calls carrying the client's Anthropic key anywhere but
   Anthropic's upstream.
6. sockets: connections that never finish their headers (silent, and slowloris), still open 13 s later.
7. flood: one user opens ``--flood`` sessions: is another user's live session still there?
8. fairness: a service key's ``--end-users`` end users queue extractions first (each call takes the fake 0.25 s):
   how many of the service's extractions ran after the victim's session ended and before its own, and its wait.
9. leaks: a memproxy key beside X-Memproxy-Key reaching the upstream; /metrics without a key; blocks sent into a
   stored conversation over three requests.

Exit status 1 when any attack misses its target (or fails outright).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import posixpath
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

sys.path.append(str(Path(__file__).resolve().parents[1]))  # for tests/: the proxy under test comes first

import httpx  # noqa: E402
import orjson  # noqa: E402

from proxy.auth.keys import create_key  # noqa: E402
from proxy.testing import Reply, ToolCall, extraction_reply, is_extraction  # noqa: E402
from proxy.testing.runner import run_fake_upstream, run_memproxy  # noqa: E402
from tests.e2e.objects_upstream import run_objects_upstream  # noqa: E402
from tests.pipe.traversal import ESCAPES  # noqa: E402

NUL = "\x00"
WAIT_S = 180.0


@dataclass(frozen=True)
class Finding:
    """What one attack came to, as printed, and whether every number met its target."""

    line: str
    met: bool


def wait_for(check: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    return None


def root(url: str) -> str:
    return url.removesuffix("/v1")


def post(url: str, path: str, headers: dict[str, str], **kwargs: Any) -> httpx.Response:
    return httpx.post(root(url) + path, headers=headers, timeout=60, **kwargs)


def chat(url: str, headers: dict[str, str], messages: list[dict[str, Any]], **body: Any) -> httpx.Response:
    return post(url, "/v1/chat/completions", headers, json={"model": "fake-model", "messages": messages, **body})


def keys_in(store_path: Path, *users: str, kind: str = "personal") -> dict[str, str]:
    from proxy.memory.backends.key_files import FilesKeys

    return {user: asyncio.run(create_key(FilesKeys(store_path), user, kind))[1] for user in users}


# -- 1 ----------------------------------------------------------------------------------------------------------


def traversal() -> Finding:
    with run_fake_upstream() as fake, run_memproxy(fake.base_url, {"upstream.api_key": "sk-server"}) as url:
        host, port = root(url).removeprefix("http://").split(":")
        escaped = set()
        for path in ESCAPES:
            for method in ("GET", "POST"):
                fake.reset()
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                conn.putrequest(method, path, skip_accept_encoding=True)
                conn.putheader("Content-Length", "0")
                conn.endheaders()
                conn.getresponse().read()
                conn.close()
                for seen in fake.requests:
                    landed = seen.path
                    for _ in range(5):
                        landed = unquote(landed)
                    if not posixpath.normpath(landed.replace("\\", "/")).startswith("/v1/"):
                        escaped.add(path)
    line = f"traversal: {len(escaped)} of {len(ESCAPES)} encodings reached the upstream outside /v1 (target 0)"
    return Finding(line, not escaped)


# -- 2 ----------------------------------------------------------------------------------------------------------


def objects() -> Finding:
    with tempfile.TemporaryDirectory() as data, run_objects_upstream() as upstream:
        keys = keys_in(Path(data), "ada", "bob")
        overrides = {"auth.mode": "keys", "store.path": data, "upstream.api_key": "sk-server"}
        with run_memproxy(upstream.base_url, overrides) as url:
            ada, bob = ({"Authorization": f"Bearer {keys[u]}"} for u in ("ada", "bob"))

            def respond(who: dict[str, str], **body: Any) -> httpx.Response:
                return post(url, "/v1/responses", who, json={"model": "fake-model", "input": "hi", **body})

            def call(who: dict[str, str], method: str, path: str) -> httpx.Response:
                return httpx.request(method, root(url) + path, headers=who, timeout=60)

            response = respond(ada).json()["id"]
            file = post(url, "/v1/files", ada, json={"purpose": "user_data"}).json()["id"]
            conversation = post(url, "/v1/conversations", ada, json={}).json()["id"]
            batch = post(url, "/v1/messages/batches", ada, json={"requests": []}).json()["id"]
            reads = 0
            fake_before = len(upstream.fake.requests)
            respond(bob, previous_response_id=response, input="bob asks")
            respond(bob, input=[{"role": "user", "content": [{"type": "input_file", "file_id": file}]}])
            respond(bob, conversation=conversation, input="bob asks")
            reads += len(upstream.fake.requests) - fake_before
            upstream.seen.clear()
            for method, path in [
                ("GET", f"/v1/responses/{response}"),
                ("GET", f"/v1/responses/{response}/input_items"),
                ("POST", f"/v1/responses/{response}/cancel"),
                ("GET", f"/v1/files/{file}/content"),
                ("GET", f"/v1/messages/batches/{batch}/results"),
                ("DELETE", f"/v1/responses/{response}"),
            ]:
                call(bob, method, path)
            reads += len(upstream.seen)
            reads += file in call(bob, "GET", "/v1/files").text
            reads += batch in call(bob, "GET", "/v1/messages/batches").text
    line = f"objects: {reads} of 11 cross-tenant reads through upstream object ids got through (target 0)"
    return Finding(line, not reads)


# -- 3 ----------------------------------------------------------------------------------------------------------


def nul(overrides: dict[str, Any], label: str) -> Finding:
    with run_fake_upstream() as fake, run_memproxy(fake.base_url, overrides) as url:
        fake.respond_with(
            lambda body: (
                extraction_reply(f"A {NUL} session.", [f"Fact{NUL}one"]) if is_extraction(body) else Reply("ok")
            )
        )
        who = {"X-Memory-User": "ada", "X-Memory-Session": "s-nul", "Authorization": "Bearer sk-test"}
        statuses = [
            post(url, "/memory/memories", who, json={"text": f"a {NUL} in a hostname"}).status_code,
            post(url, "/memory/import", who, content=orjson.dumps({"text": f"binary{NUL}notes"})).status_code,
        ]
        messages: list[dict[str, Any]] = [{"role": "user", "content": f"look: {NUL}"}]
        for n, text in enumerate(("what is it?", "and this?", "thanks")):
            statuses.append(chat(url, who, messages).status_code)
            messages += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": f"{text} {n}{NUL}"}]
        statuses.append(post(url, "/memory/sessions/s-nul/end", who).status_code)
        episode = wait_for(lambda: httpx.get(root(url) + "/memory/episodes", headers=who).json().get("episodes"), 120)
        statuses.append(httpx.get(root(url) + "/memory/history", params={"q": "thanks"}, headers=who).status_code)
        statuses.append(httpx.get(root(url) + "/memory/export", headers=who).status_code)
    errors = sum(status >= 500 for status in statuses)
    line = f"nul ({label}): {errors} of {len(statuses)} answers were 5xx (target 0); episode stored: {bool(episode)}"
    return Finding(line, not errors and bool(episode))


# -- 4 ----------------------------------------------------------------------------------------------------------


def forget(overrides: dict[str, Any], label: str) -> Finding:
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
    with (
        run_fake_upstream() as fake,
        run_memproxy(fake.base_url, overrides) as a,
        run_memproxy(fake.base_url, overrides) as b,
    ):
        fake.respond_with(
            lambda body: extraction_reply("Zebra.", ["Zebra ships"]) if is_extraction(body) else Reply("ok")
        )
        who = {"X-Memory-User": "ada", "Authorization": "Bearer sk-test"}
        messages: list[dict[str, Any]] = [{"role": "system", "content": "You help."}]
        for text in ("My secret project is Zebra.", "Zebra ships in May."):
            messages.append({"role": "user", "content": text})
            chat(b, who, messages, tools=[weather])
            messages.append({"role": "assistant", "content": "ok"})
        messages.append({"role": "user", "content": "Weather for the Zebra launch?"})
        store = ToolCall("memory_store", {"text": "Zebra launches in Lisbon"}, id="call_mem")
        fake.reply(Reply(None, [store, ToolCall("get_weather", {"city": "Lisbon"}, id="call_weather")]))
        answer = chat(b, who, messages, tools=[weather]).json()["choices"][0]["message"]
        messages.append({k: v for k, v in answer.items() if v is not None})
        post(a, "/memory/forget-all", who, json={"confirm": True})
        gone = wait_for(lambda: httpx.get(root(b) + "/memory/sessions", headers=who).json()["count"] == 0, 3.0)
        leftovers = 0 if gone else 1  # B still holds the live session
        messages.append({"role": "tool", "tool_call_id": "call_weather", "content": "Sunny"})
        fake.requests.clear()
        chat(b, who, messages, tools=[weather])
        leftovers += "call_mem" in orjson.dumps(fake.requests[-1].json).decode()  # the kept hidden turn re-sent
        messages += [{"role": "assistant", "content": "Sunny."}, {"role": "user", "content": "Thanks!"}]
        chat(a, who, messages, tools=[weather])
        for replica in (a, b):
            for session in httpx.get(root(replica) + "/memory/sessions", headers=who).json()["sessions"]:
                post(replica, f"/memory/sessions/{session['id']}/end", who)
        time.sleep(3)  # ended sessions' jobs, if any were queued, get their chance to run
        for replica in (a, b):
            kept = httpx.get(root(replica) + "/memory/export", headers=who).text
            leftovers += kept.count("Zebra")
        leftovers += sum("Zebra" in str(r.json) for r in fake.requests if r.json and is_extraction(r.json))
    line = f"forget ({label}): {leftovers} things of ada's came back or stayed after forget-all (target 0)"
    return Finding(line, not leftovers)


# -- 5 ----------------------------------------------------------------------------------------------------------


def extraction_key() -> Finding:
    with run_fake_upstream() as fake, run_memproxy(fake.base_url) as url:
        fake.respond_with(lambda body: extraction_reply("A session.", []) if is_extraction(body) else Reply("ok"))
        who = {"X-Memory-User": "ada", "x-api-key": "sk-ant-client-secret", "anthropic-version": "2023-06-01"}
        messages: list[dict[str, Any]] = []
        for text in ("one", "two", "three"):
            messages.append({"role": "user", "content": text})
            post(url, "/v1/messages", who, json={"model": "claude-x", "max_tokens": 50, "messages": messages})
            messages.append({"role": "assistant", "content": "ok"})
        session = httpx.get(root(url) + "/memory/sessions", headers=who).json()["sessions"][0]["id"]
        post(url, f"/memory/sessions/{session}/end", who)
        calls = wait_for(lambda: [r for r in fake.requests if r.json and is_extraction(r.json)], 120) or []
    leaked = sum(r.path != "/v1/messages" and "sk-ant-client-secret" in str(r.headers) for r in calls)
    line = f"extraction key: {leaked} of {len(calls)} extraction calls took the Anthropic key elsewhere (target 0)"
    return Finding(line, not leaked and bool(calls))


# -- 6 ----------------------------------------------------------------------------------------------------------


def sockets(count: int = 200) -> Finding:
    with run_fake_upstream() as fake, run_memproxy(fake.base_url) as url:
        host, port = root(url).removeprefix("http://").split(":")
        opened = [socket.create_connection((host, int(port))) for _ in range(count)]
        for sock in opened[count // 2 :]:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n")
        deadline = time.monotonic() + 13
        while time.monotonic() < deadline:
            for sock in opened[count // 2 :]:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X-Slow: 1\r\n")
            time.sleep(1)
        still = 0
        for sock in opened:
            sock.setblocking(False)
            try:
                still += sock.recv(1) != b""
            except BlockingIOError:
                still += 1
            except OSError:
                pass
            sock.close()
    return Finding(f"sockets: {still} of {count} header-less connections still open after 13 s (target 0)", not still)


# -- 7 ----------------------------------------------------------------------------------------------------------


def flood(sessions: int) -> Finding:
    with run_fake_upstream() as fake, run_memproxy(fake.base_url) as url:
        victim = {"X-Memory-User": "ada", "X-Memory-Session": "ada-1", "Authorization": "Bearer sk-test"}
        chat(url, victim, [{"role": "user", "content": "hi"}])
        with httpx.Client(timeout=60) as client:
            for n in range(sessions):
                headers = {"X-Memory-User": "mallory", "X-Memory-Session": f"m-{n}", "Authorization": "Bearer sk-t"}
                body = {"model": "fake-model", "messages": [{"role": "user", "content": "x"}]}
                client.post(f"{url}/chat/completions", json=body, headers=headers)
        kept = httpx.get(root(url) + "/memory/sessions", headers=victim).json()["count"]
    line = f"flood: {1 - kept} of 1 other user's live sessions ended by {sessions} sessions of one user (target 0)"
    return Finding(line, kept == 1)


# -- 8 ----------------------------------------------------------------------------------------------------------


def fairness(end_users: int) -> Finding:
    with tempfile.TemporaryDirectory() as data, run_fake_upstream() as fake:
        service = keys_in(Path(data), "support-bot", kind="service")["support-bot"]
        victim = keys_in(Path(data), "ada")["ada"]
        slow = extraction_reply("A session.", [])
        slow.delay_s = 0.25  # a model takes a while: the service's jobs queue up behind the worker
        fake.respond_with(lambda body: slow if is_extraction(body) else Reply("ok"))
        with run_memproxy(fake.base_url, {"auth.mode": "keys", "store.path": data}) as url:

            def session(key: str, user: str | None, marker: str) -> None:
                who = {"X-Memproxy-Key": key, "Authorization": "Bearer sk-p", "X-Memory-Session": marker}
                if user:
                    who["X-Memory-User"] = user
                messages: list[dict[str, Any]] = []
                for n in range(3):
                    messages += [{"role": "user", "content": f"{marker} turn {n}"}]
                    chat(url, who, messages)
                    messages.append({"role": "assistant", "content": "ok"})
                post(url, f"/memory/sessions/{marker}/end", who)

            for n in range(end_users):
                session(service, f"end-user-{n}", f"svc-{n}")
            session(victim, None, "victim-session")
            ended = time.monotonic()
            queued_before = sum(1 for r in fake.requests if r.json and is_extraction(r.json))
            found = wait_for(
                lambda: any("victim-session" in str(r.json) for r in fake.requests if is_extraction(r.json or {}))
            )
            waited = time.monotonic() - ended
            order = [str(r.json) for r in fake.requests if r.json and is_extraction(r.json)]
    place = next((n for n, text in enumerate(order, 1) if "victim-session" in text), 0)
    ahead = place - queued_before - 1
    line = (
        f"fairness: {ahead} of the service key's extractions ran between the victim's session "
        f"ending and its extraction (target <= 1); it waited {waited:.1f} s (found: {bool(found)})"
    )
    return Finding(line, ahead <= 1 and bool(found))


# -- 9 ----------------------------------------------------------------------------------------------------------


def leaks() -> Finding:
    with tempfile.TemporaryDirectory() as data, run_fake_upstream() as fake:
        key = keys_in(Path(data), "ada")["ada"]
        with run_memproxy(fake.base_url, {"auth.mode": "keys", "store.path": data}) as url:
            wait_for(
                lambda: httpx.get(root(url) + "/memory/memories", headers={"X-Memproxy-Key": key}).status_code == 200
            )
            both = {"X-Memproxy-Key": key, "x-api-key": key, "Authorization": "Bearer sk-provider"}
            chat(url, both, [{"role": "user", "content": "hi"}])
            carried = sum(key in str(r.headers) for r in fake.requests)
            metrics = httpx.get(root(url) + "/metrics").status_code
            post(url, "/memory/memories", {"X-Memproxy-Key": key}, json={"text": "Ada prefers tabs over spaces"})
            fake.requests.clear()
            own = {"X-Memproxy-Key": key, "Authorization": "Bearer sk-provider"}
            for text in ("tabs or spaces?", "and in Go?", "and in YAML?"):
                post(url, "/v1/responses", own, json={"model": "fake-model", "input": text, "conversation": "conv_x"})
            blocks = sum(str(r.json).count("[Memories]") for r in fake.requests)
    line = (
        f"leaks: {carried} upstream requests carried a memproxy key (target 0); /metrics without a key: {metrics} "
        f"(target 401); blocks sent into one stored conversation over 3 requests: {blocks} (target 1)"
    )
    return Finding(line, not carried and metrics == 401 and blocks == 1)


@contextlib.contextmanager
def postgres(dsn: str | None, start: bool) -> Iterator[str | None]:
    if dsn is not None:
        yield dsn
        return
    if not start:
        yield None
        return
    from proxy.testing.postgres import postgres_server

    with postgres_server() as server:
        yield server.create_database()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dsn", help="PostgreSQL for the replicas (a fresh database is best)")
    parser.add_argument("--postgres", action="store_true", help="start a throwaway PostgreSQL for the replicas")
    parser.add_argument("--flood", type=int, default=5100)
    parser.add_argument("--end-users", type=int, default=120)
    parser.add_argument("--only", help="comma-separated attacks to run (traversal,objects,nul,forget,...)")
    args = parser.parse_args()
    chosen = set(args.only.split(",")) if args.only else None
    missed = 0
    with postgres(args.dsn, args.postgres) as dsn, tempfile.TemporaryDirectory() as shared:
        files = {"store.path": shared}
        pg = {"store.backend": "postgres", "store.dsn": dsn} if dsn else None
        attacks: list[tuple[str, Callable[[], Finding]]] = [
            ("traversal", traversal),
            ("objects", objects),
            ("nul", lambda: nul({}, "files")),
            ("forget", lambda: forget(files, "two processes on one files store")),
            ("extraction", extraction_key),
            ("sockets", sockets),
            ("flood", lambda: flood(args.flood)),
            ("fairness", lambda: fairness(args.end_users)),
            ("leaks", leaks),
        ]
        if pg is not None:
            attacks.insert(3, ("nul", lambda: nul(pg, "postgres")))
            attacks.insert(5, ("forget", lambda: forget(pg, "two replicas on PostgreSQL")))
        for name, attack in attacks:
            if chosen is None or name in chosen:
                started = time.monotonic()
                try:
                    finding = attack()
                except Exception as exc:  # noqa: BLE001 - an attack that breaks the proxy is a finding too
                    finding = Finding(f"{name}: failed: {type(exc).__name__}: {exc}", False)
                missed += not finding.met
                print(f"{finding.line}  [{time.monotonic() - started:.0f} s]", flush=True)  # noqa: T201
    if missed:
        print(f"{missed} attack(s) missed a target")  # noqa: T201
        sys.exit(1)


if __name__ == "__main__":
    main()
