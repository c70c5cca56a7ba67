"""Settings: defaults in the models, then the YAML file, then ``MEMPROXY_*`` variables, then flags.

Nothing reads ``os.environ`` at import; callers pass the environment in. A bad key or value
raises :class:`ConfigError` naming the key, so the CLI can print one line and exit 2.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError

ENV_PREFIX = "MEMPROXY_"
_ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8787, ge=0, le=65535)
    max_body_bytes: int = Field(32 * 1024 * 1024, gt=0)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # A connection has this long to send each request's headers (from its first byte; the first request's from the
    # connection), else it is closed: idle and half-sent requests never hold sockets before any authentication.
    header_timeout_s: float = Field(10, gt=0)


class UpstreamSettings(_Section):
    base_url: str = "https://api.openai.com/v1"
    anthropic_base_url: str = "https://api.anthropic.com/v1"  # where /v1/messages goes
    api_key: str | None = None
    timeout_s: float = Field(600, gt=0)
    max_event_bytes: int = Field(16 * 1024 * 1024, gt=0)  # one streamed event; past it the stream ends in an error
    litellm_models: tuple[str, ...] = ()
    litellm_api_base: str | None = None
    # With api_key set, the objects users make upstream (stored responses, conversations, files, batches) are bound
    # to who made them; nobody else reaches them through the shared key. Bindings last this long (the upstream's own
    # retention of stored responses), at most this many per user (oldest dropped first).
    object_ttl_days: float = Field(30, gt=0)
    max_objects_per_user: int = Field(100_000, gt=0)

    @field_validator("base_url")
    @classmethod
    def _an_http_url(cls, value: str) -> str:
        """Refused at start-up: a proxy that cannot reach its upstream would start and then fail every request."""
        try:
            parts = urlsplit(value)
            ok = parts.scheme in ("http", "https") and bool(parts.hostname)
            parts.port  # noqa: B018 -- raises on a port that is not a number
        except ValueError:
            ok = False
        if not ok:
            raise ValueError("must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1")
        return value


class AuthSettings(_Section):
    mode: Literal["open", "keys"] = "open"
    allow_open: bool = False  # open mode on a non-loopback address: the operator says they mean it


class StoreSettings(_Section):
    backend: Literal["files", "postgres"] = "files"
    path: str = "./.memproxy"
    dsn: str | None = None


class EmbeddingSettings(_Section):
    # A sentence-transformers model with a BERT encoder: a hub name, or a local directory. null: lexical ranking only.
    # On: pip install 'memproxy-gateway[embeddings]' (proxy/memory/embeddings.py).
    model: str | None = None
    deadline_ms: float = Field(250, gt=0)  # a request waits this long for its query's vector, else ranks lexically


class MemorySettings(_Section):
    inject_mode: Literal["relevant", "recent_only", "off"] = "relevant"

    @field_validator("inject_mode", mode="before")
    @classmethod
    def _off_is_off(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare `off` as false: `inject_mode: off` must still mean "off"."""
        return "off" if value is False else value

    max_inject_chars: int = Field(2000, ge=0)  # the block: a session's first request may fill these
    max_inject_count: int = Field(10, ge=0)
    max_note_chars: int = Field(4000, ge=0)  # a session's notes together, beside the block (proxy/memory/recall.py)
    max_note_count: int = Field(20, ge=0)
    max_total: int = Field(500, gt=0)
    max_import_lines: int = Field(1000, gt=0)  # per import request: more is a 400, nothing imported
    store_deadline_ms: float = Field(250, gt=0)  # a chat request waits this long for the store, else no memory
    # Pinned facts open every block, outside the ranked budgets: seed 002's user.md and env.md caps, in characters
    # of memory text (scope user: the user's profile; scope workspace: the workspace's environment).
    pinned_user_chars: int = Field(1200, ge=0)
    pinned_env_chars: int = Field(800, ge=0)
    admin_key: str | None = None  # null: nobody may write global memories over HTTP
    embeddings: EmbeddingSettings = EmbeddingSettings()
    # Merge on write (seed 002's bands, proxy/memory/merging.py), on the similarity in [0, 1] of a new memory to the
    # closest one: at or above merge_threshold the same memory, below add_threshold a different one, and between the
    # two the extraction job asks its model (same, update, different).
    merge_threshold: float = Field(0.7, ge=0, le=1)
    add_threshold: float = Field(0.3, ge=0, le=1)

    @model_validator(mode="after")
    def _bands_in_order(self) -> MemorySettings:
        if self.add_threshold > self.merge_threshold:
            raise ValueError(
                f"add_threshold ({self.add_threshold}) must not be above merge_threshold ({self.merge_threshold})"
            )
        return self


class ToolsSettings(_Section):
    enabled: bool = True
    max_hops: int = Field(4, ge=1)
    models: tuple[str, ...] = ("*",)  # fnmatch patterns of the models that get the memory tools (proxy/tools/models.py)


class SessionsSettings(_Section):
    idle_timeout_s: float = Field(1800, gt=0)
    min_turns_for_extraction: int = Field(3, ge=1)
    # Live sessions held in memory, each with its conversation as last sent: in all, and per memproxy key (a service
    # key's end users share its share). Past a limit the least recently seen end early (extracted as ever); past a
    # key's share, only that key's.
    max_live: int = Field(5000, gt=0)
    max_live_per_key: int = Field(500, gt=0)
    max_bytes: int = Field(1024 * 1024 * 1024, gt=0)  # conversation bytes all live sessions hold (1 GiB)
    max_bytes_per_key: int = Field(128 * 1024 * 1024, gt=0)  # and one key's (128 MiB)


# Tools trusted by default: those that only act, and whose results are the agent's own words or a status, never
# outside content (DESIGN "Provenance": every other tool is untrusted, whatever its name). Matched by key (lower case,
# no `_ - .` or spaces), so `TodoWrite` also covers `todo_write` (proxy/episodes/untrusted.py). Not here on purpose:
# anything that reads the web, files, shells, MCP servers or subagents, and writes that answer with the file they
# wrote (Cline's write_to_file and replace_in_file hand back the whole file).
TRUSTED_TOOLS = (
    # plans and to-do lists: the model's own items handed back (Claude Code, Codex, Gemini CLI)
    "TodoWrite", "update_plan", "write_todos", "ExitPlanMode",
    # edits that answer with a status: Codex's patch, the file-writing tools of Gemini CLI and MCP's filesystem
    "apply_patch", "write_file",
    # Claude Code's edits: a status and a few lines around the change, of a file it makes the model Read (untrusted)
    # first, so what they show is already in the session
    "Edit", "MultiEdit", "Write", "NotebookEdit",
)  # fmt: skip


class ExtractionSettings(_Section):
    enabled: bool = True
    model: str | None = None
    max_pending_per_user: int = Field(50, gt=0)  # jobs not done yet; past it the user's oldest is dropped
    # Provenance is an allow-list: a tool is untrusted unless named here (its results are its own or a status).
    trusted_tools: tuple[str, ...] = TRUSTED_TOOLS
    untrusted_tools: tuple[str, ...] = ()  # untrusted even when trusted_tools names them (configs from the deny-list)
    untrusted_by_default: bool = False  # true: trusted_tools is ignored, every tool but the proxy's own is untrusted


class ContextSettings(_Section):
    """Opt-in rewrites of what goes upstream (seeds 001 and 004): null leaves the client's conversation whole."""

    offload_chars: int | None = Field(None, ge=1)  # an earlier turn's tool result longer than this becomes a MemoryRef
    window_turns: int | None = Field(None, ge=1)  # user turns kept whole; older ones become an overview line each


class HistorySettings(_Section):
    enabled: bool = True  # keep each session's conversation (seed 004's raw log), searchable with citations
    retention_days: float = Field(30, gt=0)  # older lines are never shown and are pruned in the background
    # Characters of history one owner keeps; past it their oldest lines go. A search indexes what it reads (about a
    # second per 2 million characters on a busy 2-core machine, the first time after a start): this keeps it short.
    max_chars_per_owner: int = Field(4_000_000, gt=0)


class ConsoleSettings(_Section):
    """The web console at /ui/ (proxy/console/): open mode serves it on loopback only, keys mode after a sign-in."""

    enabled: bool = True
    session_ttl_s: float = Field(12 * 3600, gt=0)  # a sign-in lasts this long, then the key is asked for again


class Settings(_Section):
    server: ServerSettings = ServerSettings()
    upstream: UpstreamSettings = UpstreamSettings()
    auth: AuthSettings = AuthSettings()
    store: StoreSettings = StoreSettings()
    memory: MemorySettings = MemorySettings()
    tools: ToolsSettings = ToolsSettings()
    sessions: SessionsSettings = SessionsSettings()
    extraction: ExtractionSettings = ExtractionSettings()
    context: ContextSettings = ContextSettings()
    history: HistorySettings = HistorySettings()
    console: ConsoleSettings = ConsoleSettings()


# Short names DESIGN.md promises, besides the general MEMPROXY_<SECTION>_<KEY> form.
ENV_ALIASES = {
    "MEMPROXY_PORT": ("server", "port"),
    "MEMPROXY_DATA_DIR": ("store", "path"),
}
# MEMPROXY_* variables that are not settings: the config file's path, the CLI's own options (``--user``'s envvar)
# and the client's key, which the README's examples keep in MEMPROXY_KEY (exported, it must not stop every command).
# The loader skips them; any other unknown MEMPROXY_* name is still a typo to refuse.
NOT_SETTINGS = frozenset({"MEMPROXY_CONFIG", "MEMPROXY_USER", "MEMPROXY_KEY"})


def load_settings(
    path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build settings from a file, an environment and flag overrides (``{"server.port": 9000}``)."""
    environ = {} if environ is None else environ
    if path is None and environ.get("MEMPROXY_CONFIG"):
        path = environ["MEMPROXY_CONFIG"]
    tree: dict[str, Any] = _read_file(Path(path)) if path is not None else {}
    for dotted, value in _env_values(environ).items():
        _assign(tree, dotted, value)
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _assign(tree, dotted, value)
    _expand_env_refs(tree, environ, prefix="")
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from exc


def check_exposure(settings: Settings) -> None:
    """Open mode trusts whoever calls: refuse to listen beyond this machine unless the operator says so."""
    if settings.auth.mode == "open" and not settings.auth.allow_open and not is_loopback(settings.server.host):
        raise ConfigError(
            f"auth.mode: open on {settings.server.host} lets anyone who can reach it read every user's memory; "
            "use auth.mode: keys (memproxy keys create), or set auth.allow_open: true if you mean it"
        )


def check_store(settings: Settings) -> None:
    """A data directory that cannot be one (a file, or a path under a file) would fail every request and every
    command with a traceback: say so once, at start-up. Nothing is created here (a read-only command stays so)."""
    if settings.store.backend != "files":
        return
    path = Path(settings.store.path)
    for candidate in (path, *path.parents):
        if candidate.exists():
            if candidate == path and not path.is_dir():
                raise ConfigError(f"store.path: {path} is not a directory")
            if not candidate.is_dir():
                raise ConfigError(f"store.path: {path} cannot be a directory: {candidate} is not one")
            return


def upstream_path_warning(settings: Settings) -> str | None:
    """OpenAI-compatible servers mostly serve under ``/v1``; a base URL without a path is allowed (some serve at the
    root) but probably a slip, so the operator hears once where requests will go."""
    base = settings.upstream.base_url
    if urlsplit(base).path.strip("/"):
        return None
    return f"upstream.base_url {base} has no path: requests go to {base.rstrip('/')}/chat/completions (without /v1)"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}".replace("\n", " ")) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must be a mapping of sections, got {type(data).__name__}")
    return data


def _env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    known = {
        f"{ENV_PREFIX}{section}_{key}".upper(): (section, key)
        for section, model in Settings.model_fields.items()
        for key in model.annotation.model_fields  # type: ignore[union-attr]
    }
    known.update(ENV_ALIASES)
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name in NOT_SETTINGS:
            continue
        if name not in known:
            raise ConfigError(f"unknown environment variable {name}")
        section, key = known[name]
        try:
            values[f"{section}.{key}"] = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            values[f"{section}.{key}"] = raw
    return values


def _assign(tree: dict[str, Any], dotted: str, value: Any) -> None:
    section, key = dotted.split(".", 1)
    current = tree.setdefault(section, {})
    if not isinstance(current, dict):
        raise ConfigError(f"{section}: must be a mapping")
    current[key] = value


def _expand_env_refs(node: Any, environ: Mapping[str, str], prefix: str) -> None:
    """Resolve whole-string ``${NAME}`` values, so secrets stay out of the config file."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            _expand_env_refs(value, environ, f"{dotted}.")
        elif isinstance(value, str) and (match := _ENV_REF.match(value.strip())):
            name = match.group(1)
            if name not in environ:
                raise ConfigError(f"{dotted}: environment variable {name} is not set")
            node[key] = environ[name]


def _describe(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"] if not isinstance(part, int)) or "config"
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    given = error.get("input")
    shown = f" (got {given!r})" if not isinstance(given, dict) else ""
    message = error["msg"].removeprefix("Value error, ")  # our own validators' messages stand alone
    return f"{where}: {message}{shown}"
