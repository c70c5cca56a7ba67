"""``memproxy mcp``: the MCP server over stdio, for hosts that start a command (Claude Desktop, Cursor, ...).

Two ways to the memory: a running memproxy (``--url``, :mod:`.remote`), or the configured store itself
(:mod:`.direct`). stdout carries the protocol alone: anything this process says goes to stderr.
"""

from __future__ import annotations

from ..memory.caller import Identity
from .server import Memory, build_server


async def serve(memory: Memory, caller: Identity) -> None:
    """Answer the host on stdin/stdout until it closes them."""
    from mcp.server.stdio import stdio_server  # the SDK's: it takes stdin and stdout over for the process

    server = build_server(memory, lambda ctx: caller)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
