"""Which tools bring outside content into a session: the one matcher episodes, memory writes and details use.

Provenance is an allow-list (DESIGN "Provenance"): a tool is untrusted unless ``extraction.trusted_tools`` names it,
so a tool the proxy has never heard of (``fetch_url_content``, ``use_mcp_tool``, a hosted ``web_search``) taints the
session it is used in. The proxy's own memory tools are always trusted; ``extraction.untrusted_tools`` names tools
that stay untrusted even when trusted (configs written for the old deny-list keep meaning what they said), and
``extraction.untrusted_by_default`` ignores the trusted list altogether.

Agents spell the same tool many ways (``TodoWrite``, ``todo_write``, ``todo-write``), so names are compared by a
key: lower case, without ``_``, ``-``, ``.`` or spaces. A trusted name matches the whole name, or the part after a
harness's own namespace (``functions.apply_patch``, ``default_api:write_file``), never the last part of any other
namespace: ``evil.Edit`` is not Claude Code's ``Edit``. A tool of an MCP server (``server__tool``,
``mcp__server__tool``) is trusted only when listed exactly as it is spelled, so no server can name a tool into a
trusted key (``todo__write`` is not ``TodoWrite``). An untrusted name matches the whole name or its last part,
whatever the namespace. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from ..config import ExtractionSettings

# A tool of an MCP server as adapters name it: `server__tool`, both parts non-empty (so not `__init__`).
MCP_TOOL = re.compile(r"(?:(?!__)[A-Za-z0-9_-])+___*[A-Za-z0-9-][A-Za-z0-9_-]*")
_SEPARATORS = re.compile(r"[\s_.\-]+")
_NAMESPACE = re.compile(r"[./:]")
# Namespaces agent harnesses put their own function tools under (OpenAI's `functions.`, Gemini's `default_api:`).
HARNESS_NAMESPACES = frozenset({"functions", "defaultapi"})


def tool_key(name: str) -> str:
    """``WebFetch``, ``web_fetch``, ``web-fetch`` and ``web.fetch`` are one tool: ``webfetch``."""
    return _SEPARATORS.sub("", name).casefold()


class UntrustedTools:
    def __init__(
        self,
        trusted: Iterable[str] = (),
        *,
        untrusted: Iterable[str] = (),
        by_default: bool = False,
        own: Collection[str] = (),
    ) -> None:
        """``trusted``: tools whose results are their own (allowed); ``untrusted``: tools never trusted, whatever
        ``trusted`` says; ``by_default``: ignore ``trusted``; ``own``: the proxy's own tools, never a source."""
        trusted = tuple(trusted)
        self.trusted = frozenset(tool_key(name) for name in trusted)
        self.exact = frozenset(trusted)  # what an MCP tool must be listed as
        self.untrusted = frozenset(tool_key(name) for name in untrusted)
        self.by_default = by_default
        self.own = frozenset(own)

    @classmethod
    def of(cls, settings: ExtractionSettings, *, own: Collection[str] = ()) -> UntrustedTools:
        return cls(
            settings.trusted_tools,
            untrusted=settings.untrusted_tools,
            by_default=settings.untrusted_by_default,
            own=own,
        )

    def __call__(self, name: str) -> bool:
        if name in self.own:
            return False
        if self.by_default:
            return True
        key = tool_key(name)
        parts = _NAMESPACE.split(name)
        if key in self.untrusted or tool_key(parts[-1]) in self.untrusted:
            return True
        if MCP_TOOL.fullmatch(name):
            return name not in self.exact
        if key in self.trusted:
            return False
        return not (len(parts) == 2 and tool_key(parts[0]) in HARNESS_NAMESPACES and tool_key(parts[1]) in self.trusted)

    def sources(self, names: Iterable[str]) -> tuple[str, ...]:
        """The untrusted ones among ``names``, as they were spelled, sorted and deduplicated."""
        return tuple(sorted({name for name in names if self(name)}))
