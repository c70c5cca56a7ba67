"""The context step of a request: earlier turns' large tool outputs offloaded, old turns windowed (opt-in).

Runs once per request, after memory is placed and before the tool loop, on the dialect's chat-shaped view, so
it is written once for every wire format (:mod:`proxy.context` plans, the dialect applies). What it changes
only ever goes upstream: the client's conversation, sessions, provenance and transcripts read what the
client sent.

Offloaded outputs are written durably before the placeholder goes upstream (the model may ask for one in the
same request): files fsynced, or a committed row. A detail is content-addressed, so writing it again is a
no-op; this process remembers which it wrote for ``KNOWN_S`` (after that, or a forget-all, it writes again),
so a long conversation pays its outputs' redaction and write once, not per request. When the write fails or
takes longer than ``WRITE_DEADLINE_S``, the outputs go whole (fail open), and the next request tries again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ..config import ContextSettings
from ..context.clock import TurnClock
from ..context.edits import ContextEdits
from ..context.offload import ToolOutput, describe, offloadable, placeholder
from ..context.window import buffer_line, message_text, overview, pair_safe, turn_starts, turns_to_drop
from ..dialects.base import Dialect
from ..dialects.views import View
from ..memory.caller import Identity
from ..memory.details import Detail, DetailStore, detail_id
from ..memory.provenance import UNSEEN_CALL
from ..memory.store import Owner
from ..scanning import redact

log = logging.getLogger("proxy.context")

HEADER = b"x-memproxy-context"
WRITE_DEADLINE_S = 2.0
KNOWN_S = 300.0  # how long a written detail is taken as still there (a forget-all elsewhere is caught after it)
MAX_KNOWN = 100_000

_Key = tuple[str, str, str]  # user, workspace, detail id


class ContextTiers:
    def __init__(
        self,
        settings: ContextSettings,
        details: DetailStore | None,
        untrusted: Callable[[str], bool],
        keep: Collection[str] = (),
    ) -> None:
        """``untrusted``: whether a tool brings outside content in; ``keep``: tools whose results stay (the proxy's)."""
        self.settings = settings
        self.details = details
        self.untrusted = untrusted
        self.keep = frozenset(keep)
        self.clock = TurnClock()
        self._written: OrderedDict[_Key, tuple[float, int]] = OrderedDict()  # -> (when, stored length)

    @property
    def enabled(self) -> bool:
        return (self.settings.offload_chars is not None and self.details is not None) or (
            self.settings.window_turns is not None
        )

    async def rewrite(
        self, dialect: Dialect, sent: dict[str, Any], payload: dict[str, Any], caller: Identity, session: str
    ) -> tuple[dict[str, Any], list[tuple[bytes, bytes]]]:
        """``payload`` as it goes upstream, and the header saying what changed. ``sent``: the request before
        memory was placed in it, whose user messages the overview quotes."""
        if not self.enabled:
            return payload, []
        viewed = dialect.context_view(payload)
        cut, summary, dropped = 0, None, 0
        if self.settings.window_turns is not None:
            cut, summary, dropped = self._window(dialect, sent, viewed, caller, session)
        replacements: dict[int, str] = {}
        if self.settings.offload_chars is not None and self.details is not None:
            outputs = offloadable(viewed.messages, self.settings.offload_chars, keep=self.keep)
            found = [output for output in outputs if output.index >= cut]  # dropped turns' outputs go nowhere
            if found:
                replacements = await self._offload(Owner(caller.user, caller.workspace), session, found)
        header = f"offloaded={len(replacements)}; windowed={dropped}".encode()
        edits = ContextEdits(replacements, cut, summary)
        return dialect.rewrite_context(payload, edits), [(HEADER, header)]

    def forget(self, user: str, workspace: str) -> None:
        """After a forget-all: nothing written before counts as there any more."""
        for key in [key for key in self._written if key[:2] == (user, workspace)]:
            del self._written[key]
        self.clock.forget(user, workspace)

    # -- window ---------------------------------------------------------------------------------------------

    def _window(
        self, dialect: Dialect, sent: dict[str, Any], viewed: View, caller: Identity, session: str
    ) -> tuple[int, str | None, int]:
        """Where the kept conversation starts, the overview of what went, and how many turns went."""
        assert self.settings.window_turns is not None
        starts = turn_starts(viewed.messages, viewed.positions)
        # The turns as the client sent them (memory's notes not yet in them), for their times and first words.
        source = dialect.context_view(sent)
        source_starts = turn_starts(source.messages, source.positions)
        if len(source_starts) != len(starts):
            source, source_starts = viewed, starts
        users = [source.messages[index] for index in source_starts]
        times = self.clock.times((caller.user, caller.workspace, session), users, time.time())
        drop = pair_safe(viewed.messages, starts, turns_to_drop(len(starts), self.settings.window_turns))
        if drop == 0:
            return 0, None, 0
        lines = [buffer_line(times[k], "user", message_text(users[k].get("content"))) for k in range(drop)]
        return starts[drop], overview(lines), drop

    # -- offload --------------------------------------------------------------------------------------------

    async def _offload(self, owner: Owner, session: str, found: Sequence[ToolOutput]) -> dict[int, str]:
        assert owner.user is not None and owner.workspace is not None and self.details is not None
        now = time.monotonic()
        refs = [detail_id(owner, output.content) for output in found]
        lengths: dict[str, int] = {}
        new: dict[str, ToolOutput] = {}
        for output, ref in zip(found, refs, strict=True):
            known = self._written.get((owner.user, owner.workspace, ref))
            if known is not None and now - known[0] < KNOWN_S:
                lengths[ref] = known[1]
            else:
                new.setdefault(ref, output)
        if new:
            details = await asyncio.to_thread(self._details, new, session)
            try:
                async with asyncio.timeout(WRITE_DEADLINE_S):
                    await self.details.put(owner, details)
            except Exception as exc:  # noqa: BLE001 - fail open: the outputs go whole this time
                log.warning("tool outputs sent whole: the detail store failed: %s", exc or type(exc).__name__)
            else:
                for detail in details:
                    lengths[detail.id] = len(detail.content)
                    self._remember((owner.user, owner.workspace, detail.id), now, len(detail.content))
        replacements = {}
        for output, ref in zip(found, refs, strict=True):
            if ref in lengths:
                description = describe(output.tool, redact(output.arguments))
                replacements[output.index] = placeholder(ref, description, lengths[ref])
        return replacements

    def _details(self, outputs: dict[str, ToolOutput], session: str) -> list[Detail]:
        """The new details, secrets redacted (in a thread: scanning 40 KB takes a while)."""
        created = time.time()
        details = []
        for ref, output in outputs.items():
            untrusted = not output.tool or self.untrusted(output.tool)  # an output of an unseen call: outside
            sources = ((output.tool or UNSEEN_CALL),) if untrusted else ()
            content, arguments = redact(output.content), redact(output.arguments)
            details.append(Detail(ref, output.tool, arguments, content, created, untrusted, sources, session or None))
        return details

    def _remember(self, key: _Key, now: float, length: int) -> None:
        self._written.pop(key, None)
        self._written[key] = (now, length)
        while len(self._written) > MAX_KNOWN:
            self._written.popitem(last=False)
