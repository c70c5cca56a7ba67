"""Responses stream events checked against their own schema in OpenAI's OpenAPI description.

``ResponseStreamEvent`` is an ``anyOf`` of some sixty event schemas, so a failure against it names no
culprit; each event is checked against the one schema its ``type`` names instead. The spec still writes
two fields real responses carry as null (``usage`` on ``response.created``, ``user``) without allowing
null; the test objects leave them out rather than loosen the spec.
"""

from __future__ import annotations

import functools
from typing import Any

from ..openapi_spec import SPEC_URI, _registry, validate


@functools.cache
def event_schemas() -> dict[str, str]:
    """Event type -> the name of its schema, for every member of ``ResponseStreamEvent``."""
    schemas = _registry()[SPEC_URI].contents["components"]["schemas"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in schemas["ResponseStreamEvent"]["anyOf"]]
    by_type = {}
    for name in names:
        kinds = schemas[name].get("properties", {}).get("type", {}).get("enum") or ()
        by_type.update(dict.fromkeys(kinds, name))
    return by_type


def validate_event(event: dict[str, Any]) -> None:
    schema = event_schemas().get(event.get("type", ""))
    assert schema is not None, f"no Responses stream event of type {event.get('type')!r}"
    validate(schema, event)
