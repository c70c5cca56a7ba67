"""Regenerate ``schemas.json``: the part of OpenAI's OpenAPI description the suite validates against.

The whole description is 3 MB of YAML in OpenAI's ``openai-openapi`` repository (MIT); the suite needs only the
component schemas reachable from the roots below, so that subset lives in the repository and a fresh clone's
tests need nothing beside it. Run it when OpenAI's description changes:

    python tests/openai/trim.py path/to/openai-openapi/openapi.yaml

Schemas are copied as they are (``nullable`` and all); ``tests/openapi_spec.py`` rewrites them at load time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

# Every schema a test names, and what responses and events are checked against.
ROOTS = (
    "CreateChatCompletionRequest",
    "CreateChatCompletionResponse",
    "CreateChatCompletionStreamResponse",
    "CreateEmbeddingResponse",
    "CreateResponse",
    "ErrorResponse",
    "FunctionTool",
    "InputItem",
    "ListModelsResponse",
    "Model",
    "Response",
    "ResponseStreamEvent",
)
PREFIX = "#/components/schemas/"
OUT = Path(__file__).with_name("schemas.json")


def references(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith(PREFIX):
                found.add(ref[len(PREFIX) :])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def trim(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document["components"]["schemas"]
    kept: dict[str, Any] = {}
    waiting = list(ROOTS)
    while waiting:
        name = waiting.pop()
        if name in kept:
            continue
        kept[name] = schemas[name]
        waiting.extend(references(schemas[name]) - kept.keys())
    info = document.get("info", {})
    return {
        "openapi": document.get("openapi"),
        "info": {"title": info.get("title"), "version": info.get("version")},
        "x-trimmed": f"component schemas reachable from {', '.join(ROOTS)}; regenerate with tests/openai/trim.py",
        "components": {"schemas": dict(sorted(kept.items()))},
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: python tests/openai/trim.py path/to/openapi.yaml\n")
        return 2
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(argv[1], "rb") as handle:
        document = yaml.load(handle, Loader=loader)
    trimmed = trim(document)
    # json, not orjson: the description holds integers past 64 bits (int64 bounds written as literals).
    OUT.write_text(json.dumps(trimmed, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(f"{OUT}: {len(trimmed['components']['schemas'])} schemas\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
