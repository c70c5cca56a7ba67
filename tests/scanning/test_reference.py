"""`redact`, `mask_all` and `scan` give exactly what the reference (`reference.py`, the code before the gates were
worked out once per text) gives, on generated text: prose, code, the corpus lines and pieces of them, random key
characters, keys spaced out or in base64, look-alike and invisible characters, key=value assignments."""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.scanning import redact, scan
from proxy.scanning.rules import Literals
from proxy.scanning.secrets import mask_all
from proxy.scanning.split import prefix_starts

from .corpus import load
from .reference import REFERENCE_PREFIX_START, reference_mask_all, reference_redact, reference_scan

SAME = settings(
    max_examples=500,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SECRETS, BENIGN = load("secrets"), load("benign")
LINES = SECRETS + BENIGN

# Words the gates, sieves and patterns turn on, and ordinary ones around them.
_WORDS = """
the my our is was are to for of on at and set changed now key keys token secret password passwd passphrase pass pw pwd
login credentials creds auth hmac api_key apiKey access_token client_secret API key Bearer basic Basic curl -u --user
--password mysql -p sshpass webhook webhooks/ /api/webhooks/ http:// postgres://admin: @db sk- sk-proj- ghp_ github_pat_
glpat- xoxb- xapp- AKIA ASIA AIza sk_live_ rk_test_ hf_ api_org_ dop_v1_ :AA eyJ npm_ pypi- whsec_ key- secret_ dapi
ATATT3 ya29. hvs. dp.pt. AGE-SECRET-KEY-1 sq0csp- SG. -us1 AccountKey= hooks.slack.com cloudant.com softlayer sha256:
commit fingerprint monkey disk-usage task- Asia def return import class in if else None True self. ${DB_PASSWORD}
data.setdefault(key, value) os.environ['API_KEY'] -----BEGIN PuTTY-User-Key-File-2: Passwort Kennwort contraseña senha
hasło şifre пароль 密码 パスワード 비밀번호 是 は
"""
WORDS = [
    *_WORDS.split(),
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "mot de passe",
    "the API key is",
]
SEPARATORS = [" ", " ", " ", "", "\n", "\t", ", ", ": ", "=", " = ", '"', "'", " is ", "/", ".", "-", "_", "(", ")"]
KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# Look-alike, full-width, invisible and case-folding characters, and typographic punctuation.
ODD = "аеорсухкіѕКМНТ αοιΑΒΕ ａｂｋｅｙＳＫ－ \u200b\u200d\u00ad\ufeff\u2060 İſKıΣς ß —–‘’“” é ü ñ ł 𝐤𝐞𝐲"
LOOK_ALIKE = str.maketrans({"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "k": "к", "K": "К", "T": "Т"})
FULL_WIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})


def _spaced(text: str, every: int) -> str:
    return " ".join(text[i : i + every] for i in range(0, len(text), every))


key_runs = st.text(KEY_CHARS + "+/_-", min_size=1, max_size=70)
hex_runs = st.text("0123456789abcdef", min_size=28, max_size=70) | st.text("0123456789ABCDEF", min_size=30, max_size=40)
line_pieces = st.tuples(st.sampled_from(LINES), st.integers(0, 120), st.integers(1, 200)).map(
    lambda t: t[0][t[1] : t[1] + t[2]]
)
assignments = st.tuples(
    st.sampled_from(["password", "api_key", "token", "secret", "DB_PASSWORD", "client secret", "the API key", "pw"]),
    st.sampled_from(["=", ": ", " = ", '": "', " is ", " ", " for the NAS was changed to ", ":= "]),
    key_runs | st.sampled_from(["hunter2", "Tr0ub4dor&3", "swordfish", "${DB_PASSWORD}", "stored", "Qu1ckSilver!"]),
).map("".join)
pieces = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(LINES),
    line_pieces,
    key_runs,
    hex_runs,
    assignments,
    st.text(ODD, min_size=1, max_size=6),
    st.text(max_size=8),
    st.sampled_from(SECRETS).map(lambda line: base64.b64encode(line.encode()).decode()),
    st.tuples(st.sampled_from(SECRETS), st.integers(1, 7)).map(lambda t: _spaced(t[0].split()[-1], t[1])),
    st.sampled_from(LINES).map(lambda line: line.translate(LOOK_ALIKE)),
    st.sampled_from(WORDS).map(lambda word: word.translate(FULL_WIDTH)),
    st.sampled_from(LINES).map(str.upper),
)
texts = st.lists(st.tuples(pieces, st.sampled_from(SEPARATORS)), max_size=12).map(
    lambda parts: "".join(piece + separator for piece, separator in parts)
)


@SAME
@given(texts)
def test_redact_and_mask_all_give_what_the_reference_gives(text: str) -> None:
    assert redact(text) == reference_redact(text)
    assert mask_all(text) == reference_mask_all(text)


@settings(SAME, max_examples=150)
@given(texts)
def test_scan_gives_what_the_reference_gives(text: str) -> None:
    assert scan(text) == reference_scan(text)


@pytest.mark.parametrize("text", LINES + load("injections"))
def test_the_corpus_gives_what_the_reference_gives(text: str) -> None:
    assert (redact(text), mask_all(text), scan(text)) == (
        reference_redact(text),
        reference_mask_all(text),
        reference_scan(text),
    )


@SAME
@given(texts)
def test_key_prefixes_start_where_the_reference_pattern_finds_them(text: str) -> None:
    assert list(prefix_starts(text)) == [m.start() for m in REFERENCE_PREFIX_START.finditer(text)]


LITERALS = ["key", "key-", "monkey", "ke", "y-", "sk-", "sk_live_", "k_live_", "pass", "passw", "ss", "s", "пароль"]


@SAME
@given(st.lists(st.sampled_from([*LITERALS, "a", " ", "-", "_", "x"]), max_size=20).map("".join))
def test_literals_finds_every_literal_a_text_holds(text: str) -> None:
    assert Literals(LITERALS).present(text) == {word for word in LITERALS if word in text}
