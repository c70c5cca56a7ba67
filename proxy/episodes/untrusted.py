"""Which tools bring outside content into a session: the one matcher episodes and memory writes both use.

Agents spell the same tool many ways (``web_fetch``, ``WebFetch``, ``web-fetch``, ``functions.web_fetch``), so
names are compared by a key: lower case, without ``_``, ``-``, ``.`` or spaces, whole or as the part after the
last namespace dot, slash or colon. Every MCP tool (``server__tool``, ``mcp__server__tool``) is untrusted: what a
server returns is not the user's word. With ``extraction.untrusted_by_default``, every tool is, except the
proxy's own memory tools. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from ..config import ExtractionSettings

# A tool of an MCP server as adapters name it: `server__tool`, both parts non-empty (so not `__init__`).
MCP_TOOL = re.compile(r"(?:(?!__)[A-Za-z0-9_-])+___*[A-Za-z0-9-][A-Za-z0-9_-]*")
_SEPARATORS = re.compile(r"[\s_.\-]+")
_NAMESPACE = re.compile(r"[./:]")


def tool_key(name: str) -> str:
    """``WebFetch``, ``web_fetch``, ``web-fetch`` and ``web.fetch`` are one tool: ``webfetch``."""
    return _SEPARATORS.sub("", name).casefold()


class UntrustedTools:
    def __init__(self, names: Iterable[str], *, by_default: bool = False, trusted: Collection[str] = ()) -> None:
        """``names``: tools whose results come from outside; ``trusted``: the proxy's own tools, never a source."""
        self.keys = frozenset(tool_key(name) for name in names)
        self.by_default = by_default
        self.trusted = frozenset(trusted)

    @classmethod
    def of(cls, settings: ExtractionSettings, *, trusted: Collection[str] = ()) -> UntrustedTools:
        return cls(settings.untrusted_tools, by_default=settings.untrusted_by_default, trusted=trusted)

    def __call__(self, name: str) -> bool:
        if name in self.trusted:
            return False
        if self.by_default or MCP_TOOL.fullmatch(name):
            return True
        return tool_key(name) in self.keys or tool_key(_NAMESPACE.split(name)[-1]) in self.keys

    def sources(self, names: Iterable[str]) -> tuple[str, ...]:
        """The untrusted ones among ``names``, as they were spelled, sorted and deduplicated."""
        return tuple(sorted({name for name in names if self(name)}))
