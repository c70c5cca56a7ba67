"""Where a memory or an episode came from, as the proxy saw it on the wire: never as a model said.

A session that took in outside content (a web page, a file, an MCP tool's result) is *untrusted*: whatever it
writes may be an attacker's text. Such writes are kept, with the tools that made them untrusted (``sources``),
but *held*: never injected, searched or allowed to replace a trusted memory, until a person approves them.
Approval keeps the record of where the text came from (``untrusted`` and ``sources`` stay) and adds
``user_approved``, so an audit can still tell an approved memory from one that was never in doubt.

A memory whose text only looks like a secret or an instruction to the assistant (the scanner's suspect findings,
:mod:`proxy.scanning`) is held the same way, whoever wrote it, with the scanner's ``reason``: a person approves it
or deletes it, instead of the write being refused and the memory lost, or stored live.

Every memory also records its ``origin``: the way in that wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

# The ways a memory is written: the management API, the model's memory_store, an episode's facts, an import
# (API or CLI), the CLI's `memories add` and an MCP host's memory_store (/mcp, `memproxy mcp`). A line stored before
# origins were recorded loads as `api`.
ORIGINS = ("api", "tool", "extraction", "import", "cli", "mcp")
# The source of a tool result whose call the proxy never saw: what it cannot see it cannot vouch for. No tool can be
# named so (tool names are letters, digits, `_` and `-`), though extraction.trusted_tools may name it to trust them.
UNSEEN_CALL = "(unseen call)"


@dataclass(frozen=True, slots=True)
class Provenance:
    untrusted: bool = False
    sources: tuple[str, ...] = ()  # the untrusted tools the writing session called
    user_approved: bool = False
    reason: str | None = None  # why the scanner held its text (a suspect finding); never the text itself

    @property
    def replayable(self) -> bool:
        """May reach a prompt or a search result: nothing untrusted or suspect went in, or a person approved it."""
        return (not self.untrusted and self.reason is None) or self.user_approved

    @property
    def held(self) -> bool:
        return not self.replayable

    def approved(self) -> Provenance:
        return replace(self, user_approved=True)

    def flagged(self, reason: str) -> Provenance:
        """Held for the scanner's ``reason`` too. A reason the record already carries keeps its approval: an export
        of a memory a person approved imports approved."""
        return self if self.reason == reason else replace(self, reason=reason, user_approved=False)

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
        provenance; present ones must be booleans (ValueError), so a garbled flag never reads as trusted; a
        ``reason`` the scanner held it for, a string."""
        untrusted, approved, reason = obj.get("untrusted", False), obj.get("user_approved", False), obj.get("reason")
        if not isinstance(untrusted, bool) or not isinstance(approved, bool):
            raise ValueError("untrusted and user_approved must be booleans")
        if reason is not None and not isinstance(reason, str):
            raise ValueError("reason must be a string")
        if not untrusted and reason is None:
            return TRUSTED
        return cls(untrusted, strings(obj, "sources", "sources") if untrusted else (), approved, reason)


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


def held_reasons(provenance: Provenance) -> list[str]:
    """Why a held record waits, as the person reviewing it and the model writing it are told: the scanner's reason
    and the session's untrusted sources, both where both hold it."""
    reasons = [provenance.reason] if provenance.reason is not None else []
    if provenance.untrusted or not reasons:
        sources = f" ({', '.join(provenance.sources)})" if provenance.sources else ""
        reasons.append(f"this session took in untrusted content{sources}")
    return reasons
