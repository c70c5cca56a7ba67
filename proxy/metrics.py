"""Prometheus counters for ``GET /metrics``: one registry per process, built with the services."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, disable_created_metrics, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from .telemetry.http_metrics import HttpMetrics

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self) -> None:
        disable_created_metrics()  # the *_created series only add noise to every scrape
        self.registry = CollectorRegistry(auto_describe=True)
        self.recall = Counter(
            "memproxy_recall",
            "Chat requests by what memory did for them (injected, nothing, no_identity, off, fail_open, side).",
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
            "Memory writes by result (stored, held: from an untrusted session, unchanged, rejected, approved, edited,"
            " restored).",
            ["result"],
            registry=self.registry,
        )
        self.store_unreadable = Counter(
            "memproxy_store_unreadable_lines",
            "Lines of the memory store's files that could not be read and were skipped, each counted once.",
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
        self.sessions_ended = Counter(
            "memproxy_sessions_ended",
            "Sessions ended, by what followed (queued: an extraction job; no_extraction: too few turns, or off).",
            ["outcome"],
            registry=self.registry,
        )
        self.extraction_jobs = Counter(
            "memproxy_extraction_jobs",
            "Extraction job runs by outcome (done, retry: failed and queued again, failed: gave up).",
            ["outcome"],
            registry=self.registry,
        )
        self.extraction_dropped = Counter(
            "memproxy_extraction_jobs_dropped",
            "Extraction jobs dropped unrun because their user had more than extraction.max_pending_per_user waiting.",
            registry=self.registry,
        )
        self.extraction_pending = Gauge(
            "memproxy_extraction_jobs_pending",
            "Extraction jobs on disk not done yet, as the worker last saw them, by state (pending, failed).",
            ["state"],
            registry=self.registry,
        )
        self.extraction_tokens = Counter(
            "memproxy_extraction_tokens",
            "Upstream tokens spent on extraction calls, as the upstream reported them.",
            ["kind"],
            registry=self.registry,
        )
        self.extraction_facts = Counter(
            "memproxy_extraction_facts",
            "Extracted facts by what became of them (stored, superseded, merged, rejected).",
            ["outcome"],
            registry=self.registry,
        )
        self.extraction_judgements = Counter(
            "memproxy_extraction_judgements",
            "Extraction model calls judging a fact against a memory in the 0.3-0.7 similarity band, by verdict "
            "(same, update, different; unreadable and failed count as different: both memories are kept).",
            ["verdict"],
            registry=self.registry,
        )
        self.history_lines = Counter(
            "memproxy_history_lines",
            "Conversation lines for history by what became of them (kept, repeated: already kept, dropped).",
            ["outcome"],
            registry=self.registry,
        )

        self.http = HttpMetrics()  # requests, latencies, upstream errors, in flight, held (proxy/telemetry/)
        self.registry.register(self.http)

        # Bound once: `labels()` looks the child up on every call, and chat requests pay for it.
        self.recall_outcome = {
            outcome: self.recall.labels(outcome)
            for outcome in ("injected", "nothing", "no_identity", "off", "fail_open", "side")
        }

    def render(self) -> bytes:
        return generate_latest(self.registry)
