"""Card numbers: Luhn-valid with a card brand's prefix and length, not a published test card; certain when a word
names a card, else suspect."""

from __future__ import annotations

import re

from ..rules import Rule
from ..shapes import talked_about
from .named import _digits, _starts_apart

# Brand prefixes (IIN ranges) with the lengths their cards have.
_BRANDS = re.compile(
    r"4(?:\d{12}|\d{15}|\d{18})|(?:5[1-5]\d{2}|222[1-9]|22[3-9]\d|2[3-6]\d{2}|27[01]\d|2720)\d{12}|3[47]\d{13}"
    r"|(?:6011|65\d{2}|64[4-9]\d)\d{12,15}|35(?:2[89]|[3-8]\d)\d{12,15}|3(?:0[0-5]|[68]\d)\d{11}|62\d{14,17}"
    r"|220[0-4]\d{12,15}|(?:5018|5020|5038|5893|6304|6759|676[1-3])\d{8,15}|(?:508[5-9]|6521|6522|60\d{2})\d{12}"
)  # and Mir, Maestro, RuPay
# The test numbers payment providers publish (Stripe, Adyen, Braintree, PayPal, Paystack, Flutterwave, Razorpay):
# documentation, not cards.
_TEST_CARDS = frozenset(
    [
        "4242424242424242",
        "4000056655665556",
        "4111111111111111",
        "4012888888881881",
        "4222222222222",
        "4000000000000002",
        "4000000000009995",
        "4000000000000077",
        "4000000000003220",
        "4000002500003155",
        "4000000000000069",
        "4000000000000119",
        "5555555555554444",
        "5200828282828210",
        "5105105105105100",
        "2223003122003222",
        "2223000048400011",
        "378282246310005",
        "371449635398431",
        "378734493671000",
        "6011111111111117",
        "6011000990139424",
        "6011000400000000",
        "3056930009020004",
        "30569309025904",
        "38520000023237",
        "3566002020360505",
        "3530111333300000",
        "6200000000000005",
        "4988438843884305",
        "5454545454545454",
        "4917610000000000",
        "4444333322221111",
        "5500000000000004",
        "340000000000009",
        "4007000000027",
        # Paystack, Flutterwave, Adyen and Razorpay (the sandboxes of Africa and India)
        "4084084084084081",
        "4084080000000409",
        "5531886652142950",
        "4187427415564246",
        "4111111145551142",
        "5555341244441115",
        "5267318187975449",
    ]
)
_CARD_WORDS = re.compile(
    r"(?<![a-z])(?:cards?|visa|mastercard|master card|amex|american express|discover|debit|credit|cc|kreditkarte"
    r"|carte|tarjeta|cart[aã]o|karte)(?![a-z])",
    re.I,
)
_CARD_AFTER = re.compile(r"(?:exp|cvv|cvc|csc|valid|expires)", re.I)


_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")  # each digit doubled, its two digits summed


def luhn(digits: str) -> bool:
    """The Luhn check, on the digits' ASCII codes (sums in C: a card's 16 digits in well under a microsecond)."""
    if not digits.isascii() or not digits.isdigit():  # "\d" also matches other scripts' digits
        return False
    backwards = digits[::-1].encode("ascii")
    kept, doubled = backwards[0::2], backwards[1::2].translate(_DOUBLED)
    return (sum(kept) + sum(doubled) - 48 * len(backwards)) % 10 == 0


def _a_card(m: re.Match[str]) -> bool:
    """Luhn-valid, a brand's prefix and length, one kind of separator in groups, and not a published test card nor
    a number whose digits repeat with a short period ("4242 4242 ...")."""
    value = m["secret"]
    digits = _digits(value)
    separators = {c for c in value if not c.isdigit()}
    if (
        not _starts_apart(m, 2)
        or len(separators) > 1
        or not _BRANDS.fullmatch(digits)
        or not luhn(digits)
        or digits in _TEST_CARDS
    ):
        return False
    return not any(digits == (digits[:period] * 20)[: len(digits)] for period in (1, 2, 4))


def _named_card(m: re.Match[str]) -> bool:
    """A card number a word names as one: "card", a brand, "debit" before it, or its expiry or CVV after it."""
    before = m.string[max(0, m.start("secret") - 60) : m.start("secret")]
    after = m.string[m.end("secret") : m.end("secret") + 30]
    return bool(_CARD_WORDS.search(before) or _CARD_AFTER.search(after)) and _a_card(m)


def _expiring_card(m: re.Match[str]) -> bool:
    """A brand's number with an expiry date after it, though its Luhn digit fails: card details misheard or mistyped
    ("... 8821 0647, expiry 03/28, code 918"), held for a person to look at."""
    digits = _digits(m["secret"])
    after = m.string[m.end("secret") : m.end("secret") + 40]
    return bool(_BRANDS.fullmatch(digits)) and not luhn(digits) and _EXPIRY.match(after) is not None


_EXPIRY = re.compile(
    r"[^\n\d]{0,20}?(?:exp\w*|valid\w*|g[üu]ltig\w*|scad\w*|venc\w*|val\.?)[^\n\d]{0,6}(?:0[1-9]"
    r"|1[0-2])[ \t]*/[ \t]*\d{2}",
    re.I,
)


def _unnamed_card(m: re.Match[str]) -> bool:
    return _a_card(m) and not _named_card(m) and not talked_about(m.string, m.start(), m.end())


# 13 to 19 digits, in groups split by one space or dash at most, with no digit (or digit group) right around them.
_CARD_SHAPE = rb"d(?:s?d){12}"  # `rules.digit_shape` of 13 digits split by one space or dash at most
_CARD = re.compile(r"(?P<keep>)(?P<secret>\d(?:[ -]?\d){12,18})(?![ -]?\d)(?![A-Za-z])")

CARDS: tuple[Rule, ...] = (
    Rule("a card number", _CARD, _named_card, min_digits=13, shape=_CARD_SHAPE),
    Rule("a card number", _CARD, _unnamed_card, min_digits=13, suspect=True, shape=_CARD_SHAPE),
    Rule("a card number", _CARD, _expiring_card, min_digits=13, suspect=True, shape=_CARD_SHAPE),
)


_CARD_DIGITS = re.compile(r"(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)")


def beside_a_test_card(text: str) -> bool:
    """Whether `text` gives a published test card ("Stripe's test card 4242 4242 4242 4242, CVC 123"): the code
    beside it is the documentation's too."""
    return any(re.sub(r"[ -]", "", m[0]) in _TEST_CARDS for m in _CARD_DIGITS.finditer(text))
