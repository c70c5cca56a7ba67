"""The ``memproxy`` command. Errors a user can fix are one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
import orjson

from . import __version__
from .config import Settings, check_exposure, check_store, load_settings, upstream_path_warning
from .errors import ConfigError, InvalidApiKey, ProxyError

T = TypeVar("T")
BACKLOG = 2048  # uvicorn's default
YOUNG_COLLECTION_EVERY = 7_000  # new objects between young collections: see `serve`


@click.group()
@click.version_option(__version__, prog_name="memproxy")  # the running code's, installed or not
def main() -> None:
    """memproxy: a transparent OpenAI-compatible proxy that gives agents long-term memory."""


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML config file.")
@click.option("--host", help="Interface to listen on (server.host).")
@click.option("--port", type=int, help="Port to listen on (server.port).")
@click.option("--upstream", help="OpenAI-compatible base URL, e.g. https://api.openai.com/v1 (upstream.base_url).")
@click.option("--data-dir", help="Where memories are kept (store.path).")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), help="Record upstream exchanges here.")
@click.option("--replay", "replay_dir", type=click.Path(file_okay=False), help="Serve recorded exchanges instead.")
def serve(
    config_path: str | None,
    host: str | None,
    port: int | None,
    upstream: str | None,
    data_dir: str | None,
    record_dir: str | None,
    replay_dir: str | None,
) -> None:
    """Run the proxy."""
    if record_dir and replay_dir:
        _fail("--record and --replay cannot be used together")
    settings = _settings(
        config_path,
        {
            "server.host": host,
            "server.port": port,
            "upstream.base_url": upstream,
            "store.path": data_dir,
        },
    )
    if replay_dir and not Path(replay_dir).is_dir():
        _fail(f"replay folder {replay_dir} does not exist")
    try:
        check_exposure(settings)
    except ConfigError as exc:
        _fail(f"config error: {exc.message}")

    import uvicorn

    from .app import create_app
    from .logs import configure_logging
    from .services import build_services, check_store
    from .serving import http_protocol

    configure_logging(settings.server.log_level)
    try:
        services = build_services(settings, record_dir=record_dir, replay_dir=replay_dir)
    except ConfigError as exc:
        _fail(f"config error: {exc.message}")
    _sync(check_store(settings))  # a PostgreSQL store: reachable and migrated, or one line saying why not
    if settings.server.access_log != "off":
        from .telemetry.access import LineWriter

        services.telemetry.log_to(LineWriter(sys.stdout.fileno()))  # one line per request, written by a thread
    warning = upstream_path_warning(settings)
    if warning is not None:
        click.echo(f"memproxy: warning: {warning}", err=True)
    sockets = _listen(settings.server.host, settings.server.port)
    host = settings.server.host
    shown = f"[{host}]" if ":" in host else host
    mode = f" (replaying {replay_dir})" if replay_dir else f" (recording to {record_dir})" if record_dir else ""
    click.echo(
        f"memproxy listening on http://{shown}:{sockets[0].getsockname()[1]}/v1 -> {settings.upstream.base_url}{mode}",
        err=True,
    )
    app = create_app(services)
    # Everything imported so far lives for the whole process: keep it out of every full collection,
    # whose pauses otherwise stall all in-flight requests (measured: p99 at 16 streams 53 -> 25 ms).
    gc.freeze()
    # A young collection every 700 new objects (the default) catches the objects of 16 requests in flight alive,
    # so they are carried into the older generations, and those fill up with them: 7 full collections of 30-50 ms
    # per 9,200 requests. Every 7,000, most have died first (measured at 16 Responses streams: 0.86 -> 0.75 ms of CPU
    # per request, no full collection in 9,200 requests; a young collection then takes about 1 ms).
    gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
    config = uvicorn.Config(
        app,
        host=settings.server.host,
        port=settings.server.port,
        log_level=settings.server.log_level,
        access_log=False,
        server_header=False,
        date_header=False,
        backlog=BACKLOG,
        proxy_headers=False,  # nothing reads the client's address: the middleware would only cost every request
        http=http_protocol(settings.server.header_timeout_s),  # a deadline for each request's headers
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run: Ctrl+C is how one stops it
        server.run(sockets=sockets)
    if not server.started:
        sys.exit(3)  # uvicorn's own status for a failed start (its log says why, e.g. the app's lifespan)


def _listen(host: str, port: int) -> list[socket.socket]:
    """Binds where uvicorn would (each address the host resolves to, as asyncio's create_server does) before
    anything says "listening": a port in use is one line and exit 2, and ``--port 0`` shows the port it got."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)  # from here on, connections queue until the app is ready
    except OSError as exc:
        for sock in sockets:
            sock.close()
        in_use = exc.errno == errno.EADDRINUSE
        reason = "address already in use (choose another with --port)" if in_use else exc.strerror or str(exc)
        _fail(f"cannot listen on {host}:{port}: {reason}")
    return sockets


@main.command()
def demo() -> None:
    """Show memory at work: a real proxy, the built-in fake model, two sessions. No API key, no network."""
    from .demo import run_demo

    run_demo(click.echo)


# -- memories -------------------------------------------------------------------------------------------------


def _who(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options every `memories` command shares: where the store is and whose memories."""
    options = [
        click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML config file."),
        click.option("--data-dir", help="Data directory (store.path)."),
        click.option("--user", envvar="MEMPROXY_USER", help="The X-Memory-User whose memories these are."),
        click.option(
            "--api-key",
            help="Or: whose key: a memproxy key (auth.mode: keys), else the client's bearer token.",
        ),
        click.option("--workspace", default="default", show_default=True, help="The X-Memory-Workspace."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@main.group()
def memories() -> None:
    """List, search, add, delete, approve, export and import memories in the configured store; pin and edit them."""


@memories.command("list")
@_who
@click.option("--tag", help="Only memories with this tag.")
@click.option("--category", help="Only memories of this category.")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def memories_list(tag: str | None, category: str | None, limit: int, as_json: bool, **who: Any) -> None:
    """The newest memories."""
    _check_limit(limit)
    found = _run(who, lambda service, caller: service.search(caller, tag=tag, category=category, limit=limit))
    _print_memories(found, as_json)


@memories.command("search")
@_who
@click.argument("query")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def memories_search(query: str, limit: int, as_json: bool, **who: Any) -> None:
    """Memories relevant to QUERY, best first."""
    _check_limit(limit)
    found = _run(who, lambda service, caller: service.search(caller, query=query, limit=limit))
    _print_memories(found, as_json)


@memories.command("add")
@_who
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable, at most 5).")
@click.option("--category", help="preference, pattern, correction, fact (default), instruction or convention.")
@click.option("--scope", help="workspace (default), user, session or global.")
@click.option("--pin", is_flag=True, help="Pin it: always in the block (scope user or workspace), within its cap.")
def memories_add(
    text: str, tags: tuple[str, ...], category: str | None, scope: str | None, pin: bool, **who: Any
) -> None:
    """Store TEXT as a memory (checked and scanned like every write)."""
    fields = {"text": text, "tags": list(tags), "category": category, "scope": scope, "pinned": pin}
    stored = _run(who, lambda service, caller: service.add(caller, fields, origin="cli"))
    superseded = f" (supersedes {stored.superseded.id})" if stored.superseded is not None else ""
    held = f" (held for review: {stored.memory.provenance.reason})" if stored.memory.held else ""
    click.echo(stored.memory.id + superseded + held)


@memories.command("pin")
@_who
@click.argument("text")
@click.option(
    "--scope",
    type=click.Choice(["workspace", "user"]),
    default="workspace",
    show_default=True,
    help="user: the user's profile, in every workspace; workspace: this workspace's environment.",
)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable, at most 5).")
@click.option("--category", help="preference, pattern, correction, fact (default), instruction or convention.")
def memories_pin(text: str, scope: str, tags: tuple[str, ...], category: str | None, **who: Any) -> None:
    """Pin TEXT: it opens every block from the next session on (refused past its cap, or when pinned already)."""
    fields = {"text": text, "tags": list(tags), "category": category, "scope": scope, "pinned": True}
    stored = _run(who, lambda service, caller: service.add(caller, fields, origin="cli"))
    superseded = f" (supersedes {stored.superseded.id})" if stored.superseded is not None else ""
    click.echo(stored.memory.id + superseded)


@memories.command("pinned")
@_who
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def memories_pinned(as_json: bool, **who: Any) -> None:
    """The pinned facts: the user's profile, then this workspace's environment, each with its cap."""
    places = _run(who, lambda service, caller: service.pinned(caller))
    if as_json:
        click.echo(orjson.dumps({place.scope: place.to_json() for place in places}).decode())
        return
    for place in places:
        listed = place.to_json()
        click.echo(f"{place.cap.place}: {listed['chars']} of {listed['cap']} characters ({place.cap.setting})")
        for memory in place.memories:
            click.echo(f"{memory.id}\t{memory.category}\t{memory.text}")


@memories.command("unpin")
@_who
@click.argument("memory_id")
def memories_unpin(memory_id: str, **who: Any) -> None:
    """Unpin MEMORY_ID: it stays a memory, recalled when relevant."""
    _run(who, lambda service, caller: service.edit(caller, memory_id, {"pinned": False}, actor=_person(caller)))
    click.echo(f"unpinned {memory_id}")


@memories.command("edit")
@_who
@click.argument("memory_id")
@click.option("--text", help="The new text (checked and scanned like a new memory).")
@click.option("--tag", "tags", multiple=True, help="The new tags (repeatable, at most 5).")
@click.option("--category", help="The new category.")
@click.option("--pin/--unpin", "pinned", default=None, help="Pin it (within its cap) or unpin it.")
def memories_edit(
    memory_id: str, text: str | None, tags: tuple[str, ...], category: str | None, pinned: bool | None, **who: Any
) -> None:
    """Edit MEMORY_ID in place; a session's frozen block shows the change from its next block."""
    fields: dict[str, Any] = {"text": text, "category": category, "pinned": pinned}
    if tags:
        fields["tags"] = list(tags)
    changes = {key: value for key, value in fields.items() if value is not None}
    if not changes:
        _fail("nothing to edit: give --text, --tag, --category, --pin or --unpin")
    edited = _run(who, lambda service, caller: service.edit(caller, memory_id, changes, actor=_person(caller)))
    click.echo(f"edited {edited.id}{' (pinned)' if edited.pinned else ''}")


@memories.command("delete")
@_who
@click.argument("memory_id")
def memories_delete(memory_id: str, **who: Any) -> None:
    """Delete the memory MEMORY_ID."""
    _run(who, lambda service, caller: service.delete(caller, memory_id, actor=_person(caller)))
    click.echo(f"deleted {memory_id}")


@memories.command("versions")
@_who
@click.argument("memory_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def memories_versions(memory_id: str, as_json: bool, **who: Any) -> None:
    """The versions of MEMORY_ID, newest first: what changed, when and by whom (a deleted one's too)."""
    from .memory.records import format_ts

    versions = _run(who, lambda service, caller: service.versions(caller, memory_id))
    if as_json:
        body = {"id": memory_id, "count": len(versions), "versions": [v.to_json() for v in versions]}
        click.echo(orjson.dumps(body).decode())
        return
    for version in versions:
        by = " ".join(f"{key}={value}" if key != "kind" else value for key, value in version.actor.to_json().items())
        flags = "".join(flag for flag, on in ((" pinned", version.pinned), (" held", version.held)) if on)
        click.echo(f"v{version.version}\t{format_ts(version.at)}\t{version.change}\t{by}{flags}\t{version.text}")


@memories.command("restore")
@_who
@click.argument("memory_id")
@click.option("--version", "version", type=click.IntRange(min=1), required=True, help="The version to make current.")
def memories_restore(memory_id: str, version: int, **who: Any) -> None:
    """Make VERSION of MEMORY_ID current again (a new version); brings a deleted memory back under its id."""
    restored = _run(who, lambda service, caller: service.restore(caller, memory_id, version, actor=_person(caller)))
    click.echo(f"restored {memory_id} to version {version} (now version {restored.version})")


@memories.command("held")
@_who
@click.option("--limit", type=int, default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def memories_held(limit: int, as_json: bool, **who: Any) -> None:
    """Memories held until you approve them (newest first): written by sessions that took in untrusted content, or
    whose text only looks like a secret or an instruction to the assistant (the scanner's reason)."""
    found = _run(who, lambda service, caller: service.search(caller, held=True, limit=limit))
    if as_json:
        _print_memories(found, as_json)
        return
    for memory in found:
        origin = f"{memory.origin}, session {memory.session}" if memory.session else memory.origin
        held = memory.provenance
        why = f"from {', '.join(held.sources)}" if held.untrusted else ""
        why = f"{why}; {held.reason}" if why and held.reason else why or held.reason or ""
        click.echo(f"{memory.id}\t{memory.category}\t{why} ({origin})\t{memory.text}")


@memories.command("approve")
@_who
@click.argument("memory_id")
def memories_approve(memory_id: str, **who: Any) -> None:
    """Approve the held memory MEMORY_ID: it may be injected and searched from now on."""
    approved = _run(who, lambda service, caller: service.approve(caller, memory_id, actor=_person(caller)))
    if approved.unchanged:
        click.echo(f"{memory_id} was not held")
        return
    superseded = f" (supersedes {approved.superseded.id})" if approved.superseded is not None else ""
    click.echo(f"approved {memory_id}{superseded}")


@memories.command("export")
@_who
@click.option("--output", "-o", type=click.File("wb"), default="-", help="JSONL file (default: stdout).")
def memories_export(output: Any, **who: Any) -> None:
    """Write the user's memories (this workspace and user-wide) as JSONL, then their memory files."""

    async def export(service: Any, caller: Any) -> tuple[list[Any], list[bytes]]:
        from .memory.file_service import FileService

        return await service.export(caller), await FileService(service.files).export(caller)

    memories, files = _run(who, export)
    for memory in memories:
        output.write(orjson.dumps(memory.to_json()) + b"\n")
    output.write(b"".join(files))


@memories.command("import")
@_who
@click.argument("source", type=click.File("rb"))
def memories_import(source: Any, **who: Any) -> None:
    """Import memories from a JSONL file ('-' for stdin); each line is checked, bad ones are reported and skipped."""
    data = source.read()

    async def run(service: Any, caller: Any) -> Any:
        from .memory.file_service import FileService
        from .memory.service import FILE_LINE
        from .memory.versions import Actor

        report = await service.import_lines(caller, data, bounded=False, actor=Actor.importer(caller, via="cli"))
        lines = [(n, line) for n, line in enumerate(data.splitlines(), 1) if line.startswith(FILE_LINE)]
        return report, await FileService(service.files).import_lines(caller, lines)

    report, files = _run(who, run, embed=True)
    for error in [*report.errors, *files.errors]:
        click.echo(f"line {error['line']}: {error['error']}", err=True)
    unchanged = f", unchanged {len(report.unchanged)} (already there)" if report.unchanged else ""
    written = f"; files: imported {len(files.imported)}, unchanged {len(files.unchanged)}, held {len(files.held)}"
    shown = written if lines_of_files(files) else ""
    click.echo(f"imported {len(report.imported)}{unchanged}, skipped {len(report.errors) + len(files.errors)}{shown}")


@memories.command("forget-all")
@_who
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def memories_forget_all(yes: bool, **who: Any) -> None:
    """Delete everything of the user's in this workspace (memories, episodes, pending jobs, history) and their
    user-wide ones."""
    if not yes:
        click.confirm("Delete every memory of this user in this workspace and their user-wide ones?", abort=True)

    async def forget(service: Any, caller: Any) -> tuple[dict[str, int], dict[str, int]]:
        return await service.memory.forget_counted(caller), await service.forget(caller)

    deleted, forgotten = _run(who, forget, episodes=True)
    click.echo(
        f"deleted {deleted['memories']} memories, {forgotten['episodes']} episodes, {forgotten['jobs']} pending jobs, "
        f"{forgotten['history']} history lines, {deleted['files']} memory files"
    )


# -- episodes -------------------------------------------------------------------------------------------------


@main.group()
def episodes() -> None:
    """List extracted episodes and the jobs still making them; approve or reject untrusted ones."""


@episodes.command("list")
@_who
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
def episodes_list(as_json: bool, **who: Any) -> None:
    """Episodes of the user in this workspace (untrusted ones too), then their extraction jobs not done yet."""
    found, jobs = _run(who, lambda service, caller: service.of(caller), episodes=True)
    if as_json:
        body = {"episodes": [e.to_json() for e in found], "jobs": [j.status_json() for j in jobs]}
        click.echo(orjson.dumps(body).decode())
        return
    for episode in found:
        provenance = episode.provenance
        trust = "trusted"
        if provenance.untrusted:
            trust = "approved" if provenance.user_approved else f"UNTRUSTED ({', '.join(provenance.sources)})"
        click.echo(f"{episode.id}\t{episode.session_id}\t{episode.turns} turns\t{trust}\t{episode.summary}")
        for fact in episode.facts:
            click.echo(f"    - {fact}")
    for job in jobs:
        error = f"\t{job.last_error}" if job.last_error else ""
        click.echo(f"job {job.id}\t{job.session_id}\t{job.state}\t{job.attempts} attempts{error}")


@episodes.command("approve")
@_who
@click.argument("episode_id")
def episodes_approve(episode_id: str, **who: Any) -> None:
    """Approve an untrusted episode: it may be injected and searched, and its facts become memories."""
    episode = _run(who, lambda service, caller: service.approve(caller, episode_id), episodes=True)
    click.echo(f"approved {episode.id}")


@episodes.command("reject")
@_who
@click.argument("episode_id")
def episodes_reject(episode_id: str, **who: Any) -> None:
    """Delete an episode for good (its facts were never stored if it was untrusted)."""
    _run(who, lambda service, caller: service.reject(caller, episode_id), episodes=True)
    click.echo(f"rejected {episode_id}")


def _person(caller: Any) -> Any:
    """The person at this terminal, as versions name them."""
    from .memory.versions import Actor

    return Actor.person(caller, via="cli")


def _run(
    who: dict[str, Any], action: Callable[[Any, Any], Awaitable[T]], *, episodes: bool = False, embed: bool = False
) -> T:
    """``embed``: with embeddings on (``memory.embeddings``), load the model so that what the action writes is
    embedded before it is written (an import), as the server does."""
    from .memory.service import MemoryService
    from .services import (
        build_database,
        build_detail_store,
        build_embeddings,
        build_episode_store,
        build_memory_file_store,
        build_session_state,
        build_store,
        episode_service,
    )

    settings = _settings(who["config_path"], {"store.path": who["data_dir"]})

    async def run() -> T:
        caller = await _caller(settings, who)
        database = build_database(settings)
        files = build_memory_file_store(settings, database)  # export, import and forget-all take the memory files too
        if not episodes:
            embeddings = build_embeddings(settings) if embed else None
            memory = MemoryService(build_store(settings, database), settings.memory, files=files, embeddings=embeddings)
            try:
                return await action(memory, caller)
            finally:
                await memory.aclose()
        episode_store = build_episode_store(settings, database)
        details = build_detail_store(settings, database)  # forget-all removes offloaded tool outputs too
        store = build_store(settings, database)
        sessions = build_session_state(settings, database)  # forget-all removes sessions' state and taints too
        memory = MemoryService(
            store, settings.memory, episodes=episode_store, details=details, sessions=sessions, files=files
        )
        service = episode_service(settings, memory, database=database)
        try:
            return await action(service, caller)
        finally:
            await service.jobs.aclose()
            await service.forgetting.aclose()
            if service.history is not None:
                await service.history.aclose()
            await memory.aclose()

    return _sync(run())


async def _caller(settings: Settings, who: dict[str, Any]) -> Any:
    """Whose memories: the operator on this machine names a user, or a key stands for one, under the proxy's rules."""
    from .auth.identity import Authenticator, user_for_token
    from .auth.keys import KEY_PREFIX, KeyRing
    from .memory.caller import Identity
    from .services import build_key_store

    workspace = who["workspace"]
    api_key = who["api_key"]
    # A memproxy key (mp-...) is one whatever auth.mode this command was given: looked up in the store, never hashed
    # into a user of its own, so a key nobody holds (or a revoked one) is refused rather than given an empty memory.
    if api_key and (settings.auth.mode == "keys" or api_key.startswith(KEY_PREFIX)):
        ring = KeyRing(build_key_store(settings))
        try:
            await ring.refresh()
        finally:
            await ring.store.aclose()
        headers = [(b"x-memproxy-key", api_key.encode()), (b"x-memory-workspace", workspace.encode())]
        if who["user"]:
            headers.append((b"x-memory-user", who["user"].encode()))
        keys_mode = settings.model_copy(update={"auth": settings.auth.model_copy(update={"mode": "keys"})})
        try:
            return Authenticator(keys_mode, ring).require(headers)
        except InvalidApiKey:
            _fail("--api-key: unknown or revoked memproxy key in this store (`memproxy keys list` shows its keys)")
    if who["user"]:
        return Identity(who["user"], workspace, admin=True)  # the store's owner on this machine
    if who["api_key"]:
        return Identity(user_for_token(who["api_key"].encode()), workspace, admin=True)
    _fail("say whose memories: --user NAME (the X-Memory-User) or --api-key KEY")


def _sync(work: Awaitable[T]) -> T:
    async def run() -> T:
        return await work

    try:
        return asyncio.run(run())
    except ConfigError as exc:
        _fail(f"config error: {exc.message}")
    except ProxyError as exc:
        _fail(exc.message)


# -- mcp ------------------------------------------------------------------------------------------------------


@main.command("mcp")
@click.option("--url", help="A running memproxy to serve from (its /mcp), e.g. http://127.0.0.1:8787.")
@click.option(
    "--key",
    envvar="MEMPROXY_KEY",
    help="A memproxy key (auth.mode: keys): with --url sent as the bearer token, else whose memory in the store.",
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML config file (the store).")
@click.option("--data-dir", help="Data directory (store.path).")
@click.option("--user", envvar="MEMPROXY_USER", help="Whose memory (the X-Memory-User).")
@click.option("--workspace", default="default", show_default=True, help="The X-Memory-Workspace.")
def mcp(
    url: str | None, key: str | None, config_path: str | None, data_dir: str | None, user: str | None, workspace: str
) -> None:
    """Serve memory to an MCP host over stdio: the memory tools, memory://pinned and memory://block.

    With --url, from a running memproxy (the same tools through its /mcp); else from the configured store directly.
    """
    from .logs import configure_logging
    from .memory.caller import Identity

    if url and (config_path or data_dir):
        _fail("--url serves from a running memproxy, --config and --data-dir from the store: give one or the other")
    configure_logging("warning")  # on stderr: stdout carries the protocol alone

    async def from_memproxy() -> None:
        from .mcp.remote import RemoteMemory, reachable
        from .mcp.stdio import serve

        assert url is not None
        problem = await reachable(url)
        if problem is not None:
            _fail(f"cannot reach memproxy's MCP server at {url}: {problem}")
        async with RemoteMemory(url, key=key, user=user, workspace=workspace) as memory:
            await serve(memory, Identity(user or "", workspace))

    async def from_store() -> None:
        from .mcp.direct import store_memory
        from .mcp.stdio import serve

        settings = _settings(config_path, {"store.path": data_dir})
        caller = await _caller(settings, {"workspace": workspace, "api_key": key, "user": user})
        async with store_memory(settings) as memory:
            await serve(memory, caller)

    with contextlib.suppress(KeyboardInterrupt):
        _sync(from_memproxy() if url else from_store())


def lines_of_files(report: Any) -> bool:
    return bool(report.imported or report.unchanged or report.held or report.errors)


# -- keys -----------------------------------------------------------------------------------------------------


def _store_options(function: Callable[..., Any]) -> Callable[..., Any]:
    function = click.option("--data-dir", help="Data directory (store.path).")(function)
    return click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML config file.")(function)


@main.group()
def keys() -> None:
    """Create, list and revoke memproxy keys (auth.mode: keys) in the configured store."""


@keys.command("create")
@_store_options
@click.option("--user", required=True, help="Whose key: the user its requests act for.")
@click.option("--service", is_flag=True, help="A service key: may name its end users with X-Memory-User.")
@click.option("--admin", is_flag=True, help="An admin key: may also write global memories.")
def keys_create(config_path: str | None, data_dir: str | None, user: str, service: bool, admin: bool) -> None:
    """Create a key and print it once: only its hash is stored."""
    if service and admin:
        _fail("a key is --service or --admin, not both")
    settings = _settings(config_path, {"store.path": data_dir})
    kind = "service" if service else "admin" if admin else "personal"
    made = _with_keys(settings, lambda keys: keys.create(user, kind))
    click.echo(f"{made.record.id}\t{made.record.user}\t{made.record.kind}")
    click.echo(made.key)


@keys.command("list")
@_store_options
def keys_list(config_path: str | None, data_dir: str | None) -> None:
    """Ids, users and kinds of every key; never the keys."""
    from .memory.records import format_ts

    settings = _settings(config_path, {"store.path": data_dir})
    for record in _with_keys(settings, lambda keys: keys.list()):
        state = "active" if record.active else f"revoked {format_ts(record.revoked or 0)}"
        click.echo(f"{record.id}\t{record.user}\t{record.kind}\t{format_ts(record.created)}\t{state}")


@keys.command("revoke")
@_store_options
@click.argument("key_id")
def keys_revoke(config_path: str | None, data_dir: str | None, key_id: str) -> None:
    """Revoke a key: every process sharing the store refuses it within a second."""
    settings = _settings(config_path, {"store.path": data_dir})
    record = _with_keys(settings, lambda keys: keys.revoke(key_id))  # an unknown id: "no key ...", status 2
    click.echo(f"revoked {record.id} ({record.user})")


@main.group()
def store() -> None:
    """Move a store between backends."""


@store.command("copy")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="YAML config file.")
@click.option("--data-dir", help="The files store to copy from (store.path).")
@click.option("--to", "dsn", required=True, help="The PostgreSQL database to copy into: postgresql://...")
@click.option("--user", "users", multiple=True, help="A user whose memories to copy (repeatable).")
@click.option("--workspace", "workspaces", multiple=True, help="A workspace to look for (repeatable).")
def store_copy(
    config_path: str | None, data_dir: str | None, dsn: str, users: tuple[str, ...], workspaces: tuple[str, ...]
) -> None:
    """Copy a files store into PostgreSQL with ids and links intact; what is there already is skipped.

    Every owner whose names the store records is copied. Folders written before memproxy recorded names are named
    from the store's episodes, jobs and keys; name others with --user and --workspace. Exits 1 when it had to
    leave any folder behind."""
    from .memory.backends.postgres import Database
    from .store_copy import CopyReport, copy_store

    settings = _settings(config_path, {"store.path": data_dir, "store.backend": "files"})
    root = Path(settings.store.path)
    if not root.is_dir():
        _fail(f"no files store at {root}")

    async def run() -> CopyReport:
        database = Database(dsn)
        try:
            return await copy_store(root, database, users=users, workspaces=workspaces)
        finally:
            await database.aclose()

    report = _sync(run())  # a database that cannot be reached: one line, status 2
    click.echo(report.summary())
    if not report.complete:
        sys.exit(1)  # copied what it could; what it left behind is listed


def _with_keys(settings: Settings, action: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``action`` on the key service (the API's and the console's) over the configured store, closed afterwards."""
    from .auth.key_service import KeyService
    from .services import build_key_store

    async def run() -> T:
        keys = KeyService(build_key_store(settings))
        try:
            return await action(keys)
        finally:
            await keys.aclose()

    return _sync(run())


def _check_limit(limit: int) -> None:
    from .memory.service import search_limit

    try:
        search_limit(limit)
    except ProxyError as exc:
        _fail(exc.message.replace("'limit'", "--limit"))


def _print_memories(found: list[Any], as_json: bool) -> None:
    if as_json:
        click.echo(orjson.dumps({"count": len(found), "memories": [m.to_json() for m in found]}).decode())
        return
    for memory in found:
        tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
        click.echo(f"{memory.id}\t{memory.category}{tags}\t{memory.text}")


def _settings(config_path: str | None, overrides: dict[str, Any]) -> Settings:
    """The settings every command starts from, with the data directory checked: each command uses the store."""
    try:
        settings = load_settings(config_path, os.environ, overrides)
        check_store(settings)
    except ConfigError as exc:
        _fail(f"config error: {exc.message}")
    return settings


def _fail(message: str) -> NoReturn:
    click.echo(f"memproxy: {message}", err=True)
    sys.exit(2)
