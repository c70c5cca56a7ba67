"""The targets requests are measured against, and the servers that make each one up.

Direct is the fake upstream itself; the forwarder, memproxy and LiteLLM sit in front of it. For the hop cases
direct and memproxy each have a second server in front of (or being) the ``--memory-hop`` fake.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .cases import API_KEY, MODEL, Case
from .paths import BENCH_DIR, RETRIEVAL
from .servers import Server, free_port

DIRECT, FORWARDER, MEMPROXY, LITELLM = "direct", "forwarder", "memproxy", "litellm"
REQUIRED_TARGETS = (DIRECT, FORWARDER, MEMPROXY)  # the run fails without them; LiteLLM is only skipped
PROXIES = (FORWARDER, MEMPROXY, LITELLM)


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
        """What this target's requests of ``case`` go to; None: the target sits the case out."""
        return self.hop_server if case.hops else self.server


def seed_memories(data_dir: Path, count: int) -> None:
    """Give the benchmark's user ``count`` memories (the retrieval dataset's, repeated as needed)."""
    if count <= 0:
        return
    from proxy.auth.identity import identify
    from proxy.memory.backends.files import FilesStore
    from proxy.memory.records import check_draft
    from proxy.memory.store import Owner

    caller = identify([(b"authorization", f"Bearer {API_KEY}".encode())])
    assert caller is not None
    texts = [json.loads(line)["text"] for line in (RETRIEVAL / "memories.jsonl").read_text().splitlines() if line]

    async def seed() -> None:
        store = FilesStore(data_dir)
        owner = Owner(caller.user, caller.workspace)
        for n in range(count):
            text = texts[n % len(texts)] + ("" if n < len(texts) else f" (variant {n // len(texts)})")
            await store.add(owner, check_draft({"text": text}), max_total=count)

    asyncio.run(seed())


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
    """Direct (the fake upstreams), the forwarder, memproxy and LiteLLM; the first is always direct."""
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
    seed_memories(data_dir, args.memories)
    hop_data_dir = scratch / "memproxy-hop-data"  # its own copy: the hops' use counts are written there
    if data_dir.exists():
        shutil.copytree(data_dir, hop_data_dir)

    def memproxy(name: str, upstream: Server, data: Path) -> Server:
        port = free_port()
        cmd = [py, "-m", "proxy", "serve", "--host", "127.0.0.1", "--port", str(port)]
        cmd += ["--upstream", upstream.base_url, "--data-dir", str(data), *args.memproxy_arg]
        return Server(name, cmd, port, health_path="/healthz")

    targets.append(
        Target(
            MEMPROXY,
            memproxy(MEMPROXY, upstream, data_dir),
            hop_server=memproxy(f"{MEMPROXY}-hop", hop_upstream, hop_data_dir),
        )
    )
    if not args.no_litellm:
        targets.append(litellm_target(args, scratch, upstream_url))

    for target in targets[1:]:
        for server in target.servers:
            server.startup_timeout_s = args.startup_timeout * (2 if target.name == LITELLM else 1)
            server.start()
    for target in targets[1:]:
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
