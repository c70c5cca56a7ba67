"""Where a memory or an episode came from, as the proxy saw it on the wire: never as a model said.

A session that took in outside content (a web page, a file, an MCP tool's result) is *untrusted*: whatever it
writes may be an attacker's text. Such writes are kept, with the tools that made them untrusted (``sources``),
but *held*: never injected, searched or allowed to replace a trusted memory, until a person approves them.
Approval keeps the record of where the text came from (``untrusted`` and ``sources`` stay) and adds
``user_approved``, so an audit can still tell an approved memory from one that was never in doubt.

Every memory also records its ``origin``: the way in that wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

# The ways a memory is written: the management API, the model's memory_store, an episode's facts, an import
# (API or CLI) and the CLI's `memories add`. A line stored before origins were recorded loads as `api`.
ORIGINS = ("api", "tool", "extraction", "import", "cli")
# The source of a tool result whose call the proxy never saw: what it cannot see it cannot vouch for. No tool can be
# named so (tool names are letters, digits, `_` and `-`), though extraction.trusted_tools may name it to trust them.
UNSEEN_CALL = "(unseen call)"


@dataclass(frozen=True, slots=True)
class Provenance:
    untrusted: bool = False
    sources: tuple[str, ...] = ()  # the untrusted tools the writing session called
    user_approved: bool = False

    @property
    def replayable(self) -> bool:
        """May reach a prompt or a search result: nothing untrusted went in, or a person approved it."""
        return not self.untrusted or self.user_approved

    @property
    def held(self) -> bool:
        return not self.replayable

    def approved(self) -> Provenance:
        return replace(self, user_approved=True)

    def to_json(self) -> dict[str, Any]:
        return {"untrusted": self.untrusted, "sources": list(self.sources), "user_approved": self.user_approved}

    @classmethod
    def from_json(cls, obj: Any) -> Provenance:
        """Strict: a missing or odd flag must not quietly make an untrusted record trusted (an episode's)."""
        if not isinstance(obj, Mapping):
            raise ValueError("provenance must be a JSON object")
        untrusted, approved = obj.get("untrusted"), obj.get("user_approved")
        if not isinstance(untrusted, bool) or not isinstance(approved, bool):
            raise ValueError("provenance.untrusted and provenance.user_approved must be booleans")
        return cls(untrusted, strings(obj, "sources", "provenance.sources", required=True), approved)

    @classmethod
    def of_memory(cls, obj: Mapping[str, Any]) -> Provenance:
        """A memory line's flags (kept flat on the line): absent ones mean trusted, as every line was before
        provenance; present ones must be booleans (ValueError), so a garbled flag never reads as trusted."""
        untrusted, approved = obj.get("untrusted", False), obj.get("user_approved", False)
        if not isinstance(untrusted, bool) or not isinstance(approved, bool):
            raise ValueError("untrusted and user_approved must be booleans")
        if not untrusted:
            return TRUSTED
        return cls(True, strings(obj, "sources", "sources"), approved)


TRUSTED = Provenance()


def untrusted_by(sources: Iterable[str]) -> Provenance:
    """What a session that called ``sources`` writes: untrusted, held until approved; trusted when there are none."""
    named = tuple(sorted(set(sources)))
    return Provenance(True, named) if named else TRUSTED


def strings(obj: Mapping[str, Any], key: str, label: str, *, required: bool = False) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{label} must be a list of strings")
    return tuple(value)
