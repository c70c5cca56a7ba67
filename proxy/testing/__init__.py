"""A scriptable fake OpenAI-compatible upstream, for replay tests of memproxy and of code that sits behind it.

Queue `Reply` objects on a `FakeUpstream`, point a client (or the proxy) at `base_url`, and assert on `requests`.
The fake speaks OpenAI's Chat Completions and Responses APIs closely enough for the official SDK, the Agents SDK,
litellm and OpenAI's own schemas, plus Anthropic's Messages API for the anthropic SDK and litellm's ``anthropic/...``
provider.

Use it in pytest with ``pytest_plugins = ["proxy.testing"]`` (fixture ``fake_upstream``), in code with
``with run_fake_upstream() as fake: ...``, or standalone with ``python -m proxy.testing --port 9100``, scripted over
HTTP: ``POST /_fake/replies`` (replies in `Reply`'s JSON shape), ``GET /_fake/requests``, ``POST /_fake/reset``.

The package: `replies` (what the fake answers with and saw), `core` (its state), `openai_fake`, `responses_fake`
and `anthropic_fake` (the three wire formats), `control` (scripting it over HTTP), `upstream` (`FakeUpstream`, all
of them at once), `streams` (scripted stream failures), `responders` (tiny scripted models, and the answers to
memproxy's extraction and judgement calls), `extractor` (`FakeExtractor`, a scripted extraction model without an
upstream, for tests of the episode service), `runner` (serving it,
and memproxy, on a real socket), `fixtures` (pytest), `strict` (what strict servers refuse, `strict=True`) and `cli`
(``python -m proxy.testing``).

PYTEST_DONT_REWRITE: this module has no asserts to rewrite, and the marker lets a conftest import it before it is
registered as a plugin without pytest warning "Module already imported so cannot be rewritten".
"""

from __future__ import annotations

from .cli import main
from .extractor import FakeExtractor
from .replies import DEFAULT_CONTENT, MODEL_IDS, Reply, SeenRequest, ToolCall
from .responders import extraction_reply, extraction_responder, is_extraction, is_judgement, judgement_reply
from .runner import run_fake_upstream, run_memproxy, serve_in_background
from .upstream import FakeUpstream

try:  # the fixtures are optional: `import proxy.testing` must work without pytest installed
    from .fixtures import fake_upstream as fake_upstream
    from .fixtures import fake_upstream_server as fake_upstream_server
except ModuleNotFoundError as exc:  # pragma: no cover
    if exc.name != "pytest":
        raise

__all__ = [
    "DEFAULT_CONTENT",
    "MODEL_IDS",
    "FakeExtractor",
    "FakeUpstream",
    "Reply",
    "SeenRequest",
    "ToolCall",
    "extraction_reply",
    "extraction_responder",
    "is_extraction",
    "is_judgement",
    "judgement_reply",
    "main",
    "run_fake_upstream",
    "run_memproxy",
    "serve_in_background",
]
