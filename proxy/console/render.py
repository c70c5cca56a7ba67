"""Pages from Jinja2 templates, escaped everywhere, with the console's headers.

Autoescaping is on for every template, whatever its name, and a missing variable is an error rather than an empty
string. Text that came from outside (memories, episodes, history, names, tags) only ever goes through ``reveal``:
escaped, with the characters a reader cannot see (bidi overrides, zero-width and other format characters, controls)
shown as visible ``U+XXXX`` marks instead of acting on the page: a review must show the text as it is, not as it
wants to look.
"""

from __future__ import annotations

import datetime as dt
import time
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.responses import Response

from .. import __version__
from ..memory.file_paths import ROOT as FILES_ROOT
from ..memory.records import MEMORY_ID
from .security import HEADERS, PAGE_CACHE

TEMPLATES = Path(__file__).parent / "templates"
_KEEP = frozenset("\n\t")


MAX_MARKS = 2  # combining marks kept on one character; past it ("Zalgo" text stacks hundreds) they are counted


def _invisible(char: str) -> bool:
    category = unicodedata.category(char)
    return (category in ("Cf", "Cc", "Zl", "Zp", "Co", "Cs", "Me") and char not in _KEEP) or char == "\u3164"


def reveal(text: str | None) -> Markup:
    """``text`` escaped, each invisible or direction-changing character replaced by a visible mark, and a pile of
    combining marks (which draws over the lines around it) cut to a few and counted."""
    if not text:
        return Markup("")
    if text.isascii() and text.isprintable():
        return escape(text)
    parts: list[str] = []
    plain: list[str] = []
    marks = dropped = 0

    def flush_dropped() -> None:
        nonlocal dropped
        if dropped:
            parts.append(str(escape("".join(plain))))
            plain.clear()
            parts.append(f'<span class="invisible" title="combining marks not shown">+{dropped} marks</span>')
            dropped = 0

    for char in text:
        if unicodedata.category(char) == "Mn":
            marks += 1
            if marks > MAX_MARKS:
                dropped += 1
                continue
            plain.append(char)
            continue
        flush_dropped()
        marks = 0
        if _invisible(char):
            parts.append(str(escape("".join(plain))))
            plain.clear()
            name = unicodedata.name(char, "control character")
            parts.append(f'<span class="invisible" title="{escape(name)}">U+{ord(char):04X}</span>')
        else:
            plain.append(char)
    flush_dropped()
    parts.append(str(escape("".join(plain))))
    return Markup("".join(parts))


def hidden_marks(text: str | None) -> int:
    """How many characters of ``text`` ``reveal`` marks or drops: a review flags text that hides something."""
    count = marks = 0
    for char in text or "":
        if unicodedata.category(char) == "Mn":
            marks += 1
            count += marks > MAX_MARKS
        else:
            marks = 0
            count += _invisible(char)
    return count


def when(epoch: float | None) -> str:
    if epoch is None:
        return "never"
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(epoch: float | None) -> str:
    return "" if epoch is None else dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")


def ago(epoch: float | None) -> str:
    if epoch is None:
        return "never"
    seconds = max(time.time() - epoch, 0)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def path_part(value: str) -> str:
    """A name (a session id) as one percent-encoded path segment: never more, never a scheme."""
    return quote(value, safe="")


def file_href(key: str) -> str:
    """The console's URL of a memory file (its key, ``/memories/...``), each part percent-encoded."""
    relative = key[len(FILES_ROOT) + 1 :] if key.startswith(FILES_ROOT + "/") else key.lstrip("/")
    return "/ui/files/" + "/".join(quote(part, safe="") for part in relative.split("/"))


def number(value: int) -> str:
    return f"{value:,}"


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        reveal=reveal, when=when, iso=iso, ago=ago, path_part=path_part, number=number, file_href=file_href
    )
    env.globals.update(hidden_marks=hidden_marks, version=__version__)
    env.tests["memory_id"] = lambda value: isinstance(value, str) and MEMORY_ID.fullmatch(value) is not None
    return env


@cache
def environment() -> Environment:
    """Built on the first page, not at import: a memproxy with the console off never loads a template."""
    return _environment()


def render(name: str, context: dict[str, Any]) -> str:
    return environment().get_template(name).render(context)


def page(name: str, context: dict[str, Any], *, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A whole page or an htmx fragment, never cached, with the console's security headers."""
    response = Response(render(name, context), status_code=status, media_type="text/html", headers=headers)
    secure(response)
    return response


def secure(response: Response) -> Response:
    """The console's headers on a response of its own (the middleware adds them to every other one)."""
    for name, value in (*HEADERS, PAGE_CACHE):
        response.headers[name.decode()] = value.decode()
    response.headers["vary"] = "HX-Request, Cookie"
    return response
