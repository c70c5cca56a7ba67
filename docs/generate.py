"""The MkDocs hook that writes the reference pages from the code, so they cannot drift from it: the configuration
reference from the settings model (proxy/config.py: names, types, defaults and each field's docstring) and the API
reference from the OpenAPI document proxy/api/openapi.py builds. A page asks for one with a marker line
(``<!-- generated: settings -->``, ``<!-- generated: openapi -->``); the build replaces it.

It also adds docs/recall.md to the navigation when the page is there (it is written on another branch)."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

SETTINGS_MARKER = "<!-- generated: settings -->"
OPENAPI_MARKER = "<!-- generated: openapi -->"
OPTIONAL_PAGES = {"recall.md": ("Memory", "Recall")}  # page: (nav section, title), when the file exists
MiB = 1024 * 1024


# -- the hook ---------------------------------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    docs = Path(config["docs_dir"])
    for page, (section, title) in OPTIONAL_PAGES.items():
        if not (docs / page).is_file():
            continue
        for entry in config["nav"]:
            if isinstance(entry, dict) and section in entry and {title: page} not in entry[section]:
                entry[section].append({title: page})
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if SETTINGS_MARKER in markdown:
        markdown = markdown.replace(SETTINGS_MARKER, settings_markdown())
    if OPENAPI_MARKER in markdown:
        markdown = markdown.replace(OPENAPI_MARKER, openapi_markdown())
    return markdown


# -- configuration ----------------------------------------------------------------------------------------------


def settings_rows() -> list[tuple[str, str, str, str, str]]:
    """(key, type, default, environment variable, description) for every setting, in the model's order."""
    from proxy.config import Settings

    rows: list[tuple[str, str, str, str, str]] = []
    for section, field in Settings.model_fields.items():
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        for key, info in model.model_fields.items():
            env = f"MEMPROXY_{section}_{key}".upper()
            rows.append((f"{section}.{key}", _type(info.annotation), _default(key, info), env, _text(info)))
            nested = info.annotation
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                for sub, sub_info in nested.model_fields.items():
                    rows.append(
                        (
                            f"{section}.{key}.{sub}",
                            _type(sub_info.annotation),
                            _default(sub, sub_info),
                            "",
                            _text(sub_info),
                        )
                    )
    return rows


def settings_markdown() -> str:
    from proxy.config import ENV_ALIASES, Settings

    aliases = {f"{section}.{key}": name for name, (section, key) in ENV_ALIASES.items()}
    out: list[str] = []
    current = ""
    for key, kind, default, env, text in settings_rows():
        section = key.split(".")[0]
        if section != current:
            current = section
            doc = Settings.model_fields[section].annotation.__doc__  # type: ignore[union-attr]
            out += ["", f"### `{section}`", ""]
            if doc:
                out += [" ".join(doc.split()), ""]
            out += ["| key | type | default | meaning |", "|---|---|---|---|"]
        variables = ", ".join(f"`{name}`" for name in (env, aliases.get(key)) if name)
        where = f"<br>Environment: {variables}" if variables else ""
        out.append(f"| `{key}` | {kind} | {default} | {_cell(text)}{where} |")
    return "\n".join(out).lstrip() + "\n"


def _text(info: FieldInfo) -> str:
    return " ".join((info.description or "").split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _type(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f"`{json.dumps(choice)}`" for choice in get_args(annotation))
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_type(arg) for arg in get_args(annotation))
    if origin is tuple:
        return f"list of {_type(get_args(annotation)[0])}"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(annotation, str(annotation))


def _default(key: str, info: FieldInfo) -> str:
    value = info.default
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, tuple):
        value = list(value)
    shown = f"`{json.dumps(value)}`"
    if key.endswith("_bytes") and isinstance(value, int) and value % MiB == 0:
        shown += f" ({value // MiB} MiB)"
    return shown


# -- the management API -----------------------------------------------------------------------------------------


def openapi_markdown() -> str:
    from proxy.api.openapi import document

    spec = document()
    out = [spec["info"]["description"], ""]
    every = [
        [p["name"] for p in operation.get("parameters", ())]
        for operations in spec["paths"].values()
        for operation in operations.values()
        if operation.get("parameters")
    ]
    shared = set.intersection(*(set(names) for names in every))  # the identity headers every operation takes
    first = next(
        o
        for ops in spec["paths"].values()
        for o in ops.values()
        if shared <= {p["name"] for p in o.get("parameters", ())}
    )
    out += ["Every operation (but `GET /memory/openapi.json`) also takes:", "", "| header | meaning |", "|---|---|"]
    for parameter in first["parameters"]:
        if parameter["name"] in shared:
            out.append(f"| `{parameter['name']}` | {_cell(' '.join(parameter.get('description', '').split()))} |")
    out.append("")
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            out += [f"### `{method.upper()} {path}`", "", operation.get("summary", ""), ""]
            if operation.get("description"):
                out += [" ".join(operation["description"].split()), ""]
            parameters = [p for p in operation.get("parameters", ()) if "$ref" not in p and p["name"] not in shared]
            if parameters:
                out += ["| parameter | in | type | meaning |", "|---|---|---|---|"]
                for parameter in parameters:
                    schema = parameter.get("schema", {})
                    out.append(
                        f"| `{parameter['name']}` | {parameter['in']} | {_schema_type(schema)} | "
                        f"{_cell(' '.join(parameter.get('description', '').split()))} |"
                    )
                out.append("")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                out += [f"Body ({media}): {_schema_type(content.get('schema', {}))}", ""]
            out += ["| status | answer |", "|---|---|"]
            for status, response in operation.get("responses", {}).items():
                response = _resolve(spec, response)
                schemas = [_schema_type(c.get("schema", {})) for c in response.get("content", {}).values()]
                shown = f"{response.get('description', '')}" + (
                    f": {', '.join(s for s in schemas if s)}" if any(schemas) else ""
                )
                out.append(f"| {status} | {_cell(' '.join(shown.split()))} |")
            out.append("")
    out += ["## Schemas", ""]
    for name, schema in spec["components"]["schemas"].items():
        out += [f"### {name}", ""]
        properties = schema.get("properties")
        if not properties:
            out += [f"{_schema_type(schema)}", ""]
            continue
        required = set(schema.get("required", ()))
        out += ["| field | type | meaning |", "|---|---|---|"]
        for field, sub in properties.items():
            mark = " (required)" if field in required else ""
            out.append(
                f"| `{field}`{mark} | {_schema_type(sub)} | {_cell(' '.join(sub.get('description', '').split()))} |"
            )
        out.append("")
    return "\n".join(out)


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        parts = node["$ref"].removeprefix("#/").split("/")
        target: Any = spec
        for part in parts:
            target = target[part]
        node = target
    return node


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f"[{name}](#{name.lower()})"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    for combined in ("oneOf", "anyOf"):
        if combined in schema:
            return " or ".join(_schema_type(option) for option in schema[combined])
    kind = schema.get("type", "")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    return str(kind)
