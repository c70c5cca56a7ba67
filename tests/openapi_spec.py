"""Validate response objects against the schemas in OpenAI's own OpenAPI description.

The schemas the suite needs live in the repository (``tests/openai/schemas.json``, trimmed from OpenAI's
``openai-openapi`` description by ``tests/openai/trim.py``); ``$OPENAI_OPENAPI_SPEC`` names another copy (the whole
YAML, or a trimmed JSON) to check against instead. It claims
OpenAPI 3.1 but still uses 3.0's ``nullable: true`` and boolean ``exclusiveMinimum``; both are rewritten to JSON
Schema 2020-12 once, at load time, so real responses validate.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_URI = "urn:openai:openapi"
_COMPOSITION = ("$ref", "allOf", "anyOf", "oneOf")
_OAS30_KEYWORDS = frozenset({"nullable", "exclusiveMinimum", "exclusiveMaximum"})


def spec_path() -> Path:
    override = os.environ.get("OPENAI_OPENAPI_SPEC")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent / "openai" / "schemas.json"


def _fix_schema(node: dict[str, Any]) -> dict[str, Any]:
    """Rewrites one schema object's OAS-3.0 keywords into JSON Schema 2020-12."""
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if node.get(exclusive) is True and bound in node:
            node[exclusive] = node.pop(bound)
        elif isinstance(node.get(exclusive), bool):
            node.pop(exclusive)
    if node.get("nullable") is not True:
        node.pop("nullable", None)
        return node
    del node["nullable"]
    kind = node.get("type")
    if kind is None or any(key in node for key in _COMPOSITION):
        # No type to widen (or a composition that would reject null on its own): accept null beside it.
        return {"anyOf": [node, {"type": "null"}]}
    node["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def _rewrite(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewrite(item) for item in node]
    if not isinstance(node, dict):
        return node
    fixed = {key: _rewrite(value) for key, value in node.items()}
    return _fix_schema(fixed) if _OAS30_KEYWORDS.intersection(fixed) else fixed


@functools.cache
def _registry() -> Registry:
    """Parses and rewrites the spec once per process (the trimmed JSON in a tenth of a second; the whole YAML in
    about a second with libyaml)."""
    path = spec_path()
    if not path.is_file():
        raise FileNotFoundError(f"OpenAI OpenAPI spec not found at {path}; set OPENAI_OPENAPI_SPEC")
    if path.suffix == ".json":
        document = _rewrite(json.loads(path.read_text(encoding="utf-8")))
    else:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        with path.open("rb") as handle:
            document = _rewrite(yaml.load(handle, Loader=loader))
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    return Registry().with_resource(SPEC_URI, resource)


@functools.cache
def _validator(schema_name: str) -> Draft202012Validator:
    registry = _registry()
    schemas = registry[SPEC_URI].contents["components"]["schemas"]
    if schema_name not in schemas:
        raise KeyError(f"no schema named {schema_name!r} in the OpenAI spec")
    return Draft202012Validator({"$ref": f"{SPEC_URI}#/components/schemas/{schema_name}"}, registry=registry)


def validate(schema_name: str, instance: object) -> None:
    """Asserts that `instance` matches `#/components/schemas/<schema_name>`, listing every violation."""
    errors = sorted(_validator(schema_name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [_describe(e) for e in errors]
        raise AssertionError(f"{schema_name} validation failed ({len(errors)} errors):\n" + "\n".join(lines))


def _describe(error: ValidationError) -> str:
    where = "/".join(map(str, error.absolute_path)) or "<root>"
    line = f"  at {where}: {error.message}"
    if error.context:  # anyOf/oneOf: say which branch came closest and why it failed
        closest = best_match(error.context)
        line += f" (closest: {'/'.join(map(str, closest.absolute_path)) or '<root>'}: {closest.message})"
    return line
