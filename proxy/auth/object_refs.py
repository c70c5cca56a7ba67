"""Where requests name upstream objects: in the path (``/v1/responses/{id}``) and in the body (``previous_response_id``,
``conversation``, a ``file_id``, a tool's ``vector_store_ids`` or ``container``). Pure: no I/O.

With a shared upstream key these are what one user could use to reach another's stored context, so every id named
is checked against who made it (:mod:`proxy.auth.objects`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

# Collections of objects a user makes with the upstream's key, as paths under /v1: OpenAI's, and Anthropic's
# message batches (Anthropic's Files API is not routed to Anthropic by memproxy). Longest first.
COLLECTIONS = (
    "fine_tuning/jobs",
    "chat/completions",
    "messages/batches",
    "vector_stores",
    "conversations",
    "containers",
    "assistants",
    "responses",
    "batches",
    "threads",
    "uploads",
    "files",
    "evals",
)
MAX_DEPTH = 64
# Body keys that name objects a user made: in a model request, and in the management bodies that pass through
# (``/v1/batches``'s ``input_file_id``, a fine-tuning job's ``training_file``, a vector store's ``file_ids``).
ID_KEYS = frozenset({"file_id", "previous_response_id", "container", "input_file_id", "training_file",
                     "validation_file"})  # fmt: skip
ID_LIST_KEYS = frozenset({"file_ids", "vector_store_ids"})
BODY_PARAMS = ID_KEYS | ID_LIST_KEYS | {"conversation"}


@dataclass(frozen=True, slots=True)
class ObjectPath:
    collection: str  # one of COLLECTIONS
    id: str | None  # the object, or None for the collection itself (POST creates, GET lists)


def object_path(path: str) -> ObjectPath | None:
    """The collection and object a pass-through path names, if any (``/v1/x`` and ``/x`` alike)."""
    rest = path[4:] if path.startswith("/v1/") else path[1:]
    for collection in COLLECTIONS:
        if rest == collection or rest == collection + "/":
            return ObjectPath(collection, None)
        if rest.startswith(collection + "/"):
            ident = unquote(rest[len(collection) + 1 :].split("/", 1)[0])
            return ObjectPath(collection, ident or None)
    return None


@dataclass(frozen=True, slots=True)
class Reference:
    param: str  # where it was named: previous_response_id, conversation, file_id, vector_store_ids, container
    id: str


def references(payload: Any) -> list[Reference]:
    """Every object id a body names, wherever it sits (a pass-through body: not on the chat path)."""
    found: list[Reference] = []
    if isinstance(payload, dict):
        for key, value in _items(payload, 0):
            _collect(found, key, value)
    return found


def request_references(payload: dict[str, Any]) -> list[Reference]:
    """The object ids a model request names, read where the three APIs take them: ``previous_response_id`` and
    ``conversation``; a tool's ``vector_store_ids`` and ``container``; a content part's ``file_id`` (Responses'
    ``input_file``, chat's ``file``, Anthropic's ``source``), in messages, input items and tool outputs.

    A targeted read, not a walk of the whole body: this runs on every request of a shared key's callers."""
    found: list[Reference] = []
    for key in ("previous_response_id", "conversation"):
        if key in payload:
            _collect(found, key, payload[key])
    tools = payload.get("tools")
    if isinstance(tools, list):
        for tool in tools:
            if isinstance(tool, dict):
                for key in ("vector_store_ids", "container"):
                    if key in tool:
                        _collect(found, key, tool[key])
    for listed in (payload.get("messages"), payload.get("input")):
        if type(listed) is list:
            for item in listed:
                # Most messages hold a string: a glance each. Lists of parts (and a function_call_output's) are read.
                if type(item) is dict and (type(item.get("content")) is list or type(item.get("output")) is list):
                    _parts(found, item.get("content"), 0)
                    _parts(found, item.get("output"), 0)
    return found


def _parts(found: list[Reference], content: Any, depth: int) -> None:
    if not isinstance(content, list) or depth > 2:
        return
    for part in content:
        if not isinstance(part, dict):
            continue
        if "file_id" in part:
            _collect(found, "file_id", part["file_id"])
        for holder in ("file", "source"):  # chat's {"type": "file", "file": {...}}, Anthropic's source
            inner = part.get(holder)
            if isinstance(inner, dict) and "file_id" in inner:
                _collect(found, "file_id", inner["file_id"])
        if "content" in part:  # Anthropic's tool_result holds content blocks of its own
            _parts(found, part["content"], depth + 1)


def _collect(found: list[Reference], key: str, value: Any) -> None:
    if key in ID_KEYS and isinstance(value, str):
        found.append(Reference(key, value))
    elif key in ID_LIST_KEYS and isinstance(value, list):
        found.extend(Reference(key, item) for item in value if isinstance(item, str))
    elif key == "conversation":
        ident = value.get("id") if isinstance(value, dict) else value
        if isinstance(ident, str):
            found.append(Reference(key, ident))


def _items(node: Any, depth: int) -> Iterator[tuple[str, Any]]:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            if isinstance(value, dict | list):
                yield from _items(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, dict | list):
                yield from _items(value, depth + 1)


def not_found_message(param: str, ident: str) -> str:
    """The upstream's own wording for an object it does not have (OpenAI's, for the ones it words specially)."""
    if param == "previous_response_id":
        return f"Previous response with id '{ident}' not found."
    if param in ("responses", "conversations"):
        kind = "Response" if param == "responses" else "Conversation"
        return f"{kind} with id '{ident}' not found."
    if param in ("files", "file_id", "file_ids", "input_file_id", "training_file", "validation_file"):
        return f"No such File object: {ident}"
    return f"No such object: {ident}"
