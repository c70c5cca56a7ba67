"""The OpenAPI document of the management API, served at ``GET /memory/openapi.json``.

Hand-written, so it says what the routes in :mod:`proxy.api.memories` do rather than what a framework infers;
``tests/api/test_openapi.py`` checks that it names every ``/memory`` route the app serves and that real answers
match its schemas. The value lists (scopes, categories, sources, limits) come from the modules that enforce them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson

from ..memory.history import ROLES
from ..memory.records import CATEGORIES, CONFIDENCE_BY_SOURCE, MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_CHARS, SCOPES
from ..memory.service import MAX_SEARCH_LIMIT, SEARCH_LIMIT

_NULLABLE_STRING = {"type": ["string", "null"]}
_TIME = {"type": "string", "description": "ISO-8601, UTC"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict[str, Any], *, required: tuple[str, ...] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties if required is None else required)}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    reasons = {
        400: "invalid request (the message says what)",
        401: "no identity, or (auth.mode: keys) no valid memproxy key",
        403: "a global memory without an admin key, or a personal key naming another user",
        404: "not found here",
        409: "a pin past its cap (pinned_cap_exceeded) or already pinned (duplicate_pin): nothing stored",
        405: "this path does not take this method",
        413: "the body is over server.max_body_bytes",
        503: "the memory store failed",
    }
    return {str(status): _json(_ref("Error"), reasons[status]) for status in statuses}


_COMMON = (400, 401, 403, 503)


def _operation(summary: str, ok: dict[str, Any], *statuses: int, ok_status: int = 200, **extra: Any) -> dict[str, Any]:
    return {"summary": summary, "responses": {str(ok_status): ok, **_errors(*_COMMON, *statuses)}, **extra}


def _path_id(name: str, what: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, "description": what}


_SCHEMAS: dict[str, Any] = {
    "Error": _object(
        {
            "error": _object(
                {
                    "message": {"type": "string"},
                    "type": {"type": "string"},
                    "param": _NULLABLE_STRING,
                    "code": _NULLABLE_STRING,
                }
            )
        }
    ),
    "Memory": _object(
        {
            "id": {"type": "string", "examples": ["m-12"]},
            "scope": {"enum": list(SCOPES)},
            "text": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ts": _TIME,
            "category": {"enum": list(CATEGORIES)},
            "source": {"enum": list(CONFIDENCE_BY_SOURCE)},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "session": _NULLABLE_STRING,
            "superseded_by": _NULLABLE_STRING,
            "use_count": {"type": "integer", "minimum": 0},
            "last_used": {"type": ["string", "null"], "description": "ISO-8601, UTC"},
            "origin": {"enum": ["api", "tool", "extraction", "import", "cli"]},
            "untrusted": {"type": "boolean", "description": "written by a session that took in untrusted content"},
            "sources": {"type": "array", "items": {"type": "string"}, "description": "the untrusted tools it saw"},
            "user_approved": {"type": "boolean", "description": "a person approved it: an untrusted one is held till"},
            "reason": {
                "type": ["string", "null"],
                "description": "why the scanner held it: its text only looks like a secret or an instruction to the "
                "assistant (held till a person approves it)",
            },
            "pinned": {"type": "boolean", "description": "a pinned fact: it opens every block"},
        }
    ),
    "NewMemory": _object(
        {
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS},
            "tags": {
                "type": "array",
                "maxItems": MAX_TAGS,
                "items": {"type": "string", "maxLength": MAX_TAG_CHARS},
            },
            "scope": {"enum": list(SCOPES), "default": "workspace"},
            "category": {"enum": list(CATEGORIES), "default": "fact"},
            "source": {"enum": list(CONFIDENCE_BY_SOURCE), "default": "explicit"},
            "pinned": {
                "type": "boolean",
                "default": False,
                "description": "pin it (scope user: the user's profile; workspace: the workspace's environment); "
                "`pin` is taken too",
            },
        },
        required=("text",),
    ),
    "MemoryEdit": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS},
            "tags": {"type": "array", "maxItems": MAX_TAGS, "items": {"type": "string", "maxLength": MAX_TAG_CHARS}},
            "category": {"enum": list(CATEGORIES)},
            "pinned": {"type": "boolean", "description": "false unpins it; true pins it, within its place's cap"},
        },
        "description": "only the fields to change; any other field is a 400",
    },
    "Edited": _object({"ok": {"const": True}, "id": {"type": "string"}, "memory": _ref("Memory")}),
    "PinnedPlace": _object(
        {
            "cap": {"type": "integer", "description": "characters of text its pins may hold"},
            "setting": {"enum": ["memory.pinned_user_chars", "memory.pinned_env_chars"]},
            "chars": {"type": "integer", "description": "characters its pins hold"},
            "memories": {"type": "array", "items": _ref("Memory"), "description": "oldest first, as blocks show them"},
        }
    ),
    "PinnedList": _object(
        {
            "user": {**_ref("PinnedPlace"), "description": "the user's profile, in every workspace"},
            "workspace": {**_ref("PinnedPlace"), "description": "this workspace's environment"},
        }
    ),
    "MemoryList": _object({"count": {"type": "integer"}, "memories": {"type": "array", "items": _ref("Memory")}}),
    "Stored": _object(
        {
            "ok": {"const": True},
            "id": {"type": "string"},
            "memory": _ref("Memory"),
            "superseded": {"type": "string", "description": "the near-duplicate this memory replaced"},
            "held": {
                "const": True,
                "description": "stored, but held for review: never injected or searched until approved",
            },
            "reason": {"type": ["string", "null"], "description": "why it is held (the scanner's reason)"},
        },
        required=("ok", "id", "memory"),
    ),
    "Deleted": _object({"ok": {"const": True}, "id": {"type": "string"}}),
    "ImportReport": _object(
        {
            "ok": {"type": "boolean", "description": "every line was imported"},
            "imported": {"type": "array", "items": {"type": "string"}},
            "unchanged": {
                "type": "array",
                "items": {"type": "string"},
                "description": "lines already there (same text, scope and category): the ids they matched, left as "
                "they were, so importing an export twice changes nothing",
            },
            "errors": {
                "type": "array",
                "items": _object({"line": {"type": "integer", "minimum": 1}, "error": {"type": "string"}}),
            },
        }
    ),
    "Forgotten": _object(
        {
            "ok": {"const": True},
            "deleted": {"type": "integer", "description": "memories"},
            "forgotten": _object(
                {
                    "sessions": {"type": "integer"},
                    "jobs": {"type": "integer"},
                    "episodes": {"type": "integer"},
                    "history": {"type": "integer", "description": "conversation lines"},
                }
            ),
        }
    ),
    "Session": _object(
        {
            "id": {"type": "string"},
            "workspace": {"type": "string"},
            "turns": {"type": "integer"},
            "model": _NULLABLE_STRING,
            "started_at": _TIME,
            "last_seen": _TIME,
            "tools": {"type": "array", "items": {"type": "string"}},
            "state": {"const": "active"},
        }
    ),
    "SessionList": _object({"count": {"type": "integer"}, "sessions": {"type": "array", "items": _ref("Session")}}),
    "EndedSession": _object(
        {
            "ok": {"const": True},
            "id": {"type": "string"},
            "turns": {"type": "integer"},
            "extraction": {
                "oneOf": [
                    _object(
                        {"job": {"type": "string"}, "state": {"const": "queued"}, "untrusted": {"type": "boolean"}}
                    ),
                    {"type": "null", "description": "too few turns to extract an episode"},
                ]
            },
        }
    ),
    "Episode": _object(
        {
            "id": {"type": "string"},
            "session_id": {"type": "string"},
            "user": {"type": "string"},
            "workspace": {"type": "string"},
            "turns": {"type": "integer"},
            "created_at": _TIME,
            "summary": {"type": "string"},
            "facts": {"type": "array", "items": {"type": "string"}},
            "provenance": _object(
                {
                    "untrusted": {"type": "boolean"},
                    "sources": {"type": "array", "items": {"type": "string"}},
                    "user_approved": {"type": "boolean"},
                }
            ),
            "job": _NULLABLE_STRING,
            "model": _NULLABLE_STRING,
        }
    ),
    "Job": _object(
        {
            "id": {"type": "string"},
            "session_id": {"type": "string"},
            "turns": {"type": "integer"},
            "state": {"enum": ["pending", "failed"]},
            "attempts": {"type": "integer"},
            "next_at": {"type": ["string", "null"]},
            "last_error": _NULLABLE_STRING,
            "created_at": _TIME,
        }
    ),
    "EpisodeList": _object(
        {
            "count": {"type": "integer"},
            "episodes": {"type": "array", "items": _ref("Episode")},
            "jobs": {"type": "array", "items": _ref("Job"), "description": "extraction jobs not done yet"},
        }
    ),
    "Citation": _object(
        {
            "session": {"type": "string"},
            "turn": {"type": "integer", "minimum": 0, "description": "the session's user turn (1: the first)"},
            "role": {"enum": list(ROLES)},
            "ts": _TIME,
            "text": {"type": "string", "description": "a window of the line around the words that matched"},
            "untrusted": {"type": "boolean", "description": "its session took in untrusted content"},
        }
    ),
    "HistoryList": _object({"count": {"type": "integer"}, "history": {"type": "array", "items": _ref("Citation")}}),
    "Approved": _object({"ok": {"const": True}, "id": {"type": "string"}, "episode": _ref("Episode")}),
    "Rejected": _object({"ok": {"const": True}, "id": {"type": "string"}, "deleted": {"const": True}}),
}

_IDENTITY = [
    {
        "name": "X-Memory-User",
        "in": "header",
        "schema": {"type": "string"},
        "description": "whose memories (open mode; default: a hash of the bearer token), or a service key's user",
    },
    {"name": "X-Memory-Workspace", "in": "header", "schema": {"type": "string", "default": "default"}},
    {"name": "X-Memory-Session", "in": "header", "schema": {"type": "string"}, "description": "for scope: session"},
    {
        "name": "X-Memory-Admin-Key",
        "in": "header",
        "schema": {"type": "string"},
        "description": "auth.mode open: memory.admin_key, to write and delete global memories",
    },
]

_ENDED = _operation(
    "End a live session now; it becomes an extraction job if it had enough turns",
    _json(_ref("EndedSession"), "the session ended"),
    404,
    parameters=[_path_id("session_id", "the session's id (X-Memory-Session or its fp-... fingerprint)")],
)
_REJECT = _operation(
    "Reject an episode: it is deleted",
    _json(_ref("Rejected"), "deleted"),
    404,
    parameters=[_path_id("episode_id", "e-<16 hex digits>")],
)

_PATHS: dict[str, Any] = {
    "/memory/memories": {
        "get": _operation(
            "Your memories: relevant to q, else newest first",
            _json(_ref("MemoryList"), "the memories found"),
            parameters=[
                {"name": "q", "in": "query", "schema": {"type": "string"}, "description": "rank by relevance to this"},
                {"name": "tag", "in": "query", "schema": {"type": "string"}},
                {"name": "category", "in": "query", "schema": {"enum": list(CATEGORIES)}},
                {
                    "name": "held",
                    "in": "query",
                    "schema": {"enum": ["true", "false"]},
                    "description": "true: only the memories held for approval",
                },
                {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_LIMIT, "default": SEARCH_LIMIT},
                    "description": "out of range: 400",
                },
            ],
        ),
        "post": {
            "summary": "Store a memory, checked (length, tags, scope, category) and scanned for secrets and injections",
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("NewMemory")}}},
            "responses": {
                "201": _json(_ref("Stored"), "stored"),
                "200": _json(_ref("Stored"), "already stored: the existing memory"),
                **_errors(*_COMMON, 409, 413),
            },
        },
    },
    "/memory/memories/{memory_id}": {
        "delete": _operation(
            "Delete one of your memories",
            _json(_ref("Deleted"), "deleted"),
            404,
            parameters=[_path_id("memory_id", "m-<n>")],
        ),
        "patch": _operation(
            "Edit one of your memories in place (same id): text, tags, category, pinned; checked and scanned as new",
            _json(_ref("Edited"), "edited; a session's frozen block shows it from its next block"),
            404,
            409,
            413,
            parameters=[_path_id("memory_id", "m-<n>")],
            requestBody={"required": True, "content": {"application/json": {"schema": _ref("MemoryEdit")}}},
        ),
    },
    "/memory/pinned": {
        "get": _operation(
            "Your pinned facts: the user's profile and this workspace's environment, with their caps",
            _json(_ref("PinnedList"), "pinned facts by place"),
        )
    },
    "/memory/memories/{memory_id}/approve": {
        "post": _operation(
            "Approve a held memory: it may be injected and searched from now on",
            _json(_ref("Stored"), "approved"),
            404,
            409,
            parameters=[_path_id("memory_id", "m-<n>")],
        )
    },
    "/memory/export": {
        "get": _operation(
            "Your memories (this workspace and user-wide) as JSONL, then your history in this workspace",
            {
                "description": 'one memory per line, then one history line per line ({"kind": "history", ...}, '
                "skipped by an import)",
                "content": {"application/x-ndjson": {"schema": _ref("Memory")}},
            },
        )
    },
    "/memory/history": {
        "get": _operation(
            "What your past sessions in this workspace said, best matches for q first, each cited by session and turn",
            _json(_ref("HistoryList"), "the lines found"),
            parameters=[
                {"name": "q", "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}},
                {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_LIMIT, "default": 10},
                    "description": "out of range: 400",
                },
            ],
        )
    },
    "/memory/import": {
        "post": {
            "summary": "Import JSONL; each line is checked like a new memory, bad lines are reported and skipped",
            "requestBody": {
                "required": True,
                "content": {"application/x-ndjson": {"schema": {"type": "string", "description": "Memory lines"}}},
            },
            "responses": {"200": _json(_ref("ImportReport"), "what was imported"), **_errors(*_COMMON, 413)},
        }
    },
    "/memory/forget-all": {
        "post": {
            "summary": "Delete your memories here and user-wide, episodes, pending jobs, live sessions and history",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": _object({"confirm": {"const": True}})}},
            },
            "responses": {"200": _json(_ref("Forgotten"), "what was deleted"), **_errors(*_COMMON, 413)},
        }
    },
    "/memory/sessions": {
        "get": _operation("Your live sessions in this workspace", _json(_ref("SessionList"), "the live sessions"))
    },
    "/memory/sessions/{session_id}/end": {"post": _ENDED},
    "/memory/episodes": {
        "get": _operation(
            "Your episodes in this workspace, untrusted ones included, and extraction jobs not done yet",
            _json(_ref("EpisodeList"), "episodes and jobs"),
        )
    },
    "/memory/episodes/{episode_id}": {"delete": _REJECT},
    "/memory/episodes/{episode_id}/approve": {
        "post": _operation(
            "Approve an untrusted episode: it may be injected and searched, and its facts are stored",
            _json(_ref("Approved"), "approved"),
            404,
            parameters=[_path_id("episode_id", "e-<16 hex digits>")],
        )
    },
    "/memory/episodes/{episode_id}/reject": {"post": _REJECT},
    "/memory/openapi.json": {
        "get": {
            "summary": "This document",
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {}}}},
        }
    },
}


def document() -> dict[str, Any]:
    """The whole document; every operation but this one's takes the identity headers and the key schemes."""
    paths: dict[str, Any] = {}
    for path, operations in _PATHS.items():
        paths[path] = {}
        for method, operation in operations.items():
            if path != "/memory/openapi.json":
                operation = {**operation, "parameters": [*operation.get("parameters", ()), *_IDENTITY]}
            paths[path][method] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "memproxy management API",
            "version": "1",
            "description": "Memories, sessions and episodes of the caller (identity as for chat requests). "
            'Every error is OpenAI\'s envelope: {"error": {"message", "type", "param", "code"}}.',
        },
        "paths": paths,
        "components": {
            "schemas": _SCHEMAS,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a memproxy key (mp-...) or, in "
                    "auth.mode open, the provider key whose hash names the user",
                },
                "x_api_key": {"type": "apiKey", "in": "header", "name": "x-api-key"},
                "memproxy_key": {"type": "apiKey", "in": "header", "name": "X-Memproxy-Key"},
            },
        },
        "security": [{"bearer": []}, {"x_api_key": []}, {"memproxy_key": []}, {}],
    }


@cache
def document_bytes() -> bytes:
    return orjson.dumps(document())
