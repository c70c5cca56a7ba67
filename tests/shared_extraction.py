"""One extraction process per test worker, for every proxy the worker runs in-process.

Each proxy's own extraction process (`ProcessExtractor`) imports litellm on its first call: 3 s of CPU, 6 s on a
loaded machine, in every test whose session ends in an extraction, once per proxy it starts. Here the worker's
in-process proxies send their calls to one process that has imported it once. That process runs the real
`LiteLLMExtractor` against the real fake upstream over a socket, as the proxy's would, one extractor per settings.
What is particular to `ProcessExtractor` (a child per proxy, started on the first call, restarted after it dies,
ended at shutdown, litellm never in the proxy's process) is tested on it in tests/episodes/test_extraction_process.py,
and by the tests that start `memproxy serve` as a process of its own, which these stand-ins never reach.

Protocol: one JSON line per call, ``[settings JSON, call]``, answered by one line as `ProcessExtractor`'s child does.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import orjson

from proxy.config import Settings
from proxy.episodes.extraction import Answer, ExtractionFailed
from proxy.episodes.extraction_process import STARTUP_S, _answer

ROOT = Path(__file__).resolve().parents[1]


class SharedProcess:
    """The worker's extraction process, started on the first call; calls from any thread, one at a time."""

    def __init__(self) -> None:
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def call(self, line: bytes, timeout_s: float) -> dict[str, Any]:
        with self._lock:
            child = self._child if self._child is not None and self._child.poll() is None else self._start()
            stdin, stdout = child.stdin, child.stdout
            assert stdin is not None and stdout is not None
            try:
                stdin.write(line + b"\n")
                stdin.flush()
                reply = _read_line(stdout, timeout_s)
            except (OSError, TimeoutError) as exc:
                self._stop()
                raise ExtractionFailed(f"the shared extraction process failed: {type(exc).__name__}") from exc
            if not reply:
                self._stop()
                raise ExtractionFailed("the shared extraction process exited")
            return dict(orjson.loads(reply))

    def _start(self) -> subprocess.Popen[bytes]:
        self._stop()
        self._child = subprocess.Popen(
            [sys.executable, "-m", "tests.shared_extraction"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        return self._child

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.kill()
            _closed(child)

    def close(self) -> None:
        with self._lock:
            child, self._child = self._child, None
        if child is None:
            return
        assert child.stdin is not None
        child.stdin.close()  # which ends it
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()
        _closed(child)


def _closed(child: subprocess.Popen[bytes]) -> None:
    """Wait for an ended (or killed) process and close its pipes."""
    child.wait()
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            pipe.close()


def _read_line(stream: IO[bytes], timeout_s: float) -> bytes:
    if not select.select([stream], [], [], timeout_s)[0]:
        raise TimeoutError
    return stream.readline()


SHARED = SharedProcess()


class SharedExtractor:
    """An `Extractor` for one proxy, whose calls go to the worker's `SHARED` process (built as `ProcessExtractor`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._settings_json = settings.model_dump_json()

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
        line = orjson.dumps([self._settings_json, call])
        timeout_s = self.settings.upstream.timeout_s + STARTUP_S
        return _answer(await asyncio.to_thread(SHARED.call, line, timeout_s))

    async def aclose(self) -> None:
        pass


# -- the process ---------------------------------------------------------------------------------------------------


def main() -> None:
    from proxy.episodes.extraction import LiteLLMExtractor
    from proxy.episodes.extraction_process import _exit_with, replied
    from proxy.pipe.providers import LiteLLMRoute

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True).start()
    lines, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    extractors: dict[str, LiteLLMExtractor] = {}
    loop = asyncio.new_event_loop()  # one loop for the process's life, as the proxy's child has
    for line in lines:
        settings_json, call = orjson.loads(line)
        extractor = extractors.get(settings_json)
        if extractor is None:
            settings = Settings.model_validate_json(settings_json)
            extractor = extractors[settings_json] = LiteLLMExtractor(settings, LiteLLMRoute.of(settings.upstream))
        try:
            out.write(orjson.dumps(replied(loop, extractor, call)) + b"\n")
            out.flush()
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
