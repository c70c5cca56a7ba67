"""What a conversation shows of the tools that fed it: the names provenance judges (DESIGN "Provenance").

Read from the chat-shaped view every dialect gives (:mod:`proxy.dialects.base`): every tool called, whatever role
carries the call; every result, by the name its message gives; what a dialect marked as content the proxy cannot
attribute to a call in sight (``outside``: an Anthropic server tool's result without its call, an ``item_reference``,
an encrypted compaction, an item type it does not know); and :data:`UNSEEN_CALL` for a result whose call is not in
the conversation before it, nor among the calls a chained request's stored answer made (``known``). What the proxy
cannot see it cannot vouch for: such a result counts as outside content. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..memory.provenance import UNSEEN_CALL
from .transcript import called_names

__all__ = ["UNSEEN_CALL", "tools_seen"]

RESULT_ROLES = frozenset({"tool", "function"})


def tools_seen(messages: Sequence[dict[str, Any]], start: int = 0, known: Collection[str] = ()) -> set[str]:
    """The tools ``messages[start:]`` show (the earlier ones were looked at before); ``known``: ids of calls made
    where the conversation does not show them (a chained request's stored answer)."""
    names: set[str] = set()
    for index in range(start, len(messages)):
        message = messages[index]
        if not isinstance(message, dict):
            continue
        if "tool_calls" in message or "function_call" in message:
            names.update(called_names(message))
        if message.get("role") in RESULT_ROLES:
            name = message.get("name")
            if isinstance(name, str) and name:
                names.add(name)
            if not _called(messages, index, message, known):
                names.add(UNSEEN_CALL)
        outside = message.get("outside")
        if outside:
            names.update(name for name in outside if isinstance(name, str) and name)
    return names


def _called(messages: Sequence[dict[str, Any]], index: int, result: dict[str, Any], known: Collection[str]) -> bool:
    """Whether the call a result answers is in sight: before it in the conversation (looked for backwards: it is
    almost always the message just before the results), or among ``known``."""
    call_id = result.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        if call_id in known:
            return True
        return any(_makes(messages[i], call_id) for i in range(index - 1, -1, -1))
    name = result.get("name")  # a legacy `function` result names its function, not a call
    if result.get("role") != "function" or not isinstance(name, str) or not name:
        return False
    return any(_calls_function(messages[i], name) for i in range(index - 1, -1, -1))


def _makes(message: Any, call_id: str) -> bool:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    calls = message.get("tool_calls")
    return isinstance(calls, list) and any(isinstance(call, dict) and call.get("id") == call_id for call in calls)


def _calls_function(message: Any, name: str) -> bool:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return False
    legacy = message.get("function_call")
    return isinstance(legacy, dict) and legacy.get("name") == name
