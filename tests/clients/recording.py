"""Real clients' requests, recorded once and replayed through a real proxy without the clients.

A recording is what the fake upstream received from a client pointed straight at it (``GET /_fake/requests``),
turned into a fixture by :func:`fixture`: the POSTs only, each with its path, query, the headers that describe the
client (never a credential) and its JSON body. What is machine-specific goes: paths under the recording's home and
working directory, device and installation ids, the kernel and OS versions. Long texts (system prompts, tool
descriptions) are cut the same way wherever they occur, so a text repeated across requests stays byte-identical:
the shapes (roles, blocks, cache markers and where they sit, items, tools) are the client's own.

To record again (a new client version): start the fake upstream, ``python -m proxy.testing --port 9311``, script
its answers (``POST /_fake/replies``, the replies test_replayed.py gives), and run the client against it in a
scratch HOME and working directory: Claude Code with ``ANTHROPIC_BASE_URL=http://127.0.0.1:9311`` and any
``ANTHROPIC_API_KEY``, Codex with a model provider in ``$HOME/.codex/config.toml`` whose ``base_url`` is
``http://127.0.0.1:9311/v1``. Say the user lines test_replayed.py expects (``SAID``), then save
``GET /_fake/requests`` as DUMP.json and::

    python -m tests.clients.recording DUMP.json tests/clients/fixtures/NAME.json --home H --work W --client "..."
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HOME, WORK = "/home/ada", "/home/ada/project"
LONG, CUT = 1500, 800  # a text longer than LONG is cut to its first CUT characters...
TOOL_LONG, TOOL_CUT = 160, 120  # ...and in the tools' descriptions and schemas, these
# The headers that say which client spoke and how; credentials, hosts and sizes never go in a fixture.
KEPT_HEADERS = frozenset(
    {
        "user-agent",
        "accept",
        "content-type",
        "anthropic-beta",
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "x-app",
        "x-claude-code-session-id",
        "originator",
        "session-id",
        "thread-id",
        "x-client-request-id",
        "x-codex-beta-features",
        "x-codex-window-id",
        "x-codex-turn-metadata",
    }
)
MACHINE = [
    (re.compile(r"\b[0-9a-f]{64}\b"), "0" * 64),  # Claude Code's device id
    (re.compile(r"Linux \d+\.\d+[^\s\"',;)]*"), "Linux 6.1.0"),  # the kernel
    (re.compile(r"\((Debian|Ubuntu|Fedora|Alpine)[^;)]*;"), "(Linux;"),  # Codex's user agent
]
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


@dataclass(frozen=True)
class Recorded:
    """One request a client sent."""

    path: str
    query: str
    headers: dict[str, str]
    json: dict[str, Any]

    @property
    def body(self) -> bytes:
        return orjson.dumps(self.json)


def load(name: str) -> list[Recorded]:
    data = orjson.loads((FIXTURES / name).read_bytes())
    return [Recorded(r["path"], r["query"], r["headers"], r["json"]) for r in data["requests"]]


def fixture(dump: dict[str, Any], home: str, work: str, client: str) -> dict[str, Any]:
    """A recording (``GET /_fake/requests``) as a fixture: see the module's docstring."""

    ids: dict[str, str] = {}  # each session, thread, installation and item id: one made-up id, the same everywhere

    def made_up(match: re.Match[str]) -> str:
        return ids.setdefault(match.group(0), f"00000000-0000-4000-8000-{len(ids) + 1:012d}")

    def clean(text: str, long: int = LONG, cut: int = CUT) -> str:
        text = text.replace(work, WORK).replace(home, HOME)
        for pattern, replacement in MACHINE:
            text = pattern.sub(replacement, text)
        text = UUID.sub(made_up, text)
        if len(text) > long:
            text = f"{text[:cut]}[... {len(text) - cut} characters cut from the recording ...]"
        return text

    def clean_tool(text: str) -> str:
        return clean(text, TOOL_LONG, TOOL_CUT)

    requests = []
    for seen in dump["requests"]:
        if seen["method"] != "POST" or not isinstance(seen.get("json"), dict):
            continue
        headers = {name: clean(value) for name, value in seen["headers"].items() if name in KEPT_HEADERS}
        body = {key: _walk(value, clean_tool if key == "tools" else clean) for key, value in seen["json"].items()}
        requests.append({"path": seen["path"], "query": seen["query"], "headers": headers, "json": body})
    return {"client": client, "requests": requests}


def _walk(node: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(node, str):
        return clean(node)
    if isinstance(node, list):
        return [_walk(item, clean) for item in node]
    if isinstance(node, dict):
        return {key: _walk(value, clean) for key, value in node.items()}
    return node


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Turn a fake upstream's recording into a client fixture.")
    parser.add_argument("dump", type=Path, help="what GET /_fake/requests returned")
    parser.add_argument("out", type=Path)
    parser.add_argument("--home", required=True, help="the HOME the client ran with")
    parser.add_argument("--work", required=True, help="the directory it ran in")
    parser.add_argument("--client", required=True, help='its name and version, e.g. "Claude Code 2.1.197"')
    args = parser.parse_args(argv)
    data = fixture(orjson.loads(args.dump.read_bytes()), args.home, args.work, args.client)
    # One request per line: reviewable in a diff, small on disk.
    lines = [orjson.dumps(request).decode() for request in data["requests"]]  # keys in the client's order
    text = '{"client": ' + orjson.dumps(data["client"]).decode() + ', "requests": [\n' + ",\n".join(lines) + "\n]}\n"
    args.out.write_text(text)
    sys.stdout.write(f"{len(lines)} requests -> {args.out}\n")


if __name__ == "__main__":
    main()
