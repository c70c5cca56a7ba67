"""What a memory write does with a text, and the checks each class of secret is held to: shared by the scanning
tests of every round."""

from __future__ import annotations

from proxy.scanning import redact, scan


def decide(text: str) -> str:
    """What the write path (records.check_draft) does with `text`: "live", "held" or "refused"."""
    finding = scan(text)
    return "live" if finding is None else "refused" if finding.certain else "held"


def assert_caught_and_redacted(text: str, decision: str, secret: str) -> None:
    """The write is held or refused as `decision` says, its reason never shows `secret`, and redaction masks it so
    that no secret is found in what is left."""
    finding = scan(text)
    assert decide(text) == decision, finding
    assert finding is not None and finding.kind == "secret" and secret not in finding.reason
    masked = redact(text)
    assert secret not in masked and "[redacted]" in masked
    left = scan(masked)
    assert left is None or left.kind != "secret"


def assert_live_and_untouched(text: str) -> None:
    """Stored live, and left as it is by redaction."""
    assert decide(text) == "live", scan(text)
    assert redact(text) == text
