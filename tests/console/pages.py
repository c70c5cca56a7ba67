"""Driving the console in-process (httpx over ASGI) the way a browser without JavaScript would: get a page, read its
form's token, post the form. For what pages say and refuse; the browser tests cover what a person sees."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

import httpx

ORIGIN = "http://127.0.0.1:8787"


def token(html: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]*)">', html)
    assert found is not None, html[:500]
    return found.group(1)


def says(html: str, word: str) -> bool:
    """Whether ``word`` stands in the page as a word of its own: the page's random tokens (its CSRF token, an
    asset's hash) hold any short run of hex digits, "ada" or "4417" among them, one page in a few dozen."""
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(word)}(?![0-9A-Za-z])", html) is not None


@dataclass
class Browser:
    """One person's client: its own cookies, and the CSRF token of the last page it read."""

    client: httpx.AsyncClient
    csrf: str = ""

    async def get(self, path: str, **kwargs: object) -> httpx.Response:
        response = await self.client.get(path, **kwargs)  # type: ignore[arg-type]
        if "csrf-token" in response.text:
            self.csrf = token(response.text) or self.csrf
        return response

    async def post(self, path: str, data: dict[str, object] | None = None, *, csrf: bool = True,
                   headers: dict[str, str | None] | None = None) -> httpx.Response:  # fmt: skip
        fields = {**({"csrf": self.csrf} if csrf else {}), **(data or {})}
        # What a browser sends with the console's own forms: Referrer-Policy no-referrer makes their Origin "null".
        sent = {"origin": "null", "sec-fetch-site": "same-origin", **(headers or {})}
        sent = {name: value for name, value in sent.items() if value is not None}  # None: not sent at all
        return await self.client.post(path, data=fields, headers=sent)  # type: ignore[arg-type]

    async def sign_in(self, key: str) -> httpx.Response:
        page = await self.client.get("/ui/")
        signin = re.search(r'name="signin" value="([^"]+)"', page.text)
        assert signin is not None, page.text[:500]
        response = await self.post("/ui/sign-in", {"key": key, "signin": signin.group(1)}, csrf=False)
        if response.status_code == 303:
            await self.get("/ui/memories")
        return response


OUR_SCRIPTS = {"/ui/static/vendor/htmx.min.js", "/ui/static/console.js"}
NEVER = {"style", "iframe", "object", "embed", "img", "svg", "base", "frame", "frameset", "applet", "math", "video",
         "audio", "source", "picture", "portal", "template"}  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "hx-get", "hx-post", "hx-location", "data", "poster"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    handle_startendtag = handle_starttag


def inert(html: str) -> list[str]:
    """What in a console page could run, load or restyle anything: every tag and attribute checked against what the
    console itself writes. Empty: the page is inert, whatever text it shows."""
    parser = _Tags()
    parser.feed(html)
    problems = []
    for tag, attrs in parser.found:
        named = dict(attrs)
        if tag in NEVER:
            problems.append(f"<{tag}>")
        if tag == "script" and named.get("src") not in OUR_SCRIPTS:
            problems.append(f"script {named}")
        if tag == "link" and named.get("href") not in ("/ui/static/console.css", "/ui/static/favicon.svg"):
            problems.append(f"link {named}")
        if tag == "meta" and "http-equiv" in named:
            problems.append(f"meta {named}")
        for name, value in attrs:
            if name.startswith("on") or name == "style" or name.startswith("hx-on"):
                problems.append(f"<{tag} {name}>")
            if name in URL_ATTRIBUTES and value is not None and not value.startswith(("/ui/", "#")):
                problems.append(f"<{tag} {name}={value!r}>")
    return problems
