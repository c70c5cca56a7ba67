"""Keys with a shape of their own: provider prefixes (sk-, ghp_, AKIA, hf_, dop_v1_, ...), tokens in URLs and
headers, private keys, and random-looking hex or base64 runs.

Where detect-secrets has a plugin for the same format, ours stays because it is better for memories: it tells
"sk-learn-compatible" from a key, keeps a readable prefix for `redact`, and knows formats the plugins do not
(Hugging Face, DigitalOcean, vendor tokens, Telegram tokens by their "AA" body).
"""

from __future__ import annotations

import dataclasses
import re

from . import providers
from .decoding import readable_base64
from .rules import Check, Rule, alternatives
from .shapes import all_classes, basic_credential, looks_generated, placeholder, stand_in

_KEY_CHARS = "[A-Za-z0-9_-]"


def _is_key_body(m: re.Match[str]) -> bool:
    """`sk-` is also a prefix of kebab-case names ("sk-learn-compatible"): need a random-looking body, or
    letters and digits together (16+ characters by the pattern), or a long one."""
    body = m["keep"][3:] + m["secret"]
    mixed = any(c.isdigit() for c in body) and any(c.isalpha() for c in body)
    return looks_generated(body) or mixed or len(body) >= 40


def _is_token(m: re.Match[str]) -> bool:
    return looks_generated(m["secret"])


def _is_licence_key(m: re.Match[str]) -> bool:
    """Groups of letters and digits mixed, as a vendor generates them: not a date or a part number of digits alone."""
    value = m["secret"]
    return sum(c.isdigit() for c in value) >= 3 and sum(c.isalpha() for c in value) >= 3


def _is_prefixed_token(m: re.Match[str]) -> bool:
    """A vendor prefix followed by random characters, not by words ("secret_key_base")."""
    value = m["secret"]
    return any(c.isdigit() for c in value) and looks_generated(value)


def _is_url_password(m: re.Match[str]) -> bool:
    return not placeholder(m["secret"])


def _is_basic_credential(m: re.Match[str]) -> bool:
    return basic_credential(m["secret"])


_KEY_WORDS = re.compile(r"(?<![a-z])(?:key|token|secret|password|passwd|passphrase|credential|apikey|auth|hmac)", re.I)
_HASH_WORDS = re.compile(
    r"(?<![a-z])(?:commit|sha\d*|hash|digest|checksum|md5|fingerprint|ids?|uuid|etag|rev(?:ision)?|build|object|blob"
    r"|tree|sum|crc|signature|image|version|colou?r)(?![a-z])",
    re.I,
)


_KEY_ID = re.compile(r"(?<![a-z])key[ _-]?id\b[^\n]{0,30}$", re.I)  # a key's id names the key, not a hash of it


def _is_hex_key(m: re.Match[str]) -> bool:
    """32+ hex digits are a key after "key", "token", "secret"... on the same line, and a hash after "commit",
    "sha256", "md5", "fingerprint" or "id"; random enough by detect-secrets' hex entropy bar."""
    value = m["secret"]
    line_start = max(m.string.rfind("\n", 0, m.start()) + 1, m.start() - 60)
    before = m.string[line_start : m.start()]
    if not _KEY_WORDS.search(before) or (_HASH_WORDS.search(before) and not _KEY_ID.search(before)):
        return False
    has_letter = any(c.isalpha() for c in value)
    return has_letter and any(c.isdigit() for c in value) and providers.hex_entropy(value) > providers.HEX_LIMIT


_DIGEST_LABEL = re.compile(r"(?:sha\d*|md5|blake2\w*|fingerprint)[ \t]*[:=-][ \t]*$", re.I)  # "SHA256:", "sha384-"


_PUBLIC_KEY_TYPE = re.compile(  # what an SSH public key's base64 body follows
    r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d{3}"
    r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)[ \t]+$"
)


_PGP_PUBLIC = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
_KEY_TYPE_AT = re.compile(r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d{3}|sk-(?:ssh-ed25519|ecdsa-sha2))\b")


# A value named as a public key: a WireGuard peer's "PublicKey = ...", "public key: ...", "pubkey", "clé publique",
# "öffentlicher Schlüssel", "clave pública", "chiave pubblica", "chave pública", "publieke sleutel", "klucz publiczny".
_NAMED_PUBLIC = re.compile(
    r"(?:public[ \t_-]?key|pub[ \t_-]?key|cl[ée][ \t]+publique|[öo]ffentliche[rn]?[ \t]+schl[üu]ssel"
    r"|clave[ \t]+p[úu]blica|chiave[ \t]+pubblica|chave[ \t]+p[úu]blica|publieke[ \t]+sleutel|klucz[ \t]+publiczny)"
    # and whose key it is ("des Servers:", "of peer 2 ="), then what says it is its value
    r"[\"']?(?:[ \t]+[^\s:=\"'`]{1,20}){0,3}?(?:[ \t]*(?:[:=]|is)[ \t]*|[ \t]+)[\"'`]?$",
    re.I,
)


def public_key(text: str, start: int) -> bool:
    """Whether what starts at `text[start]` is a public key, which anyone may see: an SSH key type or the body after
    one ("ssh-ed25519 AAAA..."), a value named as one ("PublicKey = ..."), or inside a PGP public key block."""
    if _PUBLIC_KEY_TYPE.search(text, max(0, start - 40), start) or _KEY_TYPE_AT.match(text, start):
        return True
    if _NAMED_PUBLIC.search(text, max(0, start - 80), start):
        return True
    opened = text.rfind(_PGP_PUBLIC, 0, start)
    return opened >= 0 and text.find("-----END PGP PUBLIC KEY BLOCK-----", opened, start) < 0


# Samples in every tutorial, which open nothing: jwt.io's token ({"sub":"1234567890","name":"John Doe",...}, signed
# with the key the page shows), its payload and its signature; Stripe's test-mode keys on every page of its API docs;
# reCAPTCHA's test keys
_DOCUMENTED = (
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIi",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "4eC39HqLyjWDarjtT1zdp7dc",
    "TYooMQauvdEDq54NiTphI7jx",
    # reCAPTCHA's test keys, which always pass (Google's FAQ)
    "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
    "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
)


def example(value: str) -> bool:
    """A documented example, not a credential: AWS's AKIAIOSFODNN7EXAMPLE and its secret "...EXAMPLEKEY", or a
    stand-in a template prints ("ghp_000...", "sk_test_replace_me")."""
    return "EXAMPLE" in value or stand_in(value) or any(sample in value for sample in _DOCUMENTED)


def _is_aws_key(m: re.Match[str]) -> bool:
    return not example(m["secret"])


def _is_random_blob(m: re.Match[str]) -> bool:
    """All three character classes in short runs (not a CamelCase path), not a path segment of a URL, not a
    digest ("SHA256:..."), not an SSH public key ("ssh-ed25519 AAAA..."), not a documented example, and not base64
    of readable text (that text is scanned on its own: see `decoding`)."""
    blob = m["secret"]
    if not all_classes(blob) or readable_base64(blob) is not None or example(blob):
        return False
    if _DIGEST_LABEL.search(m.string, max(0, m.start() - 24), m.start()):
        return False
    if public_key(m.string, m.start()):
        return False
    head = m.string[max(0, m.start() - 2048) : m.start() + 2]  # ends inside the blob: its last word holds the blob
    return "://" not in head.split()[-1] and looks_generated(blob, max_run=3.3)


def _is_dotted_token(m: re.Match[str]) -> bool:
    """Its first and last runs look generated, and it holds all three character classes, as random base64 does
    (the first run, a bot id in base64, may have no digit); not a documented example nor a stand-in."""
    value = m["secret"]
    first, _, last = value.split(".")
    return looks_generated(first) and looks_generated(last) and all_classes(value) and not example(value)


PRIVATE_KEY = Rule(
    "a private key",
    re.compile(
        r"(?P<keep>-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d:)"
        r"(?P<secret>(?s:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*))"
    ),
    gate=("-----begin", "putty-user-key-file-"),
)

# Vendors whose keys start with a fixed prefix; the body is checked to look random.
_VENDOR_PREFIXES = (
    "npm_", "pypi-", "whsec_", "shpat_", "shpca_", "shppa_", "shpss_", "lin_api_", "lin_oauth_", "sq0atp-", "sq0csp-",
    "PMAK-", "NRAK-", "NRJS-", "glc_", "glsa_", "hvs.", "hvb.", "dp.pt.", "dp.st.", "dp.sa.", "dp.ct.",
    "pscale_tkn_", "pscale_pw_", "rdme_", "rubygems_", "sntrys_", "sntryu_", "xkeysib-", "CFPAT-", "FLWSECK-",
    "AGE-SECRET-KEY-1", "pnu_", "pul-", "tfp_", "secret_", "ATATT3", "dt0c01.", "ntn_", "figd_", "rnd_",
    "shippo_live_", "shippo_test_", "dckr_pat_", "sbp_", "ya29.", "dapi", "key-",
)  # fmt: skip
# A vendor prefix followed by the 20 characters a key needs: not "key-value" or "secret_key".
_VENDOR_SIEVES = tuple((p.lower(), re.escape(p.lower()) + "[A-Za-z0-9_.=-]{20}") for p in _VENDOR_PREFIXES)
_GITHUB_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")
_SLACK_PREFIXES = (*(f"xox{c}-" for c in "abeoprs"), "xapp-")

# Most specific first: `redact` applies the rules in order, so later rules see "[redacted]", not the secret.
PREFIXED: tuple[Rule, ...] = (
    Rule(
        "an API key",
        re.compile(rf"\b(?P<keep>sk-[A-Za-z0-9]{{3}})(?P<secret>{_KEY_CHARS}{{13,}})"),
        _is_key_body,
        ("sk-",),
        ("sk-",),
        sieves=(("sk-", "sk-[A-Za-z0-9]{3}[A-Za-z0-9_-]{13}"),),  # not "task-", "disk-"
    ),
    Rule(
        "a GitHub token",
        re.compile(r"\b(?P<keep>gh[pousr]_|github_pat_)(?P<secret>[A-Za-z0-9_]{20,})"),
        prefixes=_GITHUB_PREFIXES,
        gate=_GITHUB_PREFIXES,
    ),
    Rule(
        "a GitLab token",
        re.compile(rf"\b(?P<keep>glpat-)(?P<secret>{_KEY_CHARS}{{16,}})"),
        prefixes=("glpat-",),
        gate=("glpat-",),
    ),
    Rule(
        "a Slack token",
        re.compile(r"\b(?P<keep>xox[abeoprs]-|xapp-)(?P<secret>[A-Za-z0-9-]{10,})"),
        prefixes=_SLACK_PREFIXES,
        gate=("xox", "xapp-"),
    ),
    Rule(
        "an AWS access key",
        re.compile(r"\b(?P<keep>A[KS]IA)(?P<secret>[A-Z0-9]{16})\b"),
        _is_aws_key,
        prefixes=("AKIA", "ASIA"),
        gate=("akia", "asia"),
    ),
    Rule(
        "an Alibaba Cloud access key",
        re.compile(r"\b(?P<keep>LTAI)(?P<secret>[A-Za-z0-9]{12,24})\b"),
        _is_prefixed_token,
        prefixes=("LTAI",),
        gate=("ltai",),
    ),
    Rule(
        "a Tencent Cloud secret id",
        re.compile(r"\b(?P<keep>AKID)(?P<secret>[A-Za-z0-9]{32})\b"),
        _is_prefixed_token,
        prefixes=("AKID",),
        gate=("akid",),
    ),
    Rule(
        "a service account key id",
        re.compile(r"(?P<keep>private_key_id[\"']?[ \t]*[:=][ \t]*[\"']?)(?P<secret>[0-9a-f]{40})\b"),
        gate=("private_key_id",),
    ),
    Rule(
        "a shared access signature",
        re.compile(r"(?P<keep>[?&]sig=)(?P<secret>[A-Za-z0-9%+/=_-]{30,})"),
        gate=("sig=",),
    ),
    Rule(  # SendGrid: "SG." then two parts, whatever their lengths as pasted
        "a SendGrid key",
        re.compile(rf"\b(?P<keep>SG\.)(?P<secret>{_KEY_CHARS}{{16,32}}\.{_KEY_CHARS}{{20,50}})"),
        prefixes=("SG.",),
        gate=("sg.",),
    ),
    Rule(  # an eSIM's activation code: whoever scans it first gets the line
        "an eSIM activation code",
        re.compile(r"(?P<keep>LPA:1\$[^\s$]{3,80}\$)(?P<secret>[A-Za-z0-9-]{8,})"),
        gate=("lpa:1$",),
    ),
    Rule(  # Mapbox: "sk." a secret token, "tk." a temporary one ("pk." is public, made to be shipped in web pages)
        "a Mapbox token",
        re.compile(rf"\b(?P<keep>[st]k\.)(?P<secret>eyJ{_KEY_CHARS}{{20,}}\.{_KEY_CHARS}{{10,}})"),
        prefixes=("sk.eyJ", "tk.eyJ"),
        gate=("k.eyj",),
    ),
    Rule(
        "a Google API key",
        re.compile(rf"\b(?P<keep>AIza)(?P<secret>{_KEY_CHARS}{{30,}})"),
        prefixes=("AIza",),
        gate=("aiza",),
    ),
    Rule(
        "a Stripe key",
        re.compile(r"\b(?P<keep>[rs]k_(?:live|test)_)(?P<secret>[A-Za-z0-9]{10,})"),
        lambda m: not (m["keep"].endswith("test_") and example(m["secret"])),  # Stripe's docs key, in test mode
        prefixes=("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
        gate=("k_live_", "k_test_"),
    ),
    Rule(  # "Telematics software licence (5 seats): K7RX-2M9Q-VT4H-8WNB-JC3P", '"licence_code": "MNOV-4K7P-..."'
        "a licence key",
        re.compile(
            r"(?P<keep>(?i:licen[cs]e)[^\n:]{0,60}?[\"']?[ \t]*:[ \t]*[\"']?)"
            r"(?P<secret>[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,7})(?![\w-])"
        ),
        _is_licence_key,
        gate=("licen",),
        sieves=(("licen", r"licen[cs]e[^\n:]{0,60}?[\"']?[ \t]*:[ \t]*[\"']?[a-z0-9]{4,6}-"),),
    ),
    Rule(  # any vendor's live key in the shape Stripe made common: "htl_live_2b8f4e91a7c03d65f1e28b49"
        "a vendor token",
        re.compile(r"(?<![\w.-])(?P<keep>[a-z]{2,8}_(?:live|prod)_)(?P<secret>[A-Za-z0-9]{16,})(?![\w-])"),
        _is_prefixed_token,
        gate=("_live_", "_prod_"),
        suspect=True,
    ),
    Rule(
        "a Hugging Face token",
        re.compile(r"\b(?P<keep>hf_|api_org_)(?P<secret>[A-Za-z0-9]{30,})"),
        _is_token,
        ("hf_", "api_org_"),
        ("hf_", "api_org_"),
    ),
    Rule(
        "a DigitalOcean token",
        re.compile(r"\b(?P<keep>do[opr]_v1_)(?P<secret>[a-f0-9]{64})\b"),
        prefixes=("dop_v1_", "doo_v1_", "dor_v1_"),
        gate=("_v1_",),
    ),
    Rule(
        "a Telegram bot token",
        re.compile(r"(?<![\w:])(?P<keep>\d{8,10}:)(?P<secret>AA[A-Za-z0-9_-]{33})(?![\w-])"),
        gate=(":aa",),
    ),
    Rule(
        "a vendor token",
        re.compile(rf"(?<![\w.-])(?P<keep>{alternatives(_VENDOR_PREFIXES)})(?P<secret>[A-Za-z0-9_.=-]{{20,}})"),
        _is_prefixed_token,
        _VENDOR_PREFIXES,
        tuple(prefix.lower() for prefix in _VENDOR_PREFIXES),
        sieves=_VENDOR_SIEVES,
    ),
    Rule(
        "a JWT",
        re.compile(rf"\b(?P<keep>eyJ)(?P<secret>{_KEY_CHARS}{{8,}}\.{_KEY_CHARS}{{8,}}\.{_KEY_CHARS}*)"),
        lambda m: not example(m["secret"]),
        gate=("eyj",),
    ),
    Rule(
        "a webhook URL",
        re.compile(r"(?P<keep>/(?:api/)?webhooks?/(?:[\w-]{1,40}/){0,3})(?P<secret>[A-Za-z0-9_-]{24,})", re.I),
        _is_prefixed_token,
        gate=("webhook",),
    ),
    Rule(
        "a password in a connection string",
        # (a "#" or a "?" in it too, as people write them: "postgres://etl:Tz8#qLm2vR!e@db:5432/warehouse")
        re.compile(r"\b(?P<keep>[a-z][a-z0-9+.-]{0,20}://[^\s:/@?#]*:)(?P<secret>[^\s/@]+)(?=@[\w.-])", re.I),
        _is_url_password,
        gate=("://",),
        sieves=(("://", r"://[^\s:/@?#]*:[^\s/@]+@[\w.-]"),),  # not every URL
    ),
    Rule(
        "a basic-auth credential",
        re.compile(r"(?<![A-Za-z])(?P<keep>basic[ \t]+)(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])", re.I),
        _is_basic_credential,
        gate=("basic",),
        sieves=(("basic", r"basic[ \t]+[A-Za-z0-9+/]{8}"),),
    ),
    Rule(
        "a bearer token",
        re.compile(r"\b(?P<keep>bearer\s+)(?P<secret>[A-Za-z0-9._~+/=-]{8,})", re.I),
        _is_token,
        gate=("bearer",),
        sieves=(("bearer", r"bearer\s+[A-Za-z0-9._~+/=-]{8}"),),
    ),
)


def _not_a_stand_in(check: Check) -> Check:
    return lambda m: check(m) and not stand_in(m["secret"])


# A key format's prefix with a stand-in after it ("ghp_xxxxxxxxxxxx...", "sk_test_replace_me") is what docs and
# templates print in place of a key: no key.
PREFIXED = tuple(dataclasses.replace(rule, check=_not_a_stand_in(rule.check)) for rule in PREFIXED)

# The least specific: any long hex or base64 run that looks random. Last, after every named format.
RANDOM: tuple[Rule, ...] = (
    Rule(
        "a hex key",
        re.compile(r"(?<![0-9A-Za-z])(?P<keep>)(?P<secret>[0-9a-f]{32,128}|[0-9A-F]{32,128})(?![0-9A-Za-z])"),
        _is_hex_key,
        gate=("key", "token", "secret", "pass", "credential", "auth", "hmac"),
        min_run=32,
    ),
    Rule(  # a Discord bot's token and its kind: three random base64url runs joined by dots, 24.6.27 characters or so
        "a bot token",
        re.compile(
            r"(?<![A-Za-z0-9_.-])(?P<keep>)(?P<secret>[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40})"
            r"(?![A-Za-z0-9_.-])"
        ),
        _is_dotted_token,
        min_run=23,
    ),
    Rule(
        "a high-entropy key",
        re.compile(r"(?<![A-Za-z0-9+/_-])(?P<keep>)(?P<secret>[A-Za-z0-9+/_-]{40,}={0,2})"),
        _is_random_blob,
        min_run=40,
    ),
)
