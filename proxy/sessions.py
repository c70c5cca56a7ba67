"""Which requests form a session: the ``X-Memory-Session`` header, else a fingerprint of the opening.

A client resends the whole conversation each turn, so its opening messages (the instructions and
the first user message) are the same on every request of one conversation and name it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

INSTRUCTION_ROLES = frozenset({"system", "developer"})


def derive_session_id(messages: list[dict[str, Any]]) -> str:
    opening: list[Any] = []
    for message in messages:
        opening.append([message.get("role"), message.get("content")])
        if message.get("role") not in INSTRUCTION_ROLES:
            break
    digest = hashlib.sha256(orjson.dumps(opening, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"fp-{digest[:24]}"
