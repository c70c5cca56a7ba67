"""detect-secrets' provider plugins, used for the credential formats it knows and our own patterns do not.

Yelp's detect-secrets keeps a regex per provider (Telegram, Discord, Twilio, SendGrid, Mailchimp, npm, PyPI,
Square, Azure, IBM, Slack webhooks, OpenAI, ...); we run those regexes on one string, with no files, baseline or
settings. Its keyword and entropy plugins are written for source code and would flag "${DB_PASSWORD}" or any quoted
identifier, so ours handle assignments and prose, borrowing only its entropy measures. Importing it costs about
0.15 s (it pulls in `requests`), so it is imported on the first scan, not when the proxy starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from .rules import Gated


@dataclass(frozen=True, slots=True)
class Provider:
    """One detect-secrets plugin: its regexes, the gates tried before them, and cheaper gates tried before those:
    `needles`, lower-case literals one of which the text holds wherever a gate matches (none: no such literal),
    and `min_run`, the run of key characters (`rules.key_runs`) every match of a gate holds."""

    label: str
    patterns: tuple[re.Pattern[str], ...]
    gates: tuple[re.Pattern[str], ...]
    needles: frozenset[str] = frozenset()
    min_run: int = 0

    def opens(self, view: Gated) -> bool:
        """Whether the gates are worth trying on a text: its `Literals` looked for the needles."""
        needled = not self.needles or not self.needles.isdisjoint(view.present)
        return needled and (not self.min_run or view.has_run(self.min_run))


@dataclass(frozen=True, slots=True)
class _Plugin:
    module: str
    name: str  # the plugin's class
    label: str  # the label our reasons use
    gates: tuple[str, ...]
    needles: tuple[str, ...] = ()
    min_run: int = 0


# Gates: patterns that the lower-cased text contains wherever a plugin's regex matches, written to start with a
# literal so CPython finds it quickly, and tried first (the plugins' regexes mostly start with lookbehinds, so the
# engine steps through every position). Not the OpenAI, JWT and npm plugins: their regexes backtrack quadratically
# on a long run of "sk-", "eyJ" or "//", and our rules find those formats. Needles and run lengths are read off the
# gates (tests/scanning/test_gates.py holds them to it).
_ASSIGNED = (
    r"(?:key|pwd?|pass(?:word)?|token)[\"'\]]{0,3} *(?:=|:| )"  # build_assignment_regex's keyword and assignment
)
_ASSIGNED_NEEDLES = ("key", "pw", "pass", "token")
_PLUGINS: tuple[_Plugin, ...] = (
    # \d: any digit. The runs of key characters every match holds (an Artifactory token's 11, a Discord token's 24)
    # shut these plugins, which have no needle, in most texts before their gates are searched.
    _Plugin(
        "artifactory",
        "ArtifactoryDetector",
        "an Artifactory token",
        (r"akc[a-z0-9]{10}|ap[\da-f][a-z0-9]{8}",),
        min_run=11,
    ),
    _Plugin(
        "aws",
        "AWSKeyDetector",
        "an AWS access key",
        (r"a(?:3t|bia|cca|kia|sia|ws)",),
        ("a3t", "abia", "acca", "akia", "asia", "aws"),
    ),
    _Plugin(
        "azure_storage_key", "AzureStorageKeyDetector", "an Azure storage key", (r"accountkey=",), ("accountkey=",)
    ),
    _Plugin(
        "cloudant",
        "CloudantDetector",
        "a Cloudant credential",
        (rf"cl(?:oudant|ou)?[_-]?(?:api)?[_-]?{_ASSIGNED}|cloudant\.com", r"[a-z0-9]{24}"),
        (*_ASSIGNED_NEEDLES, "cloudant.com"),
        24,
    ),
    _Plugin("discord", "DiscordBotTokenDetector", "a Discord bot token", (r"[\w-]{24}\.[\w-]{6}\.",), min_run=24),
    _Plugin(
        "github_token",
        "GitHubTokenDetector",
        "a GitHub token",
        (r"gh[pousr]_",),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    _Plugin(
        "gitlab_token",
        "GitLabTokenDetector",
        "a GitLab token",
        (r"gl[a-z]{1,5}-[\w-]{20}|gr1348941[\w-]{20}",),
        min_run=24,
    ),
    _Plugin(
        "ibm_cloud_iam", "IbmCloudIamDetector", "an IBM Cloud key", (_ASSIGNED, r"[\w-]{44}"), _ASSIGNED_NEEDLES, 44
    ),
    _Plugin(
        "ibm_cos_hmac",
        "IbmCosHmacDetector",
        "an IBM Cloud storage key",
        (r"secret[-_]?(?:access)?[-_]?key",),
        ("secret",),
    ),
    _Plugin("mailchimp", "MailchimpDetector", "a Mailchimp key", (r"-us\d",), ("-us",)),
    _Plugin("pypi_token", "PypiTokenDetector", "a PyPI token", (r"pypi-age",), ("pypi-age",)),
    _Plugin("sendgrid", "SendGridDetector", "a SendGrid key", (r"sg\.",), ("sg.",)),
    _Plugin("slack", "SlackDetector", "a Slack token", (r"xox[a-z]-|hooks\.slack\.com",), ("xox", "hooks.slack.com")),
    _Plugin(
        "softlayer",
        "SoftlayerDetector",
        "a SoftLayer key",
        (rf"(?:softlayer|sl)[_-]?(?:api)?[_-]?{_ASSIGNED}|softlayer\.com", r"[a-z0-9]{64}"),
        (*_ASSIGNED_NEEDLES, "softlayer.com"),
        64,
    ),
    _Plugin("square_oauth", "SquareOAuthDetector", "a Square secret", (r"sq0csp-",), ("sq0csp-",)),
    _Plugin("stripe", "StripeDetector", "a Stripe key", (r"[rs]k_live_",), ("k_live_",)),
    _Plugin("telegram_token", "TelegramBotTokenDetector", "a Telegram bot token", (r":[\w-]{35}",), min_run=35),
    _Plugin("twilio", "TwilioKeyDetector", "a Twilio key", (r"(?:ac|sk)[a-z0-9]{32}",), min_run=34),
)
NEEDLES = frozenset(needle for plugin in _PLUGINS for needle in plugin.needles)
_DELIMITERS = " \t\r\n=:\"'"


def _valid(value: str) -> bool:
    """Generated keys hold digits; a capitalised word that fits a loose pattern ("APExpressRoute") does not."""
    return any(c.isdigit() for c in value)


@cache
def providers() -> tuple[Provider, ...]:
    """The plugins' regexes, loaded once."""
    from importlib import import_module

    found = []
    for spec in _PLUGINS:
        plugin: Any = getattr(import_module(f"detect_secrets.plugins.{spec.module}"), spec.name)
        gates = tuple(map(re.compile, spec.gates))
        found.append(Provider(spec.label, tuple(plugin.denylist), gates, frozenset(spec.needles), spec.min_run))
    return tuple(found)


@lru_cache(maxsize=1024)
def _needled_by(present: frozenset[str]) -> tuple[Provider, ...]:
    """The plugins a text holding the literals `present` may open: those without needles, and those with one of
    theirs there (looked up once per set of literals, as few texts hold more than a handful)."""
    return tuple(
        provider for provider in providers() if not provider.needles or not provider.needles.isdisjoint(present)
    )


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret is: the longest group when it is long enough to be one (a keyword regex captures the value
    after "cloudant_password="), else the whole match (GitHub's regex captures only the "ghp" prefix)."""
    groups = [m.span(i) for i in range(1, (m.re.groups or 0) + 1) if m.start(i) >= 0]
    longest = max(groups, key=lambda span: span[1] - span[0], default=(0, 0))
    return longest if longest[1] - longest[0] >= 8 else m.span()


def matches(text: str, view: Gated | None = None) -> Iterator[tuple[str, int, int]]:
    """(label, start, end) of every credential the plugins find in `text`, delimiters the regexes take in
    (Artifactory's surrounding spaces) left out; `view`, when given, is `text` gated for the plugins' needles."""
    lowered = text.lower() if view is None else view.lowered
    for provider in providers() if view is None else _needled_by(view.present):
        if view is not None and provider.min_run and not view.has_run(provider.min_run):
            continue
        if not all(gate.search(lowered) for gate in provider.gates):
            continue
        for pattern in provider.patterns:
            for m in pattern.finditer(text):
                start, end = _secret_span(m)
                while start < end and text[start] in _DELIMITERS:
                    start += 1
                while end > start and text[end - 1] in _DELIMITERS:
                    end -= 1
                if end > start and _valid(text[start:end]):
                    yield provider.label, start, end


@cache
def _hex_plugin() -> Any:
    from detect_secrets.plugins.high_entropy_strings import HexHighEntropyString

    return HexHighEntropyString()


def hex_entropy(value: str) -> float:
    """detect-secrets' Shannon entropy for hex strings (lowered for all-digit ones); its default bar is 3.0."""
    return float(_hex_plugin().calculate_shannon_entropy(value))


HEX_LIMIT = 3.0
