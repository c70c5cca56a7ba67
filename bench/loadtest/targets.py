"""The targets requests are measured against, and the servers that make each one up.

Direct is the fake upstream itself; the forwarder, memproxy, memproxy-keys and LiteLLM sit in front of it. For the
hop cases direct and memproxy each have a second server in front of (or being) the ``--memory-hop`` fake.
memproxy-keys is memproxy in ``auth.mode: keys``: its requests carry a personal memproxy key, which decides the user.
memproxy-pg is memproxy on ``store.backend: postgres``, on a PostgreSQL server the benchmark starts (``postgres``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from .cases import API_KEY, MODEL, Case
from .paths import BENCH_DIR, RETRIEVAL
from .postgres import DATABASE, start_postgres
from .servers import Server, free_port

DIRECT, FORWARDER, MEMPROXY, MEMPROXY_KEYS, LITELLM = "direct", "forwarder", "memproxy", "memproxy-keys", "litellm"
MEMPROXY_PG = "memproxy-pg"
# The run fails without them (memproxy-keys unless --no-keys leaves it out, memproxy-pg unless --no-postgres does
# or it is skipped for want of PostgreSQL); LiteLLM is only skipped.
REQUIRED_TARGETS = (DIRECT, FORWARDER, MEMPROXY, MEMPROXY_KEYS, MEMPROXY_PG)
PROXIES = (FORWARDER, MEMPROXY, MEMPROXY_KEYS, MEMPROXY_PG, LITELLM)
# memproxy in auth.mode: open, in auth.mode: keys, and on store.backend: postgres
MEMPROXIES = (MEMPROXY, MEMPROXY_KEYS, MEMPROXY_PG)
KEYS_USER = "bench"  # memproxy-keys' user: its personal key's owner


@dataclass
class Target:
    name: str
    server: Server
    status: str = "pending"  # ok | skipped | failed
    reason: str = ""
    probe_replies: dict[str, str] = field(default_factory=dict)  # by case name
    hop_server: Server | None = None  # the same kind of target in front of the --memory-hop fake, for hop cases

    @property
    def servers(self) -> list[Server]:
        return [server for server in (self.server, self.hop_server) if server is not None]

    def server_for(self, case: Case) -> Server | None:
        """What this target's requests of ``case`` go to; None: the target sits the case out (LiteLLM sits out the
        Responses and Messages cases: it is compared on chat completions only)."""
        if case.api != "chat" and self.name == LITELLM:
            return None
        return self.hop_server if case.hops else self.server


def open_user() -> str:
    """The user memproxy in auth.mode: open takes the benchmark's requests to be for: a hash of their bearer token."""
    from proxy.auth.identity import identify

    caller = identify([(b"authorization", f"Bearer {API_KEY}".encode())])
    assert caller is not None
    return caller.user


def seed_memories(data_dir: Path, count: int, user: str) -> None:
    """Give ``user`` (default workspace) ``count`` memories (the retrieval dataset's, repeated as needed)."""
    if count <= 0:
        return
    from proxy.memory.backends.files import FilesStore
    from proxy.memory.caller import DEFAULT_WORKSPACE
    from proxy.memory.records import check_draft
    from proxy.memory.store import Owner

    texts = [json.loads(line)["text"] for line in (RETRIEVAL / "memories.jsonl").read_text().splitlines() if line]

    async def seed() -> None:
        store = FilesStore(data_dir)
        owner = Owner(user, DEFAULT_WORKSPACE)
        for n in range(count):
            text = texts[n % len(texts)] + ("" if n < len(texts) else f" (variant {n // len(texts)})")
            await store.add(owner, check_draft({"text": text}), max_total=count)

    asyncio.run(seed())


def seed_postgres(dsn: str, count: int, user: str) -> None:
    """As :func:`seed_memories`, into the PostgreSQL database at ``dsn`` (the tables made by its migrations)."""
    from proxy.memory.backends.pg_memories import PostgresStore
    from proxy.memory.backends.postgres import Database
    from proxy.memory.caller import DEFAULT_WORKSPACE
    from proxy.memory.records import check_draft
    from proxy.memory.store import Owner

    texts = [json.loads(line)["text"] for line in (RETRIEVAL / "memories.jsonl").read_text().splitlines() if line]

    async def seed() -> None:
        database = Database(dsn)
        store = PostgresStore(database)  # retains the database: released below
        try:
            await database.start()  # migrates, even with nothing to seed
            owner = Owner(user, DEFAULT_WORKSPACE)
            for n in range(max(count, 0)):
                text = texts[n % len(texts)] + ("" if n < len(texts) else f" (variant {n // len(texts)})")
                await store.add(owner, check_draft({"text": text}), max_total=count)
        finally:
            await database.release()

    asyncio.run(seed())


def personal_key(data_dir: Path, user: str) -> str:
    """A new personal memproxy key for ``user`` in the key store of ``data_dir`` (as ``memproxy keys create``)."""
    from proxy.auth.keys import create_key
    from proxy.memory.backends.key_files import FilesKeys

    _, key = asyncio.run(create_key(FilesKeys(data_dir), user, "personal"))
    return key


def litellm_config(path: Path, upstream: str, master_key: str, model: str) -> None:
    """LiteLLM's proxy config: one model, routed to the fake upstream. JSON is YAML, so no yaml writer needed."""
    config = {
        "model_list": [
            {
                "model_name": MODEL,
                "litellm_params": {"model": model, "api_base": upstream, "api_key": API_KEY},
            }
        ],
        "litellm_settings": {"telemetry": False, "num_retries": 0, "request_timeout": 60},
        "general_settings": {"master_key": master_key},
    }
    path.write_text(json.dumps(config, indent=2))


def start_servers(args: argparse.Namespace, scratch: Path) -> list[Target]:
    """Direct (the fake upstreams), the forwarder, memproxy, memproxy-keys and LiteLLM; the first is always direct."""
    py = sys.executable
    fakes = []
    # The plain fake answers memproxy's extraction calls too (anything else gets the same default answer as before).
    for name, extra in (("upstream", ["--extraction"]), ("upstream-hop", ["--memory-hop"])):
        port = free_port()
        cmd = [py, "-m", "proxy.testing", "--host", "127.0.0.1", "--port", str(port), "--keep-requests", "0", *extra]
        fake = Server(name, cmd, port)
        fake.startup_timeout_s = args.startup_timeout
        fake.start()
        fakes.append(fake)
    for fake in fakes:
        problem = fake.wait_healthy()
        if problem:
            raise SystemExit(f"the fake upstream {fake.name} did not start: {problem}")
    upstream, hop_upstream = fakes
    upstream_url = upstream.base_url

    targets = [Target(DIRECT, upstream, status="ok", hop_server=hop_upstream)]
    port = free_port()
    forwarder = Server(
        FORWARDER, [py, str(BENCH_DIR / "forwarder.py"), "--port", str(port), "--upstream", upstream_url], port
    )
    targets.append(Target(FORWARDER, forwarder))
    data_dir = scratch / "memproxy-data"
    seed_memories(data_dir, args.memories, open_user())
    hop_data_dir = scratch / "memproxy-hop-data"  # its own copy: the hops' use counts are written there
    if data_dir.exists():
        shutil.copytree(data_dir, hop_data_dir)

    def memproxy(name: str, upstream: Server, data: Path, client_key: str = API_KEY, **env: str) -> Server:
        # /v1/messages goes to upstream.anthropic_base_url: the same fake, which serves Anthropic's API under /v1 too
        env = {"MEMPROXY_UPSTREAM_ANTHROPIC_BASE_URL": upstream.base_url, **env}
        port = free_port()
        cmd = [py, "-m", "proxy", "serve", "--host", "127.0.0.1", "--port", str(port)]
        cmd += ["--upstream", upstream.base_url, "--data-dir", str(data), *args.memproxy_arg]
        return Server(name, cmd, port, health_path="/healthz", client_key=client_key, env=env)

    targets.append(
        Target(
            MEMPROXY,
            memproxy(MEMPROXY, upstream, data_dir),
            hop_server=memproxy(f"{MEMPROXY}-hop", hop_upstream, hop_data_dir),
        )
    )
    if not args.no_keys:
        # Its own data dir: the same memories for its key's user, and the key store; no hop server.
        keys_data_dir = scratch / "memproxy-keys-data"
        seed_memories(keys_data_dir, args.memories, KEYS_USER)
        key = personal_key(keys_data_dir, KEYS_USER)
        keys_env = {"MEMPROXY_AUTH_MODE": "keys", "MEMPROXY_UPSTREAM_API_KEY": API_KEY}
        targets.append(Target(MEMPROXY_KEYS, memproxy(MEMPROXY_KEYS, upstream, keys_data_dir, key, **keys_env)))
    if not args.no_postgres:
        targets.append(postgres_target(args, scratch, partial(memproxy, MEMPROXY_PG, upstream)))
    if not args.no_litellm:
        targets.append(litellm_target(args, scratch, upstream_url))

    for target in targets[1:]:
        if target.status == "skipped":  # memproxy-pg without PostgreSQL
            continue
        for server in target.servers:
            server.startup_timeout_s = args.startup_timeout * (2 if target.name == LITELLM else 1)
            server.start()
    for target in targets[1:]:
        if target.status == "skipped":
            continue
        problem = next(filter(None, (server.wait_healthy() for server in target.servers)), None)
        if problem is None:
            target.status = "ok"
        else:
            target.status = "skipped" if target.name == LITELLM else "failed"
            target.reason = problem
            for server in target.servers:
                server.stop()
            print(f"{target.name}: {target.status}: {problem}", file=sys.stderr)
    return targets


def postgres_target(args: argparse.Namespace, scratch: Path, memproxy: Callable[..., Server]) -> Target:
    """memproxy on ``store.backend: postgres``, on a PostgreSQL server started here and seeded with ``--memories``
    memories for the benchmark's user; skipped (and said why) when PostgreSQL cannot be started."""
    database, why = start_postgres()
    data_dir = scratch / "memproxy-pg-data"  # what memproxy still keeps in files (none of the memories)
    env = {"MEMPROXY_STORE_BACKEND": "postgres"}
    if database is None:
        print(f"{MEMPROXY_PG}: skipped: {why}", file=sys.stderr)
        return Target(MEMPROXY_PG, memproxy(data_dir, **env), status="skipped", reason=why)
    dsn = database.dsn(DATABASE)
    seed_postgres(dsn, args.memories, open_user())
    return Target(MEMPROXY_PG, memproxy(data_dir, MEMPROXY_STORE_DSN=dsn, **env))


def litellm_target(args: argparse.Namespace, scratch: Path, upstream_url: str) -> Target:
    """LiteLLM's own proxy, a peer for comparison: its config in ``scratch``, a fresh master key for its clients."""
    port = free_port()
    config = scratch / "litellm.yaml"
    master_key = f"sk-bench-{secrets.token_hex(16)}"
    litellm_config(config, upstream_url, master_key, args.litellm_model)
    litellm_cmd = [sys.executable, "-m", "litellm.proxy.proxy_cli", "--config", str(config)]
    litellm_cmd += ["--host", "127.0.0.1", "--port", str(port)]
    litellm = Server(
        LITELLM,
        litellm_cmd,
        port,
        health_path="/health/liveliness",
        client_key=master_key,
        env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR", "LITELLM_TELEMETRY": "False"},
    )
    return Target(LITELLM, litellm)


def rss_after(live: list[Target]) -> dict[str, float]:
    """Resident memory (MB) of each live target's servers and, apart, of the processes they started."""
    rss = {}
    for t in live:
        for name, server in ((t.name, t.server), (f"{t.name} hop", t.hop_server)):
            if server is not None:
                own, children = server.rss_mb()
                rss[name] = round(own, 1)
                if children:
                    rss[f"{name}'s children"] = round(children, 1)
    return rss
