"""The OpenAPI document of the management API, served at ``GET /memory/openapi.json``.

Hand-written, so it says what the routes in :mod:`proxy.api` do rather than what a framework infers (the admin
routes' part lives in :mod:`.openapi_admin`);
``tests/api/test_openapi.py`` checks that it names every ``/memory`` route the app serves and that real answers
match its schemas. The value lists (scopes, categories, sources, limits) come from the modules that enforce them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson

from ..memory.history import ROLES
from ..memory.pages import DEFAULT_LIMIT, MAX_LIMIT
from ..memory.provenance import ORIGINS
from ..memory.records import CATEGORIES, CONFIDENCE_BY_SOURCE, MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_CHARS, SCOPES
from ..memory.service import MAX_SEARCH_LIMIT, SEARCH_LIMIT
from ..memory.versions import ACTOR_KINDS, CHANGES, KEPT_DELETED, MAX_VERSIONS, VIAS

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
        409: "a pin past its cap (pinned_cap_exceeded) or already pinned (duplicate_pin), or a reject of a memory "
        "that is not held (not_held): nothing changed",
        412: "If-Match names a version that is no longer current (version_mismatch; ETag: the current one): "
        "nothing changed",
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


def _etag_header(what: str, example: str) -> dict[str, Any]:
    return {
        "ETag": {
            "schema": {"type": "string", "examples": [example]},
            "description": f"a strong tag naming the {what}'s current version, for If-Match",
        }
    }


def _if_match(what: str, example: str, star: str, then: str) -> dict[str, Any]:
    return {
        "name": "If-Match",
        "in": "header",
        "schema": {"type": "string", "examples": [example, "*"]},
        "description": f"only if the {what} is still at this version (an ETag you read; * for {star}): else a 412 "
        f"and nothing changes{then}. Malformed: a 400",
    }


_ETAG = _etag_header("memory", '"m-12.v3"')
_IF_MATCH = _if_match(
    "memory", '"m-12.v3"', "any", "; the store checks it in its write, so of two writers with the same tag one wins"
)


def _tagged(response: dict[str, Any]) -> dict[str, Any]:
    return {**response, "headers": _ETAG}


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
            "version": {"type": "integer", "minimum": 1, "description": "bumped by every change; see /versions"},
            "held": {"type": "boolean", "description": "waiting for a person's approval: never injected or searched"},
            "injected_count": {
                "type": "integer",
                "minimum": 0,
                "description": "sessions whose block or notes carried it (written within a second or so; "
                "a block re-sent on later requests counts once)",
            },
            "last_injected": {
                "type": ["string", "null"],
                "description": "ISO-8601, UTC: when a session's block or note last carried it",
            },
        }
    ),
    "Actor": _object(
        {
            "kind": {"enum": list(ACTOR_KINDS)},
            "key_id": {"type": "string", "description": "auth.mode keys: the memproxy key behind the change"},
            "session": {"type": "string", "description": "the session the model (or an extraction) wrote in"},
            "episode": {"type": "string", "description": "the episode whose extraction wrote it"},
            "via": {"enum": list(VIAS), "description": "a person's (or an import's) way in"},
        },
        required=("kind",),
    ),
    "Version": _object(
        {
            "version": {"type": "integer", "minimum": 1},
            "text": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "category": {"enum": list(CATEGORIES)},
            "pinned": {"type": "boolean"},
            "held": {"type": "boolean"},
            "superseded_by": _NULLABLE_STRING,
            "at": _TIME,
            "change": {"enum": list(CHANGES)},
            "actor": _ref("Actor"),
        }
    ),
    "VersionList": _object(
        {
            "id": {"type": "string"},
            "deleted": {"type": "boolean", "description": "deleted: the newest version is its tombstone; restorable"},
            "count": {"type": "integer"},
            "versions": {
                "type": "array",
                "items": _ref("Version"),
                "description": f"newest first; a memory keeps its newest {MAX_VERSIONS}, and you the histories of "
                f"your newest {KEPT_DELETED} deleted memories",
            },
        }
    ),
    "Restored": _object(
        {
            "ok": {"const": True},
            "id": {"type": "string"},
            "restored": {"type": "integer", "description": "the version whose content is current again"},
            "memory": _ref("Memory"),
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
    "MemoryList": _object(
        {
            "count": {"type": "integer", "description": "memories on this page"},
            "total": {"type": "integer", "description": "memories that match, on every page"},
            "offset": {"type": "integer"},
            "next_offset": {"type": ["integer", "null"], "description": "the next page's offset; null: the last"},
            "capped": {
                "type": "boolean",
                "description": "with q: more memories share a word with q than the ranking's window (the best 200 per "
                "owner, more for a page past them) holds; total counts the ones within it",
            },
            "memories": {"type": "array", "items": _ref("ListedMemory")},
        }
    ),
    "ListedMemory": {
        "allOf": [_ref("Memory")],
        "type": "object",
        "properties": {
            "score": {
                "type": ["number", "null"],
                "description": "with q: the ranking's score (the block's ranking); null: matched q as a substring only",
            },
            "matched": {
                "type": "array",
                "items": {"type": "string"},
                "description": "with q: the words of q the memory's text, tags or category hold",
            },
        },
    },
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
            "files": _ref("FileImport"),
        }
    ),
    "Forgotten": _object(
        {
            "ok": {"const": True},
            "deleted": {"type": "integer", "description": "memories"},
            "files": {"type": "integer", "description": "memory files and the changes to them awaiting approval"},
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
            "live": {"type": "boolean", "description": "tracked by the process that answered; false: ended"},
            "state": {"enum": ["active", "ended"], "description": "active when live"},
            "turns": {"type": "integer"},
            "model": {**_NULLABLE_STRING, "description": "known while the session is live"},
            "started_at": {"type": ["string", "null"], "description": "ISO-8601, UTC; null: not known here"},
            "last_seen": {"type": ["string", "null"], "description": "ISO-8601, UTC; null: not known here"},
            "tools": {"type": "array", "items": {"type": "string"}, "description": "client tools it called"},
            "untrusted": {"type": "boolean", "description": "it took in untrusted content: its writes are held"},
            "sources": {"type": "array", "items": {"type": "string"}, "description": "the untrusted tools it called"},
        }
    ),
    "SessionList": _object(
        {
            "count": {"type": "integer"},
            "sessions": {"type": "array", "items": _ref("Session"), "description": "most recently seen first"},
            "next": {**_NULLABLE_STRING, "description": "pass as `before` for the next page; null: the last page"},
        }
    ),
    "Why": {
        "oneOf": [
            _object({"pinned": {"const": True}}),
            _object(
                {
                    "score": {"type": "number", "description": "its ranking score (BM25, fused with embeddings)"},
                    "terms": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "the query's terms (stemmed words) it matched",
                    },
                }
            ),
            _object({"recent": {"const": True}}, required=("recent",)),
            {"type": "null", "description": "not known (state written by an older memproxy)"},
        ],
        "description": "why recall chose the entry: pinned, ranked for the query, or one of the newest",
    },
    "GivenEntry": _object(
        {
            "id": {"type": "string", "description": "m-<n>, or e-<16 hex> for an episode"},
            "kind": {"enum": ["memory", "episode", "pinned"]},
            "text": {
                "type": "string",
                "description": "the memory's text, or the episode's summary, as the block or note shows it",
            },
            "why": _ref("Why"),
            "excerpt": {
                "type": "boolean",
                "description": "the block showed part of a long memory (cut where the text shows …): GET "
                "/memory/memories/{id} or memory_retrieve reads it whole",
            },
        }
    ),
    "GivenBlock": _object(
        {
            "text": {**_NULLABLE_STRING, "description": "the block exactly as sent; null: nothing qualified"},
            "entries": {"type": "array", "items": _ref("GivenEntry")},
        }
    ),
    "GivenNote": _object(
        {
            "before": {"type": "integer", "description": "position of the user message it precedes (chat-shaped)"},
            "text": {"type": "string", "description": "the note exactly as sent"},
            "entries": {"type": "array", "items": _ref("GivenEntry")},
        }
    ),
    "Turn": _object(
        {
            "turn": {"type": "integer", "minimum": 0, "description": "the session's user turn (1: the first)"},
            "role": {"enum": list(ROLES)},
            "ts": _TIME,
            "text": {"type": "string", "description": "as history keeps it: the proxy's additions out, secrets masked"},
        }
    ),
    "SessionDetail": _object(
        {
            "session": _ref("Session"),
            "block": {
                "oneOf": [_ref("GivenBlock"), {"type": "null"}],
                "description": "null: no block known here (never chosen by this process, or its state is gone)",
            },
            "notes": {"type": "array", "items": _ref("GivenNote")},
            "turns": {"type": "array", "items": _ref("Turn"), "description": "its lines in history, in order"},
            "episode": {
                "oneOf": [_object({"id": {"type": "string"}, "held": {"type": "boolean"}}), {"type": "null"}],
                "description": "the episode extracted from it, if any",
            },
        }
    ),
    "ExcerptLine": _object(
        {
            "session": {"type": "string"},
            "turn": {"type": "integer", "minimum": 0},
            "role": {"enum": list(ROLES)},
            "ts": _TIME,
            "text": {"type": "string"},
            "tool": {"type": "boolean", "description": "the line calls or returns one of the untrusted tools"},
        }
    ),
    "Evidence": _object(
        {
            "session": {**_NULLABLE_STRING, "description": "the session that wrote it"},
            "sources": {"type": "array", "items": {"type": "string"}, "description": "the untrusted tools it called"},
            "excerpt": {
                "type": "array",
                "items": _ref("ExcerptLine"),
                "description": "the session's history around its first untrusted tool line; empty when history "
                "holds none of it",
            },
        }
    ),
    "FactOutcome": _object(
        {
            "text": {"type": "string"},
            "action": {
                "enum": ["add", "supersede", "merge", "rejected"],
                "description": "what approving the episode would do with the fact (a dry run: nothing written)",
            },
            "memory": {
                "oneOf": [_ref("Memory"), {"type": "null"}],
                "description": "the live memory it would supersede (supersede) or that says it already (merge)",
            },
            "similarity": {"type": ["number", "null"], "description": "to the live memory most like it, 0 to 1"},
        }
    ),
    "ReviewItem": _object(
        {
            "kind": {"enum": ["memory", "episode"]},
            "id": {"type": "string"},
            "at": _TIME,
            "memory": _ref("Memory"),
            "episode": _ref("Episode"),
            "facts": {"type": "array", "items": _ref("FactOutcome")},
            "evidence": _ref("Evidence"),
        },
        required=("kind", "id", "at", "evidence"),
    ),
    "HeldCount": _object(
        {
            "memories": {"type": "integer"},
            "episodes": {"type": "integer"},
            "files": {"type": "integer"},
            "total": {"type": "integer"},
        }
    ),
    "ReviewList": _object(
        {
            "count": {"type": "integer"},
            "held": _ref("HeldCount"),
            "items": {"type": "array", "items": _ref("ReviewItem"), "description": "newest first"},
            "next": {**_NULLABLE_STRING, "description": "pass as `before` for the next page; null: the last page"},
        }
    ),
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

_PAGE = [
    {
        "name": "limit",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        "description": "out of range: 400",
    },
    {
        "name": "before",
        "in": "query",
        "schema": {"type": "string"},
        "description": "the `next` of the previous page; anything else: 400",
    },
]

_IDENTITY = [
    {
        "name": "X-Memory-User",
        "in": "header",
        "schema": {"type": "string"},
        "description": "whose memories (open mode; default: a hash of the bearer token), a service key's end user, "
        "or, with an admin key, any user (as stored)",
    },
    {"name": "X-Memory-Workspace", "in": "header", "schema": {"type": "string", "default": "default"}},
    {"name": "X-Memory-Session", "in": "header", "schema": {"type": "string"}, "description": "for scope: session"},
    {
        "name": "X-Memory-Admin-Key",
        "in": "header",
        "schema": {"type": "string"},
        "description": "auth.mode open: memory.admin_key, to write and delete global memories and to use the admin "
        "routes (keys, users' forget, health), on those with no user named",
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
            "Your memories: relevant to q (each with its score and matched words), else newest first; a page of them",
            _json(_ref("MemoryList"), "the memories found"),
            parameters=[
                {"name": "q", "in": "query", "schema": {"type": "string"}, "description": "rank by relevance to this"},
                {"name": "tag", "in": "query", "schema": {"type": "string"}},
                {"name": "category", "in": "query", "schema": {"enum": list(CATEGORIES)}},
                {"name": "origin", "in": "query", "schema": {"enum": list(ORIGINS)}, "description": "its way in"},
                {"name": "scope", "in": "query", "schema": {"enum": list(SCOPES)}},
                {
                    "name": "pinned",
                    "in": "query",
                    "schema": {"enum": ["true", "false"]},
                    "description": "true: only pinned facts; false: only the others",
                },
                {"name": "session", "in": "query", "schema": {"type": "string"}, "description": "written in it"},
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
                {
                    "name": "offset",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 0, "default": 0},
                    "description": "skip this many matches (next_offset of the page before)",
                },
            ],
        ),
        "post": {
            "summary": "Store a memory, checked (length, tags, scope, category) and scanned for secrets and injections",
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("NewMemory")}}},
            "responses": {
                "201": _tagged(_json(_ref("Stored"), "stored")),
                "200": _tagged(_json(_ref("Stored"), "already stored: the existing memory")),
                **_errors(*_COMMON, 409, 413),
            },
        },
    },
    "/memory/memories/{memory_id}": {
        "get": _operation(
            "One of your memories, held and superseded ones too, with the ETag of its current version",
            _tagged(_json(_ref("Memory"), "the memory")),
            404,
            parameters=[_path_id("memory_id", "m-<n>")],
        ),
        "delete": _operation(
            "Delete one of your memories (its last version: a restore undoes it)",
            _json(_ref("Deleted"), "deleted"),
            404,
            412,
            parameters=[_path_id("memory_id", "m-<n>"), _IF_MATCH],
        ),
        "patch": _operation(
            "Edit one of your memories in place (same id): text, tags, category, pinned; checked and scanned as new",
            _tagged(_json(_ref("Edited"), "edited (a new version); a session's frozen block shows it from its next")),
            404,
            409,
            412,
            413,
            parameters=[_path_id("memory_id", "m-<n>"), _IF_MATCH],
            requestBody={"required": True, "content": {"application/json": {"schema": _ref("MemoryEdit")}}},
        ),
    },
    "/memory/memories/{memory_id}/versions": {
        "get": _operation(
            "Every change to one of your memories, newest first: what it was, when, and who made it",
            _tagged(_json(_ref("VersionList"), "its versions; the ETag names the newest")),
            404,
            parameters=[_path_id("memory_id", "m-<n>")],
        )
    },
    "/memory/memories/{memory_id}/restore": {
        "post": _operation(
            "Make a version's text, tags, category and pin current again (a new version, checked like an edit); "
            "a deleted memory comes back under its id",
            _tagged(_json(_ref("Restored"), "restored")),
            404,
            409,
            412,
            413,
            parameters=[_path_id("memory_id", "m-<n>"), _IF_MATCH],
            requestBody={
                "required": True,
                "content": {
                    "application/json": {
                        "schema": _object({"version": {"type": "integer", "minimum": 1}}),
                    }
                },
            },
        )
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
            _tagged(_json(_ref("Stored"), "approved")),
            404,
            409,
            parameters=[_path_id("memory_id", "m-<n>")],
        )
    },
    "/memory/export": {
        "get": _operation(
            "Your memories (this workspace and user-wide) as JSONL, then your memory files and your history in this "
            "workspace",
            {
                "description": 'one memory per line, then one memory file per line ({"kind": "file", ...}, written '
                'back by an import), then one history line per line ({"kind": "history", ...}, skipped by an import)',
                "content": {
                    "application/x-ndjson": {
                        "schema": {
                            "anyOf": [
                                _ref("Memory"),
                                _ref("ExportedFile"),
                                _object({"kind": {"const": "history"}}),  # HistoryLine.to_json
                            ]
                        }
                    }
                },
            },
        )
    },
    "/memory/history": {
        "get": _operation(
            "What your past sessions in this workspace said, best matches for q first, each cited by session and turn "
            "(GET /memory/sessions/{session_id} gives one session's turns in order)",
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
        "get": _operation(
            "Your sessions in this workspace: live ones and past ones history knows, most recently seen first",
            _json(_ref("SessionList"), "a page of sessions"),
            parameters=[
                *_PAGE,
                {
                    "name": "live",
                    "in": "query",
                    "schema": {"enum": ["true", "false"]},
                    "description": "true: only live sessions; false: only ended ones",
                },
            ],
        )
    },
    "/memory/sessions/{session_id}": {
        "get": _operation(
            "One of your sessions: what it was given (block and notes as sent, each entry with why it was chosen) "
            "and its turns from history",
            _json(_ref("SessionDetail"), "the session"),
            404,
            parameters=[_path_id("session_id", "the session's id (X-Memory-Session or its fp-... fingerprint)")],
        )
    },
    "/memory/review": {
        "get": _operation(
            "What waits for your approval: held memories and episodes, newest first, each with the evidence that "
            "held it",
            _json(_ref("ReviewList"), "a page of the review queue"),
            parameters=_PAGE,
        )
    },
    "/memory/memories/{memory_id}/reject": {
        "post": _operation(
            "Reject a held memory: it is deleted (a memory that is not held: 409 not_held)",
            _json(_ref("Rejected"), "deleted"),
            404,
            409,
            parameters=[_path_id("memory_id", "m-<n>")],
        )
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
    from . import openapi_admin, openapi_files  # they build on this module's vocabulary

    paths: dict[str, Any] = {}
    for path, operations in (_PATHS | openapi_admin.PATHS | openapi_files.PATHS).items():
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
            "schemas": _SCHEMAS | openapi_admin.SCHEMAS | openapi_files.SCHEMAS,
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
