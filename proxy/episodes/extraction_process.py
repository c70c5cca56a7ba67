"""The extraction call in a process of its own, so litellm never shares the proxy's event loop, GIL or heap.

In the proxy's process each call held the event loop for 2.5-3 ms (litellm's request building, logging
and cost tracking), its 330,000 objects weighed on every garbage collection, and its first call paused
everything for half a second. Here the proxy only writes a line and reads a line.

The protocol is one JSON object per line over the child's stdin and stdout: first the settings, then
one call per line, each answered by one line. The child never outlives the proxy: it exits when its
stdin closes, or within a second of the proxy's death, even mid-call (``kill -9``). A client's key
travels through the pipe only, never through the command line, the environment or a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

import orjson

from ..config import Settings
from ..logs import configure_logging
from ..pipe.providers import LiteLLMRoute
from .extraction import Answer, ExtractionFailed, LiteLLMExtractor

log = logging.getLogger(__name__)

STARTUP_S = 60.0  # the first call also imports litellm (about 3 s here); a slow disk can take much longer
LINE_LIMIT = 16 * 1024 * 1024  # a transcript is capped at 24,000 characters; an answer at 1,000 tokens


class ProcessExtractor:
    """An :class:`~proxy.episodes.extraction.Extractor` whose calls run in a child process, started on the first one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._child: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The extraction process, while one runs."""
        return None if self._child is None else self._child.pid

    async def extract(
        self,
        messages: list[dict[str, str]],
        *,
        session_model: str | None,
        client_key: str | None,
        api: str = "chat",
        key_header: str = "authorization",
    ) -> Answer:
        call = {
            "messages": messages,
            "session_model": session_model,
            "client_key": client_key,
            "api": api,
            "key_header": key_header,
        }
        async with self._lock:  # one call at a time: a line out, a line back
            child = self._child or await self._start()
            assert child.stdin is not None and child.stdout is not None
            try:
                child.stdin.write(orjson.dumps(call) + b"\n")
                await child.stdin.drain()
                line = await asyncio.wait_for(child.stdout.readline(), self.settings.upstream.timeout_s + STARTUP_S)
            except BaseException as exc:  # a timeout, a dead pipe or a cancel: the next call starts afresh
                await self._stop()
                if isinstance(exc, TimeoutError):
                    raise ExtractionFailed("the extraction process did not answer in time") from exc
                if isinstance(exc, ConnectionError):
                    raise ExtractionFailed("the extraction process exited") from exc
                raise
            if not line:
                code = await child.wait()
                self._child = None
                raise ExtractionFailed(f"the extraction process exited with code {code}")
            try:
                reply = orjson.loads(line)
            except orjson.JSONDecodeError as exc:  # out of step with us: start afresh
                await self._stop()
                raise ExtractionFailed("the extraction process answered out of turn") from exc
        return _answer(reply)

    async def _start(self) -> asyncio.subprocess.Process:
        self._child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", __name__,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=LINE_LIMIT,
        )  # fmt: skip
        assert self._child.stdin is not None
        self._child.stdin.write(self.settings.model_dump_json().encode() + b"\n")
        log.info("extraction process %d started", self._child.pid)
        return self._child

    async def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None or child.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()

    async def aclose(self) -> None:
        """Close the child's stdin, which ends it; kill it if it is still in a call a second later."""
        child = self._child
        if child is None:
            return
        if child.stdin is not None:
            child.stdin.close()
        try:
            await asyncio.wait_for(child.wait(), 1.0)
        except TimeoutError:
            await self._stop()
        self._child = None


def _answer(reply: dict[str, Any]) -> Answer:
    if "error" in reply:
        raise ExtractionFailed(reply["error"], upstream_status=reply.get("upstream_status"), keyless=reply["keyless"])
    return Answer(reply["text"], reply["model"], reply["prompt_tokens"], reply["completion_tokens"])


# -- the child ---------------------------------------------------------------------------------------------------


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the proxy ends us by closing stdin
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True).start()
    lines, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever a library prints must not corrupt the replies
    settings = Settings.model_validate_json(lines.readline())
    configure_logging(settings.server.log_level)
    extractor = LiteLLMExtractor(settings, LiteLLMRoute.of(settings.upstream))
    loop = asyncio.new_event_loop()  # one loop for the child's life: litellm caches clients bound to it
    for line in lines:
        reply = replied(loop, extractor, orjson.loads(line))
        try:
            out.write(orjson.dumps(reply) + b"\n")
            out.flush()
        except BrokenPipeError:  # the proxy is gone
            return


def replied(loop: asyncio.AbstractEventLoop, extractor: LiteLLMExtractor, call: dict[str, Any]) -> dict[str, Any]:
    """The reply line to one call: the answer, or the error the proxy raises as :class:`ExtractionFailed`."""
    try:
        answer = loop.run_until_complete(extractor.extract(**call))
    except ExtractionFailed as exc:
        return {"error": exc.message, "upstream_status": exc.upstream_status, "keyless": exc.keyless}
    except Exception as exc:  # noqa: BLE001 - the proxy retries the job; this process lives on
        log.exception("extraction call failed")
        return {"error": f"extraction failed: {type(exc).__name__}", "upstream_status": None, "keyless": False}
    return {
        "text": answer.text,
        "model": answer.model,
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
    }


def _exit_with(proxy: int) -> None:
    """Mid-call the closed stdin goes unseen until the call returns: a proxy killed outright is noticed here."""
    while os.getppid() == proxy:
        time.sleep(0.5)
    os._exit(0)


if __name__ == "__main__":
    main()
