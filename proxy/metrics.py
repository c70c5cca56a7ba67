"""Prometheus counters for ``GET /metrics``: one registry per process, built with the services."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, disable_created_metrics, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self) -> None:
        disable_created_metrics()  # the *_created series only add noise to every scrape
        self.registry = CollectorRegistry(auto_describe=True)
        self.recall = Counter(
            "memproxy_recall",
            "Chat requests by what memory did for them (injected, nothing, no_identity, off, fail_open).",
            ["outcome"],
            registry=self.registry,
        )
        self.fail_open = Counter(
            "memproxy_memory_fail_open",
            "Chat requests sent upstream without memory because the store failed or was too slow.",
            ["reason"],
            registry=self.registry,
        )
        self.injected = Counter(
            "memproxy_memories_injected", "Memories placed in chat requests (block and notes).", registry=self.registry
        )
        self.writes = Counter(
            "memproxy_memory_writes",
            "Memory writes by result (stored, unchanged, rejected).",
            ["result"],
            registry=self.registry,
        )
        self.tool_calls = Counter(
            "memproxy_tool_calls",
            "Memory tool calls the proxy ran, by tool and outcome.",
            ["tool", "outcome"],
            registry=self.registry,
        )
        self.tool_hops = Counter(
            "memproxy_tool_hops",
            "Extra upstream calls made to continue after memory tool calls.",
            registry=self.registry,
        )

        # Bound once: `labels()` looks the child up on every call, and chat requests pay for it.
        self.recall_outcome = {
            outcome: self.recall.labels(outcome)
            for outcome in ("injected", "nothing", "no_identity", "off", "fail_open")
        }

    def render(self) -> bytes:
        return generate_latest(self.registry)
