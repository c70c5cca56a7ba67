"""The MCP tools and resources over this process's store: what ``/mcp`` serves, and ``memproxy mcp --config``.

A tool call is the hidden tool's own run (:class:`~proxy.tools.memory_tools.MemoryTools`), for the caller, with
origin ``mcp``: its writes are a person's (``Actor.person(caller, via="mcp")``, the key that made them), scanned and
within quotas as every write, and with ``mcp.writes: held`` held for the user's approval like an untrusted
session's (the host's model may have read anything). Resources are read from the same service the chat path uses.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..memory.caller import Identity
from ..memory.provenance import TRUSTED, Provenance
from ..memory.service import MemoryService
from ..tools.memory_tools import NAMES, WRITES, MemoryTools
from .catalog import BLOCK, PINNED

HELD = Provenance(untrusted=True, sources=("mcp",))  # mcp.writes: held
NOTHING_YET = "(no memories yet: a new session would start without a memory block)"


class UnknownResource(LookupError):
    pass


class LocalMemory:
    def __init__(self, tools: MemoryTools, memory: MemoryService, *, writes: str = "trusted") -> None:
        self.tools = tools
        self.memory = memory
        self.provenance = HELD if writes == "held" else TRUSTED

    async def call(self, caller: Identity, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """The tool's JSON result, and whether it is an error (``{"ok": false, ...}``)."""
        if name not in NAMES:
            return orjson.dumps({"ok": False, "error": f"unknown tool {name!r}"}).decode(), True
        provenance = self.provenance if name in WRITES else TRUSTED
        text = await self.tools.run(
            caller, caller.session or "", name, orjson.dumps(arguments).decode(), provenance, origin="mcp"
        )
        return text, text.startswith('{"ok":false')

    async def read(self, caller: Identity, uri: str) -> str:
        if uri == PINNED:
            places = await self.memory.pinned(caller)
            return orjson.dumps({place.scope: place.to_json() for place in places}).decode()
        if uri == BLOCK:
            return await self.memory.preview_block(caller) or NOTHING_YET
        raise UnknownResource(uri)
