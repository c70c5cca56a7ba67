"""The ``memproxy`` command. Errors a user can fix are one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from .config import Settings, load_settings
from .errors import ConfigError


@click.group()
@click.version_option(package_name="memproxy")
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

    import uvicorn

    from .app import create_app
    from .logs import configure_logging
    from .services import build_services

    configure_logging(settings.server.log_level)
    services = build_services(settings, record_dir=record_dir, replay_dir=replay_dir)
    mode = f" (replaying {replay_dir})" if replay_dir else f" (recording to {record_dir})" if record_dir else ""
    click.echo(
        f"memproxy listening on http://{settings.server.host}:{settings.server.port}/v1 -> "
        f"{settings.upstream.base_url}{mode}",
        err=True,
    )
    app = create_app(services)
    # Everything imported so far lives for the whole process: keep it out of every full collection,
    # whose pauses otherwise stall all in-flight requests (measured: p99 at 16 streams 53 -> 25 ms).
    gc.freeze()
    uvicorn.run(
        app,
        host=settings.server.host,
        port=settings.server.port,
        log_level=settings.server.log_level,
        access_log=False,
        server_header=False,
        date_header=False,
    )


def _settings(config_path: str | None, overrides: dict[str, Any]) -> Settings:
    try:
        return load_settings(config_path, os.environ, overrides)
    except ConfigError as exc:
        _fail(f"config error: {exc.message}")


def _fail(message: str) -> NoReturn:
    click.echo(f"memproxy: {message}", err=True)
    sys.exit(2)
