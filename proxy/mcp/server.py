"""memproxy's MCP server on the official SDK's low-level ``Server``: the catalog's tools, resources and prompt, each
call answered by a backend (:class:`Memory`): this process's store, or a running memproxy's ``/mcp``.

Whose memory a call is about is ``who(ctx)``: over HTTP the caller the ``/mcp`` endpoint authenticated (in the
ASGI scope the SDK hands on as ``ctx.request``), over stdio the one the command was started for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from .. import __version__
from ..memory.caller import Identity
from . import catalog

Context = ServerRequestContext[Any, Any]
Who = Callable[[Context], Identity | None]


class Memory(Protocol):
    async def call(self, caller: Identity, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """A tool's JSON result and whether it is an error."""
        ...

    async def read(self, caller: Identity, uri: str) -> str:
        """A resource's text; ``LookupError`` for an unknown one."""
        ...


def build_server(memory: Memory, who: Who) -> Server[Any]:
    def caller(ctx: Context) -> Identity:
        found = who(ctx)
        if found is None:
            raise MCPError(types.INVALID_REQUEST, "memproxy does not know whose memory this is")
        return found

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=tool.name, description=tool.description, input_schema=tool.input_schema)
                for tool in catalog.tools()
            ]
        )

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        text, failed = await memory.call(caller(ctx), params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)

    async def list_resources(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=entry.uri, name=entry.name, description=entry.description, mime_type=entry.mime_type)
                for entry in catalog.RESOURCES
            ]
        )

    async def read_resource(ctx: Context, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        entry = next((entry for entry in catalog.RESOURCES if entry.uri == str(params.uri)), None)
        if entry is None:
            raise MCPError(
                types.INVALID_PARAMS, f"no resource {params.uri}: memproxy has memory://pinned and memory://block"
            )
        text = await memory.read(caller(ctx), entry.uri)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=entry.uri, mime_type=entry.mime_type, text=text)]
        )

    async def list_prompts(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=catalog.PROMPT, description="How to use memproxy's memory tools and resources")]
        )

    async def get_prompt(ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != catalog.PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name!r}: memproxy has {catalog.PROMPT!r}")
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=catalog.PROMPT_TEXT))
        return types.GetPromptResult(description="How to use memproxy's memory", messages=[message])

    server: Server[Any] = Server(
        catalog.SERVER_NAME,
        version=__version__,
        instructions=catalog.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    server.middleware = []  # the SDK's OpenTelemetry span per message: nothing here exports spans
    return server
