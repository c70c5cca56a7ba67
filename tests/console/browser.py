"""What the browser tests share: a real memproxy process in keys mode (files or PostgreSQL) in front of the session's
fake upstream, Debian's Chromium driven by Playwright (never a downloaded browser), and the stores as another process
sees them, to plant what a test needs and to check what the console did."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import openai
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Request, expect

from proxy.auth.keys import create_key
from proxy.config import Settings, load_settings
from proxy.services import build_episode_store, build_history_store, build_key_store, build_store

from ..conftest import free_port

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright's launch gives it a fresh temporary profile (--user-data-dir)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
T = TypeVar("T")


def run(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """An async store call from a sync test, in a loop of its own on a thread of its own (Playwright's sync API holds
    an event loop on the test's thread)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(lambda: asyncio.run(work())).result()


@dataclass
class Server:
    """A memproxy process: its root URL, its settings as the test's own store access uses them, its environment."""

    root: str
    settings: Settings
    environ: dict[str, str]
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def v1(self) -> str:
        return f"{self.root}/v1"

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "proxy", *args, "--data-dir", self.settings.store.path]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=self.environ)

    def key(self, user: str, kind: str = "personal") -> tuple[str, str]:
        """A new key (its id and the key), once the server knows it (its key ring polls the store)."""

        async def make() -> tuple[str, str]:
            store = build_key_store(self.settings)
            try:
                record, key = await create_key(store, user, kind)
            finally:
                await store.aclose()
            return record.id, key

        key_id, key = run(make)
        wait_until(lambda: self.api(key, "GET", "/memory/memories").status_code == 200, "the server to know the key")
        return key_id, key

    def api(self, key: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"X-Memproxy-Key": key, **kwargs.pop("headers", {})}
        return httpx.request(method, self.root + path, headers=headers, timeout=30, **kwargs)

    def sdk(self, key: str) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=self.v1, api_key="sk-provider", max_retries=0, default_headers={"X-Memproxy-Key": key}
        )

    def stores(self) -> Stores:
        return Stores(self.settings)


@dataclass
class Stores:
    """The server's stores, opened by the test process (another process sharing them, as a replica would)."""

    settings: Settings
    opened: list[Any] = field(default_factory=list)

    async def __aenter__(self) -> Stores:
        self.memories = build_store(self.settings)
        self.episodes = build_episode_store(self.settings)
        self.history = build_history_store(self.settings)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for store in (self.memories, self.episodes, self.history):
            await store.aclose()


def start_server(fake_url: str, data: Path, dsn: str | None, log: Path) -> Server:
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    environ |= {"MEMPROXY_AUTH_MODE": "keys", "MEMPROXY_EXTRACTION_ENABLED": "false"}
    environ |= {"MEMPROXY_UPSTREAM_ANTHROPIC_BASE_URL": fake_url}  # the fake serves /v1/messages too
    overrides: dict[str, Any] = {"store.path": str(data), "auth.mode": "keys", "upstream.anthropic_base_url": fake_url}
    if dsn is not None:
        environ |= {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": dsn}
        overrides |= {"store.backend": "postgres", "store.dsn": dsn}
    command = [
        sys.executable,
        "-m",
        "proxy",
        "serve",
        "--port",
        str(port),
        "--upstream",
        fake_url,
        "--data-dir",
        str(data),
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environ)
    root = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert process.poll() is None, log.read_text()
        try:
            return httpx.get(f"{root}/healthz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    wait_until(healthy, "memproxy to listen")
    return Server(root, load_settings(overrides=overrides), environ, process, log)


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def fresh_user(prefix: str = "ada") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@dataclass
class Watched:
    """A page in a fresh browser context (its own cookies), with what it did that a console page never should:
    dialogs opened, requests to another origin, CSP violations reported."""

    context: BrowserContext
    page: Page
    root: str
    dialogs: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def sign_in(self, key: str) -> None:
        self.page.goto(f"{self.root}/ui/")
        self.page.get_by_label("memproxy key").fill(key)
        self.page.get_by_role("button", name="Sign in").click()
        expect(self.page).to_have_url(re.compile(r"/ui/memories$"))
        self.page.wait_for_load_state("load")  # the console's script (deferred) has run: keys and htmx work

    def goto(self, path: str) -> str:
        """Open a console page; returns its HTML as the server sent it."""
        response = self.page.goto(f"{self.root}{path}")
        assert response is not None
        return response.text()

    @property
    def clean(self) -> bool:
        return not (self.dialogs or self.foreign or self.refused)


@contextmanager
def watched(browser: Browser, root: str, **context: Any) -> Iterator[Watched]:
    """A fresh context and page that records dialogs (dismissed), requests off the console's origin (aborted) and the
    console's reports of what its Content-Security-Policy refused."""
    made = browser.new_context(**context)
    page = made.new_page()
    seen = Watched(made, page, root)

    def dialog(opened: Dialog) -> None:
        seen.dialogs.append(opened.message)
        opened.dismiss()

    def request(sent: Request) -> None:
        if not sent.url.startswith(root + "/"):
            seen.foreign.append(sent.url)

    page.on("dialog", dialog)
    page.on("request", request)
    page.on(
        "console",
        lambda message: seen.refused.append(message.text) if "Content Security Policy" in message.text else None,
    )
    made.route(re.compile(rf"^(?!{re.escape(root)}/).*"), lambda route: route.abort())  # nothing leaves the machine
    try:
        yield seen
    finally:
        made.close()
