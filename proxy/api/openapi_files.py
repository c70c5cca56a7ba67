"""The memory files' part of the OpenAPI document (:mod:`.files`): the ``/memories`` directory of Anthropic's memory
tool, per user and workspace, and the changes to it waiting for a person's approval."""

from __future__ import annotations

from typing import Any

from ..memory.file_service import MAX_FILE_CHARS
from ..memory.memory_files import ORIGINS
from ..memory.service import MAX_SEARCH_LIMIT
from .openapi import _NULLABLE_STRING, _TIME, _etag_header, _if_match, _json, _object, _operation, _path_id, _ref

_PROVENANCE = _object(
    {
        "untrusted": {"type": "boolean", "description": "written by a session that took in untrusted content"},
        "sources": {"type": "array", "items": {"type": "string"}},
        "user_approved": {"type": "boolean"},
    }
)
_FILE_FIELDS: dict[str, Any] = {
    "path": {"type": "string", "description": "/memories/..."},
    "version": {"type": "integer", "minimum": 1, "description": "bumped by every write"},
    "created_at": _TIME,
    "updated_at": _TIME,
    "origin": {"enum": list(ORIGINS), "description": "the last write's way in: the memory tool, the API, an import"},
    "session": {**_NULLABLE_STRING, "description": "the session that last wrote it"},
    "key_id": {**_NULLABLE_STRING, "description": "auth.mode keys: the memproxy key behind the last write"},
    "provenance": _PROVENANCE,
}
_FILE_ETAG = _etag_header("file", '"file.v3"')
_IF_MATCH = _if_match("file", '"file.v3"', "whichever is there", "")
_IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "schema": {"const": "*"},
    "description": "only if there is no such file yet: else a 412 and nothing changes",
}


def _tagged(response: dict[str, Any]) -> dict[str, Any]:
    return {**response, "headers": _FILE_ETAG}


_PATH = {
    "name": "path",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "a file under /memories: notes.md, projects/a.md (/memories/ in front is optional)",
}

SCHEMAS: dict[str, Any] = {
    "MemoryFile": _object({**_FILE_FIELDS, "text": {"type": "string", "maxLength": MAX_FILE_CHARS}}),
    "ListedFile": _object(
        {
            **_FILE_FIELDS,
            "size": {"type": "integer", "description": "bytes (UTF-8)"},
            "lines": {"type": "integer"},
        }
    ),
    "FileList": _object(
        {
            "count": {"type": "integer"},
            "files": {"type": "array", "items": _ref("ListedFile")},
            "held": {"type": "integer", "description": "changes waiting for approval (GET /memory/file-proposals)"},
        }
    ),
    "Passage": _object(
        {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1}, "text": {"type": "string"}}
    ),
    "PassageList": _object({"count": {"type": "integer"}, "passages": {"type": "array", "items": _ref("Passage")}}),
    "FileProposal": _object(
        {
            "id": {"type": "string", "description": "fp-<16 hex digits>"},
            "path": {"type": "string"},
            "text": {**_NULLABLE_STRING, "description": "the proposed text; null: the file is to be deleted"},
            "created_at": _TIME,
            "session": _NULLABLE_STRING,
            "provenance": _PROVENANCE,
            "reason": {**_NULLABLE_STRING, "description": "what the scanner suspects in it, if that held it"},
            "base": {"type": ["integer", "null"], "description": "the file's version when proposed (null: none)"},
            "origin": {"enum": list(ORIGINS)},
            "key_id": _NULLABLE_STRING,
        }
    ),
    "ProposalList": _object(
        {
            "count": {"type": "integer"},
            "proposals": {
                "type": "array",
                "items": {
                    "allOf": [
                        _ref("FileProposal"),
                        _object({"current": {**_NULLABLE_STRING, "description": "the file's text now"}}),
                    ]
                },
            },
        }
    ),
    "FileWritten": {
        "oneOf": [
            _object(
                {
                    "ok": {"const": True},
                    "path": {"type": "string"},
                    "held": {"const": False},
                    "file": _ref("MemoryFile"),
                }
            ),
            _object(
                {
                    "ok": {"const": True},
                    "path": {"type": "string"},
                    "held": {"const": True},
                    "reason": {"type": "string", "description": "what the scanner suspects"},
                    "proposal": _ref("FileProposal"),
                }
            ),
        ]
    },
    "FileImport": _object(
        {
            "imported": {"type": "array", "items": {"type": "string"}},
            "unchanged": {"type": "array", "items": {"type": "string"}},
            "held": {"type": "array", "items": {"type": "string"}, "description": "imported as proposals"},
            "errors": {"type": "array", "items": _object({"line": {"type": "integer"}, "error": {"type": "string"}})},
        }
    ),
    "ExportedFile": _object({"kind": {"const": "file"}, **_FILE_FIELDS, "text": {"type": "string"}}),
}

PATHS: dict[str, Any] = {
    "/memory/files": {
        "get": _operation(
            "Your memory files in this workspace (the /memories directory Anthropic's memory tool keeps), or with q "
            "the passages of them that answer it",
            {
                "description": "the files, or (with q) the passages found",
                "content": {"application/json": {"schema": {"oneOf": [_ref("FileList"), _ref("PassageList")]}}},
            },
            parameters=[
                {"name": "q", "in": "query", "schema": {"type": "string"}, "description": "words to look for"},
                {
                    "name": "limit",
                    "in": "query",
                    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_LIMIT, "default": 10},
                    "description": "passages, with q",
                },
            ],
        )
    },
    "/memory/files/{path}": {
        "get": _operation(
            "One memory file, with its text and the ETag of its version",
            _tagged(_json(_object({"file": _ref("MemoryFile")}), "the file")),
            404,
            parameters=[_PATH],
        ),
        "put": {
            **_operation(
                "Write a memory file (new or replaced): scanned like a memory; a secret is refused, a suspect text "
                "is held as a proposal (202)",
                _tagged(_json(_ref("FileWritten"), "replaced (or the same text: unchanged)")),
                412,
                413,
                parameters=[_PATH, _IF_MATCH, _IF_NONE_MATCH],
            ),
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": _object({"text": {"type": "string", "maxLength": MAX_FILE_CHARS}})}
                },
            },
        }
        | {
            "responses": {
                **_operation("", _tagged(_json(_ref("FileWritten"), "replaced")), 412, 413)["responses"],
                "201": _tagged(_json(_ref("FileWritten"), "created")),
                "202": _json(_ref("FileWritten"), "held for approval: the file is unchanged"),
            }
        },
        "delete": _operation(
            "Delete a memory file, or a directory with every file under it",
            _json(_object({"ok": {"const": True}, "deleted": {"type": "array", "items": {"type": "string"}}}), "gone"),
            404,
            412,
            parameters=[_PATH, _IF_MATCH],
        ),
    },
    "/memory/file-proposals": {
        "get": _operation(
            "Changes to your memory files waiting for approval (written by a session that took in untrusted "
            "content, or suspected by the scanner), oldest first, each beside the file as it stands",
            _json(_ref("ProposalList"), "the proposals"),
        )
    },
    "/memory/file-proposals/{proposal_id}/approve": {
        "post": _operation(
            "Approve a proposed change: it is written (a deletion deletes the file)",
            _json(
                _object(
                    {
                        "ok": {"const": True},
                        "id": {"type": "string"},
                        "path": {"type": "string"},
                        "deleted": {"type": "boolean"},
                    }
                ),
                "written",
            ),
            404,
            parameters=[_path_id("proposal_id", "fp-<16 hex digits>")],
        )
    },
    "/memory/file-proposals/{proposal_id}/reject": {
        "post": _operation(
            "Reject a proposed change: it is dropped, the file stays as it is",
            _json(_ref("Rejected"), "dropped"),
            404,
            parameters=[_path_id("proposal_id", "fp-<16 hex digits>")],
        )
    },
}
