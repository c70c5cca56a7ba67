"""The OpenAPI paths and schemas of the admin routes (:mod:`.keys`, :mod:`.admin`), merged into
:mod:`.openapi`'s document. The value lists come from the modules that enforce them."""

from __future__ import annotations

from typing import Any

from ..admin.forgetting import KINDS, MAX_USER_CHARS
from ..memory.census import Tally
from ..memory.keys import KINDS as KEY_KINDS
from .openapi import _TIME, _errors, _json, _object, _operation, _path_id, _ref

_COUNT = {"type": "integer", "minimum": 0}
_TALLY = {
    "memories": {**_COUNT, "description": "live memories, held ones not counted"},
    "held": {**_COUNT, "description": "live memories held for review (written by an untrusted session)"},
    "pinned": {**_COUNT, "description": "live pinned facts, held ones not counted"},
    "superseded": {**_COUNT, "description": "earlier wordings kept beside the memories that replaced them"},
    "episodes": {**_COUNT, "description": "every episode, held ones included"},
    "held_episodes": {**_COUNT, "description": "untrusted episodes not approved yet"},
    "history": {**_COUNT, "description": "conversation lines kept"},
    "details": {**_COUNT, "description": "offloaded tool outputs (context.offload_chars)"},
    "files": {**_COUNT, "description": "memory files (Anthropic's memory tool) and changes to them awaiting approval"},
}
assert set(_TALLY) == set(Tally().to_json())  # the schema says what Tally.to_json writes
_SESSIONS = {**_COUNT, "description": "live sessions in the process that answered"}
_ADMIN_ONLY = {"403": _json(_ref("Error"), "not an admin (admin_key_required)")}

SCHEMAS: dict[str, Any] = {
    "Key": _object(
        {
            "id": {"type": "string", "examples": ["k-1a2b3c4d5e6f"]},
            "user": {"type": "string"},
            "kind": {"enum": list(KEY_KINDS)},
            "created": _TIME,
            "revoked": {"type": ["string", "null"], "description": "ISO-8601, UTC; null while the key works"},
            "active": {"type": "boolean"},
        }
    ),
    "KeyList": _object(
        {"count": _COUNT, "keys": {"type": "array", "items": _ref("Key"), "description": "oldest first"}}
    ),
    "NewKey": _object(
        {
            "user": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "whose key: its requests' user",
            },
            "kind": {
                "enum": list(KEY_KINDS),
                "default": "personal",
                "description": "personal: acts for its user; service: names its end users with X-Memory-User; "
                "admin: also global memories, keys, users, health",
            },
        },
        required=("user",),
    ),
    "CreatedKey": {
        "allOf": [
            _ref("Key"),
            _object({"ok": {"const": True}, "key": {"type": "string", "pattern": "^mp-", "description": "shown once"}}),
        ]
    },
    "RevokedKey": {"allOf": [_ref("Key"), _object({"ok": {"const": True}})]},
    "Tally": _object(_TALLY),
    "User": _object(
        {
            "user": {"type": "string", "description": "as you name them in X-Memory-User"},
            "stored": {
                "type": "string",
                "description": "as the store names them (svc:<key id>:<name> for a service's end user)",
            },  # fmt: skip
            "counts": _object({**_TALLY, "sessions": _SESSIONS, "keys": {**_COUNT, "description": "active keys"}}),
            "workspaces": {
                "type": "array",
                "items": _object(
                    {"workspace": {"type": "string"}, "counts": _object({**_TALLY, "sessions": _SESSIONS})}
                ),
            },
            "user_wide": {**_ref("Tally"), "description": "memories that follow the user across workspaces"},
        }
    ),
    "UserList": _object(
        {
            "count": _COUNT,
            "scope": {"enum": ["all", "service", "user"], "description": "admin, service key, anyone else"},
            "users": {"type": "array", "items": _ref("User")},
        }
    ),
    "HeldInScope": _object(
        {
            "scope": {"enum": ["all", "service", "user"]},
            "memories": _COUNT,
            "episodes": _COUNT,
            "files": _COUNT,
            "total": _COUNT,
        }
    ),
    "Forgetting": _object(
        {
            "ok": {"const": True, "description": "only when it was done (POST)"},
            "user": {"type": "string"},
            "workspaces": {"type": "array", "items": {"type": "string"}},
            "counts": {
                **_object({kind: _COUNT for kind in KINDS}),
                "additionalProperties": _COUNT,
                "description": "by kind; kinds added later (memory versions) appear as more keys",
            },
            "total": _COUNT,
            "preview": {"type": "boolean", "description": "true: nothing was deleted"},
        },
        required=("user", "workspaces", "counts", "total", "preview"),
    ),
    "Health": _object(
        {
            "backend": {"enum": ["files", "postgres"]},
            "schema": _object(
                {
                    "backend": {"enum": ["files", "postgres"]},
                    "version": {"type": "string", "description": "the newest migration applied, or files-<n>"},
                    "expected": {"type": "string", "description": "what this memproxy writes"},
                    "current": {"type": "boolean"},
                    "applied": {"type": "array", "items": {"type": "string"}, "description": "PostgreSQL's"},
                }
            ),
            "queue": _object({"queued": _COUNT, "running": _COUNT, "failed": _COUNT}),
            "held": _object({"memories": _COUNT, "episodes": _COUNT, "files": _COUNT, "total": _COUNT}),
            "owners": {**_COUNT, "description": "(user, workspace) pairs and users' user-wide places"},
            "users": _COUNT,
            "unnamed_owners": {
                "type": "array",
                "items": {"type": "string"},
                "description": "files store directories whose user and workspace are not known",
            },
            "memories": _object({"live": _COUNT, "held": _COUNT, "pinned": _COUNT, "superseded": _COUNT}),
            "episodes": _COUNT,
            "history": _COUNT,
            "errors": {
                "type": "array",
                "description": "this process's last WARNING-or-worse log records, newest first, redacted",
                "items": _object(
                    {
                        "at": _TIME,
                        "level": {"enum": ["WARNING", "ERROR", "CRITICAL"]},
                        "logger": {"type": "string"},
                        "message": {"type": "string"},
                    }
                ),
            },
        }
    ),
}

_USER = {
    "name": "user",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_USER_CHARS},
    "description": "the user as stored (an X-Memory-User value), URL-encoded: any printable characters, / included",
}
_CONFIRM = {"required": True, "content": {"application/json": {"schema": _object({"confirm": {"const": True}})}}}


def _admin(summary: str, ok: dict[str, Any], *statuses: int, ok_status: int = 200, **extra: Any) -> dict[str, Any]:
    operation = _operation(summary, ok, *statuses, ok_status=ok_status, **extra)
    operation["responses"] |= _ADMIN_ONLY
    return operation


PATHS: dict[str, Any] = {
    "/memory/keys": {
        "get": _admin(
            "Every memproxy key (admins): ids, users, kinds, times; never a key", _json(_ref("KeyList"), "the keys")
        ),
        "post": {
            "summary": "Create a key (admins); the key is in the answer, once: only its hash is stored",
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("NewKey")}}},
            "responses": {"201": _json(_ref("CreatedKey"), "created"), **_errors(400, 401, 403, 413, 503)}
            | _ADMIN_ONLY,
        },
    },
    "/memory/keys/{key_id}": {
        "delete": _admin(
            "Revoke a key (admins): every process sharing the store refuses it within a second",
            _json(_ref("RevokedKey"), "revoked (revoking it again changes nothing)"),
            404,
            parameters=[_path_id("key_id", "k-<hex>")],
        )
    },
    "/memory/users": {
        "get": _operation(
            "Users with their workspaces and counts: every user for an admin, a service key's own user and end "
            "users, else yourself",
            _json(_ref("UserList"), "by name"),
        )
    },
    "/memory/held": {
        "get": _operation(
            "How many memories and episodes wait for review in your scope (an admin: everyone's, global included)",
            _json(_ref("HeldInScope"), "the counts"),
        )
    },
    "/memory/users/{user}/forget": {
        "get": _admin(
            "What forgetting this user would delete, by kind, in every workspace (admins); nothing is deleted",
            _json(_ref("Forgetting"), "the preview"),
            404,
            parameters=[_USER],
        ),
        "post": _admin(
            "Forget this user (admins): everything of theirs in every workspace, on this store; keys stay",
            _json(_ref("Forgetting"), "what was deleted"),
            404,
            413,
            parameters=[_USER],
            requestBody=_CONFIRM,
        ),
    },
    "/memory/health": {
        "get": _admin(
            "The store's health (admins): backend, schema, extraction queue, held, totals, recent errors",
            _json(_ref("Health"), "the store's health"),
        )
    },
}
