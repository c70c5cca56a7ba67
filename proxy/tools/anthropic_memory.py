"""Anthropic's memory tool, run by the proxy: a model's ``memory`` call in, the reference implementation's text out.

The command runs against the caller's ``/memories`` directory in the store (:class:`~proxy.memory.file_service.
FileService`), with the session's provenance: in a session that took in untrusted content a write is held as a
proposal for the user's approval, and its result says so after the reference's text. A call that cannot be carried
out is a :class:`~proxy.dialects.base.ToolFailure` (``is_error`` in the ``tool_result``), as the reference's tool
runner reports a ``ToolError``; a store that is down is one too, never the request's end.
"""

from __future__ import annotations

import logging

import orjson

from ..dialects.base import ToolFailure
from ..errors import ProxyError
from ..memory.caller import Identity
from ..memory.file_commands import CommandError
from ..memory.file_service import FileService
from ..memory.provenance import TRUSTED, Provenance

log = logging.getLogger("proxy.memory.tools")


class AnthropicMemoryTool:
    def __init__(self, files: FileService) -> None:
        self.files = files

    async def run(self, caller: Identity, session: str, arguments: str, provenance: Provenance = TRUSTED) -> str:
        try:
            args = orjson.loads(arguments) if arguments.strip() else {}
            if not isinstance(args, dict):
                return ToolFailure("The memory tool's input must be a JSON object with a `command`")
            return await self.files.run(caller, session or None, args, provenance)
        except orjson.JSONDecodeError:
            return ToolFailure("The memory tool's input is not valid JSON")
        except CommandError as exc:
            return ToolFailure(str(exc))
        except ProxyError as exc:
            return ToolFailure(f"The memory directory is unavailable right now: {exc.message}")
        except Exception:  # noqa: BLE001 - a tool failure is the model's to read, never the request's end
            log.exception("the memory tool failed")
            return ToolFailure("The memory directory is unavailable right now")
