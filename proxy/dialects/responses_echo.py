"""The proxy's tools as an upstream echoes them, cut from a Responses event's bytes before it is parsed.

A Responses stream's start and end events repeat the request's tools, the proxy's among them, which the client
must never see. Parsing the whole echo to take them out, then writing it again, costs more than all the small
events of a short answer together. An upstream echoes the same tools in the same bytes every time, so the first
echo read whole teaches them (what orjson writes for the proxy's tools, found once in the event, as the tail of a
list), and later events have them cut out of their bytes: less to parse, and, when that was the only edit,
nothing to write again. The client then gets the upstream's own bytes without the proxy's tools.

A cut is a guess about bytes: the splitter keeps it only when what is left parses to an event of the same kind
whose tools hold none of the proxy's (:func:`holds_proxy_tools`), and reads the event whole otherwise.
"""

from __future__ import annotations

from typing import Any

import orjson

from .responses_items import is_proxy_tool

_NEEDLES_PER_SET = 4  # echoes kept for one set of tools (one upstream writes one; a few models may differ)
_SETS = 32  # sets of tools kept (which of the memory tools a request gets differs little)
_TOOLS_OPEN = b'"tools":['
_HEAD = 64  # bytes of an echo looked for


class ToolEchoes:
    """The bytes upstreams echoed the proxy's tools as, by which tools they were."""

    def __init__(self) -> None:
        self._known: dict[frozenset[str], list[bytes]] = {}

    def learn(self, response: Any, data: bytes, hidden: frozenset[str]) -> None:
        """Keep how ``data`` (an event read whole) echoes the proxy's tools, when they are its tools' tail and
        found in its bytes as orjson writes them, once."""
        tools = response.get("tools") if isinstance(response, dict) else None
        if not hidden or not isinstance(tools, list) or len(tools) < len(hidden):
            return
        tail = tools[len(tools) - len(hidden) :]
        if not all(is_proxy_tool(tool, hidden) for tool in tail):
            return
        needle = b",".join(orjson.dumps(tool) for tool in tail)
        known = self._known.get(hidden)
        if (known is not None and needle in known) or cut_out(data, needle) is None:
            return
        if known is None:
            if len(self._known) >= _SETS:
                del self._known[next(iter(self._known))]
            known = self._known[hidden] = []
        known.insert(0, needle)
        del known[_NEEDLES_PER_SET:]

    def knows(self, hidden: frozenset[str]) -> bool:
        return hidden in self._known

    def cut(self, data: bytes, hidden: frozenset[str]) -> bytes | None:
        """``data`` without the proxy's tools' echo, when a known one is found where a list of tools ends."""
        for needle in self._known.get(hidden, ()):
            without = cut_out(data, needle)
            if without is not None:
                return without
        return None


def cut_out(data: bytes, needle: bytes) -> bytes | None:
    """``data`` without ``needle``, when it is found once and closes a list: whole elements at a list's end.

    Looked for by its head: a search prepares its needle each time, a cost that grows with it (two-way search), and
    an echo's is over a kilobyte. Twice is checked by the head too, the stricter test.
    """
    head = needle[:_HEAD]
    at = data.find(head)
    if at < 0 or not data.startswith(needle, at):
        return None
    end = at + len(needle)
    if data[end : end + 1] != b"]" or data.find(head, end) >= 0:
        return None
    if data[at - 1 : at] == b",":
        return data[: at - 1] + data[end:]
    if data.endswith(_TOOLS_OPEN, 0, at):
        return data[:at] + data[end:]
    return None


def holds_proxy_tools(event: dict[str, Any], hidden: frozenset[str]) -> bool:
    """Whether an event's response still echoes any of the proxy's tools (a cut that missed them)."""
    response = event.get("response")
    tools = response.get("tools") if isinstance(response, dict) else None
    return isinstance(tools, list) and any(is_proxy_tool(tool, hidden) for tool in tools)


ECHOES = ToolEchoes()  # the process's: every stream after the first one cuts what that one taught
