"""The store's health as an admin sees it: backend and schema, the extraction queue, what waits for review,
how much is stored, and the warnings and errors this process logged lately."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..episodes.jobs import Job
from ..logs import LogEntry
from ..memory.census import Held, Schema, Tally, total
from ..memory.records import format_ts
from ..memory.store import Owner


@dataclass(frozen=True, slots=True)
class Queue:
    """Extraction jobs not done: waiting (due or backing off), being run by a worker now, given up on."""

    queued: int
    running: int
    failed: int

    @classmethod
    def of(cls, jobs: list[Job], running: set[str]) -> Queue:
        busy = sum(1 for job in jobs if job.id in running)
        failed = sum(1 for job in jobs if job.state == "failed" and job.id not in running)
        return cls(len(jobs) - busy - failed, busy, failed)


@dataclass(frozen=True, slots=True)
class StoreHealth:
    schema: Schema
    queue: Queue
    held: Held
    tallies: dict[Owner, Tally]
    unnamed: list[str]  # owner directories whose names the files store does not know
    problems: list[LogEntry]  # newest first

    def to_json(self) -> dict[str, Any]:
        stored = total(self.tallies.values())
        return {
            "backend": self.schema.backend,
            "schema": self.schema.to_json(),
            "queue": {"queued": self.queue.queued, "running": self.queue.running, "failed": self.queue.failed},
            "held": self.held.to_json(),
            "owners": sum(1 for owner in self.tallies if owner.user is not None),
            "users": len({owner.user for owner in self.tallies if owner.user is not None}),
            "unnamed_owners": self.unnamed,
            "memories": {
                "live": stored.memories,
                "held": stored.held,
                "pinned": stored.pinned,
                "superseded": stored.superseded,
            },  # fmt: skip
            "episodes": stored.episodes,
            "history": stored.history,
            "errors": [
                {"at": format_ts(entry.at), "level": entry.level, "logger": entry.logger, "message": entry.message}
                for entry in self.problems
            ],
        }
