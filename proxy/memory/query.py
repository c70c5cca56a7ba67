"""The query a request is ranked by: its newest user message and, weighted less, the conversation before it.

"And what about the second one?" names nothing a memory holds; the turns before it do. So the newest user
message counts in full and the earlier turns as a weighted bag of words: the previous user messages at
``USER_WEIGHT``, the assistant's at ``ASSISTANT_WEIGHT`` (it echoes the user's subject, but also says much
of its own), both fading by ``FADE`` per exchange further back. Only the last ``MAX_EXCHANGES`` count. A term
weighs the most any turn gives it, so a word repeated through the conversation does not pile up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .block import message_text
from .ranking import Query

USER_WEIGHT = 0.5
ASSISTANT_WEIGHT = 0.3
FADE = 0.3
MAX_EXCHANGES = 3
TURN_CHARS = 1000  # of an earlier turn, its start and end: a pasted file or a long answer says little more


def conversation_query(messages: Sequence[dict[str, Any]], newest: int, now: float | None = None) -> Query:
    """The query for ``messages[newest]`` (a user message) in its conversation (a dialect's chat-shaped view);
    ``now`` reads the relative days it names ("yesterday")."""
    texts = [(message_text(messages[newest]), 1.0)]
    back = 0  # user turns passed: an assistant turn belongs to the exchange of the user turn before it
    for position in range(newest - 1, -1, -1):
        role = messages[position].get("role")
        if role == "user":
            back += 1
            weight = USER_WEIGHT * FADE ** (back - 1)
        elif role == "assistant":
            weight = ASSISTANT_WEIGHT * FADE**back
        else:
            continue
        if back + (role == "assistant") > MAX_EXCHANGES:
            break
        text = message_text(messages[position])
        if len(text) > 2 * TURN_CHARS:
            text = text[:TURN_CHARS] + "\n" + text[-TURN_CHARS:]
        if text:
            texts.append((text, weight))
    return Query.weighted(texts, now=now)
