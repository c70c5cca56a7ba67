"""Numbers that are secrets by what they are: card numbers, PINs and door codes, national id numbers, recovery codes.

A number is a secret by its check digits or by the word that names it, never by its digits alone: a card number is
Luhn-valid with a card brand's prefix (and not one of the test cards every payment sandbox documents), an id number
passes its country's check (python-stdnum's validators: the Dutch BSN's 11-test, the German tax id's, the Spanish
DNI's letter, the Italian codice fiscale's, the French NIR's, Aadhaar's Verhoeff digit, the CPF's, the SIN's Luhn,
the Nordic personal numbers', Belgium's, China's, South Africa's, Korea's, Poland's, Chile's and Mexico's),
and a PIN, door code or recovery code is the digits after the words that name one. A named number that fails its
check is only suspect (a typo'd real one, or an example): the write is held for a person to look at. So is a card
number without a word naming a card, an SSN-shaped number without "SSN", and an IBAN or a bank account number (a
payee's is a fine memory; one's own may not be).

python-stdnum is imported on the first check, not when the proxy starts (it pulls in pydoc).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

from .lazy import LazyPattern
from .rules import Rule
from .shapes import placeholder, talked_about

Check = Callable[[re.Match[str]], bool]


@cache
def _stdnum(name: str) -> Any:
    return import_module(f"stdnum.{name}")


def bounded(pattern: str, flags: int = 0) -> LazyPattern:
    """`pattern` compiled with its runs of spaces bounded (at most 8): so is how far a sieve has to look from a
    name to the number after it, and a sieve looks that far, not to the end of the line, from each name."""
    return LazyPattern(pattern.replace(r"[ \t]+", r"[ \t]{1,8}").replace(r"[ \t]*", r"[ \t]{0,8}").replace(
        r"[ \t,]+", r"[ \t,]{1,8}"), flags)  # fmt: skip


def _valid(module: str, value: str) -> bool:
    try:
        return bool(_stdnum(module).is_valid(value))
    except Exception:  # noqa: BLE001 - a validator that trips on odd input has not validated it
        return False


def _digits(value: str) -> str:
    return "".join(filter(str.isdigit, value))


# -- card numbers --------------------------------------------------------------------------------------------------

# Brand prefixes (IIN ranges) with the lengths their cards have.
_BRANDS = re.compile(
    r"4(?:\d{12}|\d{15}|\d{18})|(?:5[1-5]\d{2}|222[1-9]|22[3-9]\d|2[3-6]\d{2}|27[01]\d|2720)\d{12}|3[47]\d{13}"
    r"|(?:6011|65\d{2}|64[4-9]\d)\d{12,15}|35(?:2[89]|[3-8]\d)\d{12,15}|3(?:0[0-5]|[68]\d)\d{11}|62\d{14,17}"
    r"|220[0-4]\d{12,15}|(?:5018|5020|5038|5893|6304|6759|676[1-3])\d{8,15}|(?:508[5-9]|6521|6522|60\d{2})\d{12}"
)  # and Mir, Maestro, RuPay
# The test numbers payment providers publish (Stripe, Adyen, Braintree, PayPal): documentation, not cards.
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


def _starts_apart(m: re.Match[str], reach: int = 1) -> bool:
    """The match does not start inside a word or a number: no letter or digit before it, nor (with `reach` 2) a digit
    and a space or dash (the patterns start with a character class, which the engine skips to, not a lookbehind)."""
    before = m.string[max(0, m.start() - reach) : m.start()]
    if before[-1:].isalnum() or before[-1:] in ("_", "-") and reach == 1:
        return False
    return not (reach == 2 and len(before) == 2 and before[0].isdigit() and before[1] in " -")


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


def _unnamed_card(m: re.Match[str]) -> bool:
    return _a_card(m) and not _named_card(m) and not talked_about(m.string, m.start(), m.end())


# 13 to 19 digits, in groups split by one space or dash at most, with no digit (or digit group) right around them.
_CARD_SHAPE = rb"d(?:s?d){12}"  # `rules.digit_shape` of 13 digits split by one space or dash at most
_CARD = re.compile(r"(?P<keep>)(?P<secret>\d(?:[ -]?\d){12,18})(?![ -]?\d)(?![A-Za-z])")

# -- named numbers -------------------------------------------------------------------------------------------------

# Between the words that name a number and the number: whose it is ("for the office", "on the back of the Visa",
# "des Nutzers"), then "is", ":" or "=" (or nothing: "PIN 4821").
_FILLER = (
    r"(?:[ \t]+(?:for|of|on|to|at|in|from|with|by|near|behind|beside|under|outside|inside|des|du|de|do|da|del|della"
    r"|vom|von|für|fur|zum|zur|zu|bei|im|van|voor|för|til|av|pour|para|per|chez)"
    r"(?:[ \t]+(?:[^\s\d:=#*]{1,24}|[A-Za-z]{1,4}-?\d{1,3}(?![\d.,])))+?"  # a form's name too: "for the W-9"
    r"(?:[ \t]+#?\d{1,4}[a-z]?(?=[ \t]*[:=]|[ \t]+[^\s\d]))?"  # a place's number: "the safe in room 412 is"
    # or whose, in a word before a colon or "is": "Rodné číslo manželky:", "rodné číslo syna je ..."
    r"|(?:[ \t]+[^\s\d:=#*]{1,24}){1,2}(?=[ \t]*:|[ \t]+(?:je|jest|este|is|ist|est|es|é|è|är|er|to)[ \t]))?"
    r"(?:[ \t]*\([^()\n]{1,40}\))?"  # and an aside: "Backup 2FA codes (Google): ...", "the safe (room 412): ..."
)
_CONNECTOR = (
    r"(?:[ \t]*[:=#-][ \t]*|[ \t]+(?:is|was|are|ist|est|es|é|è|lautet|c'est)"
    r"(?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to))?[ \t]*:?[ \t]+"
    r"|[ \t]+(?:(?:is|was)[ \t]+)?(?:changed|set|reset|updated)[ \t]+to[ \t]+|[ \t]+(?:opens?[ \t]+with)[ \t]+"
    r"|[ \t]+)"
)
# the value ends there: not "1.26.4", "3108a" or "4821-5"; a comma before words in a script without spaces is a
# comma ("110108199003072740，支付宝")
_END = r"(?![.,/-][A-Za-z0-9_]|\w)"


# Sieves for gate words too common to sieve by "a digit follows on the line" ("id" is in "valid", "provide").
_SIEVES = {
    "id": r"id(?:entity|entification)?[ \t]{1,8}(?:card[ \t]{1,8})?(?:number|no|nr)",
    "nhs": r"nhs[ \t]{1,8}(?:number|no(?![a-z])|#)",
    "pps": r"pps(?:n|[ \t]{1,8}(?:number|no))(?![a-z])",
    "itin": r"itin[^a-z]",
    "nif": r"nif[^a-z]",
    "avs": r"avs[^a-z]",
    "file": r"file[ \t]{1,8}number",
    **{word: word + r"(?![a-z])[^\n]{0,400}?\d" for word in ("tin", "spi", "nip")},
    "public": r"public[ \t]{1,8}service",
    # short names that other words hold ("security", "foreign", "reign"): only where they end a word
    **{word: word + r"(?![a-z])[^\n]{0,400}?\d" for word in ("sécu", "secu", "egn", "oib", "cnp", "amka")},
}


def _named(
    label: str,
    names: str,
    value: str,
    gate: tuple[str, ...],
    check: Check | None = None,
    *,
    suspect: bool = False,
    connector: str = _CONNECTOR,
    any_value: bool = False,
) -> Rule:
    """A number named by one of `names` (lower-case regex alternatives): `names`, whose it is, a connector, `value`
    (which holds a digit unless `any_value`: the check asks for them then).

    Each gate word is sieved: a digit (or with `any_value` a letter or digit) follows it on its line."""
    pattern = bounded(rf"(?P<keep>(?<![a-z])(?:{names}){_FILLER}{connector})(?P<secret>{value}){_END}", re.I)
    after = r"[^\n]{0,400}?[a-z0-9]" if any_value else r"[^\n]{0,400}?\d"  # past the longest name, filler and connector
    sieved = {word: _SIEVES.get(word, re.escape(word) + after) for word in gate}
    return Rule(label, pattern, check or (lambda m: True), gate=gate, sieves=tuple(sieved.items()), suspect=suspect)


def _not_a_count(m: re.Match[str]) -> bool:
    """Not a length or a count said of the code ("PIN codes are 6 digits long", "PIN of 4 to 6 digits")."""
    return not _A_COUNT.match(m.string[m.end("secret") : m.end("secret") + 20].lower())


_A_COUNT = re.compile(
    r"[ \t]*(?:to[ \t]+\d+[ \t]+)?(?:digits?|characters?|chars?|numbers?|times|tries|attempts|seconds?|minutes?|hours?"
    r"|days?|weeks?|months?|years?|%|px|ms|mb|gb|kb|sq|square|ft|feet|metres?|meters?|m|cm|mm|km|kg|lbs?|miles?"
    r"|eur|usd|gbp|dollars?|euros?|pounds?|am|pm)\b"
)


_CODE_NAMES = (
    r"pin(?:[ \t-]*(?:codes?|numbers?|no\.?|#))?|puk(?:[ \t]*(?:codes?|numbers?))?|cvv2?|cvc2?|csc"
    r"|card[ \t]+security[ \t]+code|security[ \t]+code"
    r"|passcode|keypad(?:[ \t]+code)?|(?:door|gate|entry|entrance|alarm|access|garage|buzzer|lockbox|lock[ \t]?box"
    r"|unlock|intercom|building|parking|storage|safe|locker|padlock|lock)(?:[ \t]+(?:arming|disarm(?:ing)?|opener"
    r"|remote|entry|access|keypad|panel|door|gate|unlock|security))?[ \t]+codes?"
    r"|(?:lock|locker|padlock|safe|bike[ \t]+lock)?[ \t]*"
    r"combination|combo|code[ \t]+(?:for|to)[ \t]+the[ \t]+(?:front[ \t]+|back[ \t]+|main[ \t]+)?(?:door|gate|lockbox"
    r"|lock|safe|alarm|garage|building|keypad|house)|(?:safe|padlock|locker|lock)(?=[^\n.]{0,30}opens?[ \t]+with)"
    r"[^\n.]{0,30}?"
)
_CODE_GATE = ("pin", "puk", "cvv", "cvc", "csc", "code", "keypad", "combination", "combo", "safe", "lock")
# The same in other languages: "Tür-Code", "Torcode", "code de la porte", "código de la puerta". A rule of its own, so
# that English text does not pay for these names in the pattern `CODES` runs.
_CODE_NAMES_ABROAD = (
    # a lock's combination, and Polish "kod do domofonu"
    r"(?:combinaison|combinazione|combinaci[óo]n|combina[çc][ãa]o|zahlenkombination|kombination|combinatie)"
    # "le digicode de l'immeuble", "code d'entrée", "Pincode van mijn bankpas", "PIN-Code meiner EC-Karte"
    r"|digicode|code[ \t]+d'(?:entr[ée]e|acc[èe]s|immeuble)|pincode|pin-?code|pin-?nummer|geheimzahl"
    # a phone's unlock code, a card's security code: "code de déverrouillage", "código de desbloqueo", "Prüfnummer"
    r"|(?:code|c[óo]digo|codice|kod)[ \t]+(?:de[ \t]+|di[ \t]+|od?[ \t]+)?(?:d[ée]verrouillage|desbloqueo|desbloqueio"
    r"|sblocco|odblokowania|s[ée]curit[ée]|seguridad|seguran[çc]a|sicurezza|zabezpieczaj[ąa]cy)|entsperr-?code"
    r"|ontgrendel-?code|beveiligingscode|sicherheitscode|(?:karten)?pr[üu]fnummer|pr[üu]fziffer|cryptogramme"
    r"|kod[ \t]+(?:do|od)[ \t]+(?:domofonu|drzwi|bramy|klatki|sejfu|alarmu|furtki|garażu|garazu)|"
    r"(?:t[üu]r|haust[üu]r|tor|garagen|alarm|tresor|porte|portail|puerta|portal|porta|port[ãa]o|deur|poort|kluis)"
    r"[ \t-]?(?:code|codes|pin|kod|c[óo]digo)|(?:code|c[óo]digo|codice)[ \t]+(?:(?:de[ \t]+la|du|de|del|da|do|della"
    r"|van[ \t]+het|van[ \t]+de|voor[ \t]+het|voor[ \t]+de)[ \t]+|de[ \t]+l'|dell')"
    r"(?:porte|portail|puerta|portal|porta|port[ãa]o|portone|alarme|alarma|allarme|cancello|citofono|garage|garaje"
    r"|immeuble|edificio|palazzo|casa|maison|alarm|deur|voordeur|poort|kluis|cofre|caja[ \t]+fuerte|cassaforte"
    r"|coffre(?:-fort)?)"
    # where the lock is, in a word: "de code van het alarm thuis is 2604"
    r"(?:[ \t]+(?:thuis|beneden|boven|en[ \t]+casa|de[ \t]+casa|em[ \t]+casa|a[ \t]+casa|[àa][ \t]+la[ \t]+maison))?"
)
# Every name holds a word for "code" ("türcode", "código de la puerta", "codice") or for a combination, most of them
# words `CODES` is gated by too, with the same sieves (a digit after it on its line), searched once for both.
_ABROAD_GATE = ("code", "pin", "kod", "digo", "codice", "combina", "kombination", "geheimzahl", "fnummer", "fziffer",
                "cryptogramme")  # fmt: skip

CODES = _named(
    "a PIN or an access code",
    _CODE_NAMES,
    # digits, or digits around a letter as buildings number their doors ("31B47"), or a dial's turns
    r"[#*]?\d{3,8}[#*]?|\d{1,4}[a-z]\d{2,5}|(?:left|right)[ \t]+\d{1,2}(?:[ \t]*,[ \t]*(?:left"
    r"|right)[ \t]+\d{1,2}){2,3}|\d{1,3}(?:(?:[ \t]*[-–.][ \t]*|[ \t]+)\d{1,3}){2,4}",
    _CODE_GATE,
    _not_a_count,
)
CODES_ABROAD = _named(
    "a PIN or an access code",
    _CODE_NAMES_ABROAD,
    r"[#*]?\d{3,8}[#*]?|\d{1,4}[a-z]\d{2,5}|\d{1,3}(?:(?:[ \t]*[-–.][ \t]*|[ \t]+)\d{1,3}){2,4}",
    _ABROAD_GATE,
    _not_a_count,
    connector=_CONNECTOR.replace("lautet|c'est", "lautet|c'est|jest|to|je|este|är|er"),  # "kod do bramy to 9021"
)

# The thing a code opens, named without the word "code": "the lockbox by the front door is 2468", "the padlock on the
# shed is set to 0722", "the alarm panel takes 1205". Four digits at least and a connector that says so (never a
# bare space: "gate 12", "door 3"), and only suspect: "the safe is 1970" may be a year.
_LOCKS = (
    r"(?:lock[ \t]?box|key[ \t]?safe|key[ \t]?box|padlock|combination[ \t]+lock|(?:bike|gym|shed|door|the)[ \t]+lock"
    r"|alarm(?:[ \t]+(?:panel|system|keypad))?|keypad|safe|locker|garage(?:[ \t]+door)?|front[ \t]+door|back[ \t]+door"
    r"|side[ \t]+door|gate|intercom|buzzer)"
)
_LOCK_CONNECTOR = (
    r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was)(?:[ \t]+(?:now|still))?(?:[ \t]+(?:set|changed|reset))?(?:[ \t]+to)?[ \t]+"
    r"|[ \t]+(?:takes|uses|accepts|wants|needs|(?:opens|unlocks|disarms|arms|(?:is[ \t]+)?(?:opened|unlocked|disarmed"
    r"|armed))[ \t]+with)[ \t]+)"
    # "Our house alarm: code 5160", "the lockbox is PIN 2468"
    r"(?:(?:the[ \t]+)?(?:code|pin|combo|combination|number)(?:[ \t]+is)?[ \t]*[:=#]?[ \t]*)?"
)
# Four digits at least, or a combination's numbers apart ("23-11-47"); ASCII digits, as `min_digits` counts them.
_CODE_VALUE = r"[#*]?[0-9]{4,8}[#*]?|[0-9]{1,2}(?:[ \t]*[-–.][ \t]*[0-9]{1,2}){2,5}|[0-9]{1,2}(?:[ \t]+[0-9]{1,2}){3,5}"
_LOCK_GATE = ("lock", "padlock", "keybox", "keysafe", "safe", "alarm", "keypad", "garage", "door", "gate", "intercom",
              "buzzer", "box")  # fmt: skip
# Each lock word where it starts a word ("gate", not "aggregate"; "lock", not "block"), and a digit after it on its
# line. The lookbehinds come after the word, so that the sieve still starts with it (found fast).
_LOCK_SIEVES = tuple(
    (word, re.escape(word) + r"[^\n]{0,400}?\d" if word in _CODE_GATE  # `CODES`' own sieve: searched once for both
     else rf"{word}(?:(?<=[^a-z]{word})|(?<=^{word}))[^\n]{{0,400}}?\d")
    for word in _LOCK_GATE
)  # fmt: skip
LOCKS = dataclasses.replace(
    _named(
        "a PIN or an access code",
        _LOCKS,
        _CODE_VALUE,
        _LOCK_GATE,
        _not_a_count,
        suspect=True,
        connector=_LOCK_CONNECTOR,
    ),
    sieves=_LOCK_SIEVES,
    min_digits=3,
)
# The code before the thing it opens: "punch 7-3-9-1 on the keypad", "enter 5520# at the gate".
_TYPED_CODE_GATE = ("punch", "enter", "dial", "type", "tap", "press")
TYPED_CODE = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:punch|enter|dial|type|tap|press)(?:[ \t]+in)?[ \t]+)(?P<secret>" + _CODE_VALUE + ")"
        r"(?=[ \t]+(?:on|into|at|in|to)[ \t]+(?:the[ \t]+)?(?:[a-z]+[ \t]+)?" + _LOCKS + r"s?\b)",
        re.I,
    ),
    gate=_TYPED_CODE_GATE,
    sieves=tuple((word, word + r"(?:[ \t]{1,8}in)?[ \t]{1,8}[#*]?\d") for word in _TYPED_CODE_GATE),
    min_digits=3,
)

# A lock named in another language, then what it does with the code: "la alarma se desactiva con 7-3-9-1", "le coffre
# s'ouvre avec 2280", "l'allarme si disattiva con 4410", "o alarme desliga com 1234", "de kluis gaat open met 5519",
# "die Alarmanlage wird mit 4711 deaktiviert". The verb says the digits are the code: refused.
_LOCKS_ABROAD = (
    r"(?:alarma|alarme|allarme|alarm(?:anlage)?|caja[ \t]+fuerte|cofre|cassaforte|coffre(?:-fort)?|tresor|safe|kluis"
    r"|candado|cadenas|lucchetto|cadeado|hangslot|vorh[äa]ngeschloss|schloss|puerta|porte|porta|portail|portal"
    r"|port[ãa]o|port[óo]n|portone|cancello|deur|poort|t[üu]r|tor|garaje|garagem|garage)"
)
_OPENS_WITH = (
    r"(?:(?:se|si|s'|wordt|gaat)[ \t]*)?(?:desactiva|desconecta|desarma|abre|activa|d[ée]sactive|d[ée]sarme|ouvre"
    r"|d[ée]verrouille|disattiva|disinserisce|apre|sblocca|desativa|desliga|destrava|ontgrendel\w*|uitgeschakeld"
    r"|schakel[ \t]+uit|open)[ \t]+(?:con|avec|com|met)(?:[ \t]+(?:el|le|il|o|de|het))?(?:[ \t]+(?:c[óo]digo|code"
    r"|codice|pin|combinaci[óo]n|combinaison|combinazione|combina[çc][ãa]o))?[ \t]+"
)
_LOCK_VERB_GATE = ("con", "avec", "com", "met", "mit")
LOCKS_ABROAD = Rule(
    "a PIN or an access code",
    bounded(
        rf"(?P<keep>(?<![a-z]){_LOCKS_ABROAD}\b[^\n.;]{{0,50}}?(?:{_OPENS_WITH}|\bmit[ \t]+(?:(?:dem|der)[ \t]+)?"
        rf"(?:code[ \t]+|pin[ \t]+)?(?=[0-9#*][0-9 \t*#.–-]{{2,20}}[ \t]+(?:deaktiviert|entsch[äa]rft|ge[öo]ffnet"
        rf"|entsperrt|aufgeschlossen|ausgeschaltet)\b)))(?P<secret>{_CODE_VALUE}){_END}",
        re.I,
    ),
    gate=_LOCK_VERB_GATE,
    sieves=tuple((word, word + r"[ \t][^\n]{0,40}?\d") for word in _LOCK_VERB_GATE),
    min_digits=3,
)
# A PIN named in Chinese, Japanese or Korean ("支付密码是739152", "暗証番号は 4821", "비밀번호는 5519"): digits only,
# four to eight, after the word and "is". (A length said of one, "パスワードは12文字以上", has fewer digits.)
CJK_PIN = _named(
    "a PIN or an access code",
    r"(?:支付|交易|取款|银行卡|銀行卡|信用卡|提款|登录|登入|开机|開機|门禁|門禁)?(?:密码|密碼|口令)|暗証番号|パスワード|パスコード"
    r"|비밀번호|핀[ \t]*번호",
    r"\d{4,8}",
    ("密码", "密碼", "口令", "暗証番号", "パスワード", "パスコード", "비밀번호", "번호"),
    _not_a_count,
    connector=r"[ \t]*(?:是|为|為|は|が|는|은|[:=：])?[ \t]*",
)


def _ssn(m: re.Match[str]) -> bool:
    digits = _digits(m["secret"])
    return len(digits) == 9 and digits not in _EXAMPLE_SSNS and _valid("us.ssn", digits)


def _ssn_suspect(m: re.Match[str]) -> bool:
    """A named SSN that fails the SSA's rules: held, unless it is a published example or all one digit."""
    digits = _digits(m["secret"])
    return len(digits) == 9 and digits not in _EXAMPLE_SSNS and len(set(digits)) > 1 and not _ssn(m)


_EXAMPLE_SSNS = frozenset({"123456789", "078051120", "219099999", "457555462", "987654320"})
_SSN_NAMES = r"ssn|social[ \t]+security(?:[ \t]+(?:number|no\.?|#|nr\.?))?|social"  # "Mia's social is ..."
_SSN_VALUE = r"\d{3}[- ]?\d{2}[- ]?\d{4}"


def _nino(m: re.Match[str]) -> bool:
    """A UK National Insurance number by HMRC's prefix rules (no D, F, I, Q, U or V; not O second; no BG, GB, KN,
    NK, NT, TN or ZZ)."""
    value = "".join(m["secret"].split()).upper()
    first, second = value[0], value[1]
    return (
        first not in "DFIQUV"
        and second not in "DFIOQUV"
        and value[:2] not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}
    )


def _stdnum_check(module: str, *, valid: bool = True) -> Check:
    def check(m: re.Match[str]) -> bool:
        value = "".join(c for c in m["secret"] if c.isalnum())
        passes = _varied(value) and (_valid(module, value) or _valid(module, m["secret"]))  # a HETU keeps its "-"
        return passes is valid

    return check


def _varied(value: str) -> bool:
    """Not one digit over and over ("000000000"): a form's placeholder passes some checks (the 11-test, Luhn's), so
    a named one is only held."""
    return len(set(_digits(value))) > 1


def _taj(digits: str) -> bool:
    """A Hungarian TAJ number: nine digits, the last the first eight weighted 3, 7, 3, 7... modulo 10."""
    if len(digits) != 9 or len(set(digits)) == 1:
        return False
    return sum(int(d) * (3 if i % 2 == 0 else 7) for i, d in enumerate(digits[:8])) % 10 == int(digits[8])


def _hu_tax_id(digits: str) -> bool:
    """A Hungarian tax id: ten digits starting with 8, the last the first nine weighted 1 to 9 modulo 11."""
    if len(digits) != 10 or digits[0] != "8":
        return False
    return sum(int(d) * (i + 1) for i, d in enumerate(digits[:9])) % 11 == int(digits[9])


def _with_digits(count: int) -> Check:
    return lambda m: sum(c.isdigit() for c in m["secret"]) >= count


# (label, names, value, gate words, stdnum module or check): a named number, certain when its check passes.
_IDS: tuple[tuple[str, str, str, tuple[str, ...], str | Check], ...] = (
    ("a Social Insurance Number",
     r"sin|social[ \t]+insurance[ \t]+(?:number|no\.?)|num[ée]ro[ \t]+d'assurance[ \t]+sociale",
     r"\d{3}[ -]?\d{3}[ -]?\d{3}", ("sin", "social", "assurance"), "ca.sin"),
    ("a citizen service number", r"bsn|burgerservicenummer|citizen[ \t]+service[ \t]+number", r"\d{8,9}",
     ("bsn", "burgerservicenummer", "citizen"), "nl.bsn"),
    ("a tax id number", r"steuer-?id(?:entifikationsnummer)?|steuer[ \t]+id|idnr|steueridentifikationsnummer"
     r"|(?:steuerliche|pers[öo]nliche)[ \t]+(?:identifikationsnummer|id-?nr\.?)",
     r"\d{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}", ("steuer", "idnr", "identifikationsnummer", "id-nr"), "de.idnr"),
    ("an identity number", r"dni|documento[ \t]+nacional[ \t]+de[ \t]+identidad", r"\d{8}[ -]?[a-z]",
     ("dni", "documento"), "es.dni"),
    ("an identity number", r"nie|n[uú]mero[ \t]+de[ \t]+identidad[ \t]+de[ \t]+extranjero",
     r"[xyz][ -]?\d{7}[ -]?[a-z]",
     ("nie", "extranjero"), "es.nie"),
    ("a tax code", r"codice[ \t]+fiscale", r"[a-z]{6}\d{2}[a-z]\d{2}[a-z]\d{3}[a-z]", ("codice",), "it.codicefiscale"),
    ("a social security number",
     r"num[ée]ro[ \t]+de[ \t]+s[ée]curit[ée][ \t]+sociale|nir|insee|s[ée]curit[ée][ \t]+sociale",
     r"[12][ ]?\d{2}[ ]?\d{2}[ ]?(?:\d{2}|2a|2b)[ ]?\d{3}[ ]?\d{3}[ ]?\d{2}",
     ("numéro", "numero", "nir", "insee", "sécurité", "securite"), "fr.nir"),
    # as it is said: "numéro de sécu", "n° de sécu", "ma carte Vitale"
    ("a social security number", r"(?:num[ée]ro[ \t]+de[ \t]+|n°[ \t]*(?:de[ \t]+)?)s[ée]cu|carte[ \t]+vitale",
     r"[12][ ]?\d{2}[ ]?\d{2}[ ]?(?:\d{2}|2a|2b)[ ]?\d{3}[ ]?\d{3}[ ]?\d{2}", ("sécu", "secu", "vitale"), "fr.nir"),
    # the personal numbers of Turkey, Czechia and Slovakia, Romania, Bulgaria, Croatia, Slovenia, Greece, Estonia,
    # Lithuania and Israel, under their own names
    ("a T.C. identity number", r"t\.?[ \t]?c\.?[ \t]+kimlik(?:[ \t]+(?:no\.?|numara(?:m|s[ıi]m?)))?"
     r"|kimlik[ \t]+(?:no\.?|numara(?:m|s[ıi]m?))", r"\d{11}", ("kimlik",), "tr.tckimlik"),
    ("a birth number", r"rodn[ée][ \t]+[čc][íi]slo", r"\d{6}/?\d{3,4}", ("rodn",), "cz.rc"),
    ("a personal numeric code", r"cnp(?:-ul)?|cod(?:ul)?[ \t]+numeric[ \t]+personal", r"\d{13}", ("cnp", "numeric"),
     "ro.cnp"),
    ("a personal number", r"егн|egn", r"\d{10}", ("егн", "egn"), "bg.egn"),
    ("a personal identification number", r"oib", r"\d{11}", ("oib",), "hr.oib"),
    ("a personal number", r"em[šs]o", r"\d{13}", ("emšo", "emso"), "si.emso"),
    ("a social security number", r"amka", r"\d{11}", ("amka",), "gr.amka"),
    ("a personal identification code", r"isikukood", r"\d{11}", ("isikukood",), "ee.ik"),
    ("a personal identification code", r"asmens[ \t]+kodas", r"\d{11}", ("asmens",), "lt.asmens"),
    ("an identity number", r"teudat[ \t]+zehut|מספר[ \t]+זהות", r"\d{9}", ("teudat", "זהות"), "il.idnr"),
    ("an Aadhaar number", r"aadhaa?r(?:[ \t]+(?:number|no\.?|card))?", r"\d{4}[ -]?\d{4}[ -]?\d{4}", ("aadhaa",),
     "in_.aadhaar"),
    ("a PAN", r"pan(?:[ \t]+card)?(?:[ \t]+(?:number|no\.?))?|permanent[ \t]+account[ \t]+number",
     r"[a-z]{5}\d{4}[a-z]",
     ("pan", "permanent"), "in_.pan"),
    ("a personal identity number", r"personnummer|personal[ \t]+identity[ \t]+number", r"(?:\d{2})?\d{6}[-+ ]?\d{4}",
     ("personnummer", "personal"), "se.personnummer"),
    ("a national identity number", r"f[øo]dselsnummer|birth[ \t]+number", r"\d{6}[ ]?\d{5}",
     ("dselsnummer", "birth"), "no.fodselsnummer"),
    ("a CPR number", r"cpr(?:-?nummer|[ \t]+(?:number|no\.?))?|personnummer", r"\d{6}-?\d{4}", ("cpr",), "dk.cpr"),
    ("a personal identity code", r"henkil[öo]tunnus|hetu|personbeteckning", r"\d{6}[-+a-fu-y]\d{3}[0-9a-y]",
     ("henkil", "hetu", "personbeteckning"), "fi.hetu"),
    ("a national register number", r"rijksregisternummer|num[ée]ro[ \t]+national|national[ \t]+(?:register|registry)"
     r"[ \t]+number|insz", r"\d{2}\.?\d{2}\.?\d{2}[ -]?\d{3}\.?\d{2}", ("rijksregister", "national", "insz"), "be.nn"),
    ("a resident identity number",
     r"(?:resident[ \t]+)?identity[ \t]+card(?:[ \t]+(?:number|no\.?))?|居民身份证(?:号码?)?|身份证(?:号码?)?",
     r"\d{17}[\dx]", ("identity", "身份证"), "cn.ric"),
    ("an identity number", r"(?:south[ \t]+african[ \t]+)?id(?:entity)?[ \t]+(?:number|no\.?)", r"\d{13}", ("id",),
     "za.idnr"),
    ("a resident registration number", r"(?:resident[ \t]+)?registration[ \t]+number|rrn|주민등록번호",
     r"\d{6}-?\d{7}", ("registration", "rrn", "주민등록번호"), "kr.rrn"),
    ("a PESEL number", r"pesel", r"\d{11}", ("pesel",), "pl.pesel"),
    ("a RUT", r"rut", r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dk]", ("rut",), "cl.rut"),
    ("a CURP", r"curp", r"[a-z]{4}\d{6}[hm][a-z]{5}[0-9a-z]\d", ("curp",), "mx.curp"),
    ("a CPF", r"cpf", r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}", ("cpf",), "br.cpf"),
    ("an ITIN", r"itin", r"9\d{2}[- ]?\d{2}[- ]?\d{4}", ("itin",), "us.itin"),
    ("an NHS number", r"nhs[ \t]+(?:number|no\.?|#)", r"\d{3}[ -]?\d{3}[ -]?\d{4}", ("nhs",), "gb.nhs"),
    ("a tax file number", r"tfn|tax[ \t]+file[ \t]+number", r"\d{3}[ ]?\d{3}[ ]?\d{2,3}", ("tfn", "file"), "au.tfn"),
    ("a PPS number", r"ppsn|pps[ \t]+(?:number|no\.?)|personal[ \t]+public[ \t]+service[ \t]+number",
     r"\d{7}[ ]?[a-w][a-iw]?", ("pps", "public"), "ie.pps"),
    ("a social security number", r"ahv(?:[ \t-]?(?:nummer|nr\.?|number))?|avs|sozialversicherungsnummer",
     r"756[ .]?\d{4}[ .]?\d{4}[ .]?\d{2}", ("ahv", "avs", "sozialversicherungsnummer"), "ch.ssn"),
    ("a tax number", r"nif|n[uú]mero[ \t]+de[ \t]+identificaci[oó]n[ \t]+fiscal",
     r"[xyzklm]?\d{7,8}[a-z]|[a-z]\d{7}[0-9a-j]", ("nif", "identificaci"), "es.nif"),
    ("a tax number", r"num[ée]ro[ \t]+(?:d'identification[ \t]+)?fiscale?|identifiant[ \t]+fiscal"
     r"|num[ée]ro[ \t]+spi|spi|nif", r"[0-3]\d[ ]?\d{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3}", ("fiscal", "spi", "nif"),
     "fr.nif"),
    ("a tax number", r"nip|numer[ \t]+identyfikacji[ \t]+podatkowej",
     r"\d{3}-?\d{3}-?\d{2}-?\d{2}|\d{3}-?\d{2}-?\d{2}-?\d{3}", ("nip", "identyfikacji"), "pl.nip"),
    ("a tax number", r"nif|n[uú]mero[ \t]+de[ \t]+identifica[cç][aã]o[ \t]+fiscal|contribuinte",
     r"\d{9}", ("nif", "identifica", "contribuinte"), "pt.nif"),
    ("a National Insurance number", r"national[ \t]+insurance(?:[ \t]+(?:number|no\.?))?|nino",
     r"[a-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[a-d]", ("insurance", "nino"), _nino),
    # Hungary's social security number (TAJ) and tax id (adóazonosító jel): python-stdnum checks neither
    ("a social security number", r"taj(?:[ \t-]?sz[aá]m(?:om|od|a|unk)?)?|t[aá]rsadalombiztos[ií]t[aá]si[ \t]+"
     r"azonos[ií]t[oó](?:[ \t]+jel)?", r"[0-9]{3}[ -]?[0-9]{3}[ -]?[0-9]{3}",
     ("taj", "társadalombiztos", "tarsadalombiztos"), lambda m: _taj(_digits(m["secret"]))),
    ("a tax id number", r"ad[oó]azonos[ií]t[oó](?:[ \t]+jel)?(?:e|em|ed|a)?", r"8[0-9]{9}",
     ("adóazonos", "adoazonos"), lambda m: _hu_tax_id(_digits(m["secret"]))),
    ("a passport number", r"passport(?:[ \t]+(?:number|no\.?|#|nr\.?))?|reisepass(?:nummer)?|passeport",
     r"[a-z0-9]{6,9}", ("passport", "reisepass", "passeport"), _with_digits(5)),
    ("a driving licence number", r"driver'?s?[ \t]+licen[cs]e(?:[ \t]+(?:number|no\.?|#))?|driving[ \t]+licen[cs]e"
     r"(?:[ \t]+(?:number|no\.?|#))?|licen[cs]e[ \t]+number|f[üu]hrerschein(?:nummer)?",
     r"[a-z0-9][a-z0-9-]{4,19}",
     ("driver", "driving", "licen", "hrerschein"), _with_digits(3)),
)  # fmt: skip


def _id_rules() -> tuple[Rule, ...]:
    rules = []
    for label, names, value, gate, check in _IDS:
        if isinstance(check, str):
            for valid in (True, False):
                checked = _stdnum_check(check, valid=valid)
                rules.append(_named(label, names, value, gate, checked, suspect=not valid, connector=_CONNECTOR_ABROAD))
        else:  # the value's digits are the check's to count: its sieve cannot ask for one
            rules.append(_named(label, names, value, gate, check, any_value=True))
    return tuple(rules)


# Any id number named as a person's: "my national ID number is ...", "personal number", "tax id", "identity card
# no.". Certain when one of these countries' checks passes, else suspect (a named id number is a person's either way).
_PERSONAL_IDS = (
    "us.ssn", "us.itin", "ca.sin", "gb.nhs", "ie.pps", "au.tfn", "nl.bsn", "de.idnr", "es.dni", "es.nie",
    "it.codicefiscale", "fr.nir", "be.nn", "ch.ssn", "at.vnr", "dk.cpr", "no.fodselsnummer", "se.personnummer",
    "fi.hetu", "pl.pesel", "pt.cc", "pt.nif", "br.cpf", "cl.rut", "mx.curp", "in_.aadhaar", "in_.pan", "cn.ric",
    "za.idnr", "kr.rrn", "il.idnr", "ee.ik", "lt.asmens", "ro.cnp", "bg.egn", "hr.oib", "si.emso", "cz.rc", "gr.amka",
    "is_.kennitala", "tr.tckimlik", "my.nric", "id.nik", "nz.ird", "ar.dni", "fr.nif", "es.nif",
)  # fmt: skip
_ID_NAMES = (
    r"(?:national|personal|citizen(?:'?s)?|civil|tax(?:payer)?|fiscal|social|pension|health|medicare|voter|resident)"
    r"(?:[ \t]+|-)(?:(?:id|identity|identification|insurance|security|registration|service|card|tax|code|identifier)"
    r"(?:[ \t]+|-))?(?:id(?:entification|entifier)?|number|no\.?|nr\.?|#|code)|(?:identity|identification|id)[ \t]+"
    r"(?:card[ \t]+)?(?:number|no\.?|nr\.?)|tin"  # a US taxpayer identification number
)
# The same names in German, French, Spanish, Italian, Portuguese, Dutch and Polish: a tax number, a social security
# number, an identity number ("Steuernummer", "numéro fiscal", "número de la seguridad social", "sofinummer").
_ID_NAMES_ABROAD = (
    r"steuer(?:nummer|[ \t]*-?[ \t]*(?:nr\.?|id(?:entifikationsnummer)?))|sozialversicherungsnummer|sv-?nummer"
    r"|rentenversicherungsnummer|(?:personal)?ausweisnummer|num[ée]ro[ \t]+(?:d'identification[ \t]+)?fiscale?"
    r"|identifiant[ \t]+fiscal|num[ée]ro[ \t]+de[ \t]+s[ée]curit[ée][ \t]+sociale|num[ée]ro[ \t]+d'identit[ée]"
    r"|n[uú]mero[ \t]+(?:de[ \t]+identificaci[oó]n[ \t]+)?fiscal"
    r"|n[uú]mero[ \t]+de[ \t]+(?:la[ \t]+)?seguridad[ \t]+social"
    r"|n[uú]mero[ \t]+de[ \t]+identidad|numero[ \t]+fiscale|identificativo[ \t]+fiscale|codice[ \t]+fiscale"
    r"|n[uú]mero[ \t]+(?:de[ \t]+)?contribuinte|n[uú]mero[ \t]+de[ \t]+identifica[cç][aã]o[ \t]+fiscal"
    r"|n[uú]mero[ \t]+da[ \t]+seguran[çc]a[ \t]+social|sofi-?nummer|fiscaal[ \t]+nummer|identiteitsnummer"
    r"|burgerservicenummer|numer[ \t]+identyfikacji[ \t]+podatkowej|numer[ \t]+pesel"
)  # (the short ones, "NIF", "DNI", "BSN", "PESEL", have rules of their own with their shapes and checks: `_IDS`)
_ID_GATE_ABROAD = ("steuer", "sozialversicherung", "sv-nummer", "svnummer", "rentenversicherung", "ausweisnummer",
                   "fiscal", "fiscaal", "sécurité", "securite", "seguridad", "seguran", "identit", "identidad",
                   "contribuinte", "sofi", "identyfikacji", "pesel", "burgerservicenummer")  # fmt: skip
# "is" as these languages say it, the Polish "to" ("mój PESEL to ...") and the Nordic "är", "er", "on"
# and "is" in Chinese, Japanese and Korean ("身份证号是 ...", "番号は ...", "번호는 ...")
_CONNECTOR_ABROAD = (
    "(?:"
    + _CONNECTOR.replace("lautet|c'est", "lautet|c'est|jest|to|är|er|on|je|este")
    + r"|[ \t]*(?:是|为|為|は|が|는|은)[ \t]*)"
)
_ID_VALUE = r"[a-z]{0,2}\d[\d .-]{4,20}\d[a-z]{0,2}|(?=[a-z]{0,19}\d)[a-z0-9]{6,20}"  # a digit, as the sieves ask
_ID_GATE = ("national", "personal", "citizen", "civil", "tax", "fiscal", "social", "pension", "health", "medicare",
            "voter", "resident", "identity", "identification", "id", "tin")  # fmt: skip
# Each name word, then at most one word more, then what names a number ("national insurance number", "tax id"), and
# a digit after it: words this common ("health", "personal") must not open the rule in every text that has them.
_ID_SIEVES = tuple(
    (word, re.escape(word) + r"[a-z']{0,6}[ \t-]{1,8}(?:[a-z]{2,14}[ \t-]{1,8}){0,2}"
     r"(?:id(?:entification|entifier)?|number|no|nr|#|code)(?![a-z])"
     r"[^\n]{0,400}?\d")
    for word in _ID_GATE
    if word not in ("id", "tin")
) + (
    ("tin", _SIEVES["tin"]),
    ("id", r"id[ \t]{1,8}(?:card[ \t]{1,8})?(?:number|no|nr)(?![a-z])[^\n]{0,400}?\d"),
)  # fmt: skip


# "TIN" names a taxpayer identification number in capitals only: "a tin of 240000 beads" is a can.
_A_TIN = re.compile(r"(?:t|T(?!IN))[iI][nN]\b")


def _an_id(m: re.Match[str], *, valid: bool) -> bool:
    value = m["secret"].upper()
    if len(_digits(value)) < 6 or _A_TIN.match(m["keep"]):
        return False
    compact = "".join(c for c in value if c.isalnum())
    passes = _varied(value) and any(_valid(module, compact) or _valid(module, value) for module in _PERSONAL_IDS)
    return passes is valid


def _a_valid_id(m: re.Match[str]) -> bool:
    return _an_id(m, valid=True)


def _an_invalid_id(m: re.Match[str]) -> bool:
    return _an_id(m, valid=False)


def _iban(m: re.Match[str]) -> bool:
    """A valid IBAN with eight digits at least (its check digits and a numeric bank code: the IBANs in use), so
    that a text with fewer digits cannot hold one (`min_digits`)."""
    return len(_digits(m["secret"])) >= 8 and _valid("iban", m["secret"].upper())


# Whose account an IBAN is. A business's, printed on an invoice to be paid ("Pay the supplier's invoice to IBAN DE89
# ...", "Rechnung an Müller GmbH"), is an ordinary fact a memory may keep: stored live. A person's (one's own, a
# landlord's, a friend's), or any IBAN beside what opens an account (a balance, a PIN, a password, a login, a card),
# is held as before: it is a person's banking details.
_PAYEE = re.compile(
    r"\b(?:supplier|vendor|invoice|merchant|business[ \t]+account|company[ \t]+account|rechnung|lieferant\w*"
    r"|firmenkonto|facture|fournisseur|factura|proveedor|fattura|fornitore|fatura|fornecedor|factuur|leverancier"
    r"|faktur\w*|dostawc\w*|gmbh|ltd|llc|inc|plc|sarl|s\.?a\.?s|b\.?v|s\.?l|s\.?r\.?l|sp\.[ \t]?z[ \t]?o\.?o)\b",
    re.I,
)
_OWN = re.compile(
    r"\b(?:my|our|mein\w*|unser\w*|mon|ma|mes|notre|nos|mi|mis|nuestr\w*|meu|minha|nosso|nossa|mijn|onze|m[óo]j"
    r"|moje|moim|nasz\w*|mio|mia)[ \t]+(?:[\w-]+[ \t]+){0,2}?(?:iban|rib|account|konto|compte|cuenta|conta|conto"
    r"|rekening|rachunek)\b|\b(?:balance|saldo|solde|kontostand|pin|password|passwor[dt]|mot[ \t]+de[ \t]+passe"
    r"|contrase[ñn]a|senha|login|log[ \t]+in|online[ \t-]?banking|tan|card|karte|carte|tarjeta|cart[ãa]o)\b",
    re.I,
)


def _a_payees(m: re.Match[str]) -> bool:
    """Whether the IBAN `m` found is a business's to be paid: an invoice or a supplier named, nothing of an account
    of one's own."""
    return _PAYEE.search(m.string) is not None and _OWN.search(m.string) is None


def _account(m: re.Match[str]) -> bool:
    return len(set(_digits(m["secret"]))) > 2


# A US bank account: an ABA routing number (nine digits, weighted 3-7-1 to a multiple of ten) names the bank, and
# with it the account number is enough to draw on the account. Either alone is held; both together, refused.
_ROUTING_NAMES = r"(?:aba[ \t]+)?routing(?:[ \t]*/[ \t]*transit)?(?:[ \t]+(?:number|no\.?|#|nr\.?))?"
_ROUTING_NEAR = re.compile(r"(?<![a-z])(?:routing|aba|rtn)(?![a-z])[^\n\d]{0,30}?(?<!\d)(\d{9})(?!\d)", re.I)
_ACCOUNT_NAMES = (
    r"(?:checking|savings|chequing|deposit|bank)[ \t]+account(?:[ \t]+(?:number|no\.?|#|nr\.?))?"
    r"|account[ \t]+(?:number|no\.?|#|nr\.?)|acct[ \t]*(?:no\.?|#|number)?"
)


def _routing(m: re.Match[str]) -> bool:
    return _valid("us.rtn", m["secret"])


def _beside_a_routing_number(m: re.Match[str]) -> bool:
    """An account number with a valid routing number named on its line, within 150 characters of it."""
    line = m.string[max(0, m.start() - 150) : m.end() + 150]
    return _account(m) and any(_valid("us.rtn", near[1]) for near in _ROUTING_NEAR.finditer(line))


def _long_enough(m: re.Match[str]) -> bool:
    """Codes of four characters at least, or shorter groups with six digits in all ("193 472 881", not "404")."""
    groups = re.split(r"[ \t,;/-]+", m["secret"])
    return all(len(group) >= 4 for group in groups) or sum(c.isdigit() for c in m["secret"]) >= 6


RECOVERY = _named(
    "a recovery code",
    r"(?:(?:recovery|backup|scratch|one-time|one[ \t]+time|single-use|2fa|mfa|two-factor|verification|otp|emergency)"
    r"(?:[ \t]+(?:backup|recovery|verification))?[ \t]*(?:codes?|keys?|pins?)"
    # in Spanish, German, French, Italian, Portuguese, Dutch, Polish, Russian
    r"|c[óo]digos?[ \t]+de[ \t]+(?:recuperaci[óo]n|respaldo|emergencia|recupera[çc][ãa]o|backup|reserva)"
    r"|(?:wiederherstellungs|notfall|backup|sicherungs)-?codes?|codes?[ \t]+de[ \t]+(?:secours|r[ée]cup[ée]ration"
    r"|sauvegarde)|codici[ \t]+(?:di[ \t]+)?(?:recupero|backup|riserva|emergenza)|(?:herstel|back-?up)codes?"
    r"|kody[ \t]+(?:zapasowe|odzyskiwania|awaryjne)|резервные[ \t]+коды|коды[ \t]+восстановления)"
    r"(?:,[^\n:=]{0,40}?(?=[ \t]*:))?",  # an aside before a colon: "GitHub recovery codes, keep safe: d51ab-bc3dc ..."
    # the first code holds a digit (the check asks it): so "for my Google account" is whose codes, not the first
    # (groups of three digits too, "193 472 881": six digits at least in all, the check asks)
    r"(?=[a-z-]{0,60}[0-9])[a-z0-9]{3,12}(?:(?:-|[ \t]*[,;/]?[ \t]+)[a-z0-9]{3,12}){0,23}",
    ("recovery", "backup", "scratch", "one-time", "onetime", "single-use", "2fa", "mfa", "two-factor", "verification",
     "otp", "emergency", "recupera", "respaldo", "emergencia", "wiederherstellung", "notfall", "sicherungs", "secours",
     "récupération", "recuperation", "sauvegarde", "recupero", "riserva", "herstelcode", "zapasowe", "odzyskiwania",
     "awaryjne", "резервн", "восстановлен"),
    lambda m: any(c.isdigit() for c in re.split(r"[ \t,;]+", m["secret"])[0]) and _long_enough(m) and _not_a_count(m),
    connector=r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|are|was|were)[ \t]*:?[ \t]+|[ \t]+[-–][ \t]+|[ \t]+)",
    any_value=True,
)  # fmt: skip
# A TOTP seed, named: base32 (letters and the digits 2 to 7), 16 characters at least, perhaps in groups of four;
# an aside may stand between the name and a colon ("TOTP secret for the VPN, in case I lose my phone: MJHT ...").
TOTP_SEED = _named(
    "a one-time password seed",
    r"(?:(?:totp|otp|2fa|mfa|two-factor|authenticator|google[ \t]+authenticator)[ \t]+"
    r"(?:seed|secret|setup[ \t]+key|key)"
    # the same in other languages: "Sekret TOTP", "segreto 2FA", "secreto TOTP", "clé secrète TOTP", "TOTP-Schlüssel"
    r"|(?:sekret|klucz|secret|segreto|secreto|segredo|chave|clave|chiave|cl[ée](?:[ \t]+secr[èe]te)?|geheimnis"
    r"|semilla|seme|semente|graine)[ \t]+(?:totp|otp|2fa|mfa)|(?:totp|otp|2fa)-?(?:schl[üu]ssel|geheimnis))"
    r"(?:[^\n:=]{0,120}?(?=[ \t]*[:=]))?",  # "TOTP-Schlüssel fürs Portal hab ich abgeschrieben, falls ...: IIBL ..."
    r"[a-z2-7]{4}(?:[ ]?[a-z2-7]{4}){3,15}",
    ("totp", "otp", "2fa", "mfa", "two-factor", "authenticator"),
    lambda m: sum(c.isdigit() for c in m["secret"]) >= 2,
    any_value=True,
)
# A BitLocker recovery key: eight groups of six digits, a shape nothing else has.
BITLOCKER = Rule(
    "a recovery key",
    re.compile(r"(?P<keep>)(?P<secret>\d{6}(?:-\d{6}){7})(?![\d-])"),
    lambda m: _starts_apart(m),
    min_digits=48,
    shape=rb"dddddd(?:sdddddd){7}",
)
# A recovery phrase of a few words joined by dashes: "2FA recovery phrase for Authy is: plum-orbit-seven-tiger".
RECOVERY_PHRASE = _named(
    "a recovery phrase",
    r"(?:recovery|backup|2fa|mfa|emergency|secret|rescue)[ \t]+(?:phrase|passphrase|words)",
    r"[a-z]{3,10}(?:-[a-z]{3,10}){3,23}",
    ("recovery", "backup", "2fa", "mfa", "emergency", "secret", "rescue"),
    lambda m: not placeholder(m["secret"]),
    connector=r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|are|was|were)[ \t]*:?[ \t]+|[ \t]+[-–][ \t]+)",
    any_value=True,
)
SEED_PHRASE = Rule(
    "a recovery phrase",
    bounded(
        r"(?P<keep>(?<![a-z])(?:(?:secret[ \t]+)?(?:seed|recovery|backup|mnemonic|wallet)[ \t]+"
        r"(?:phrase|words|sentence)"
        r"|mnemonic|seed)[^\n:=]{0,40}?(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|are|was)[ \t]*:?[ \t]+)[\"'“]?)"
        r"(?P<secret>[a-z]{3,8}(?:[ \t,]+[a-z]{3,8}){11,23})(?![a-z])",
        re.IGNORECASE,
    ),
    gate=("seed", "mnemonic", "recovery", "backup", "wallet"),  # every name holds one, none very common
    sieves=tuple(
        (
            word,
            re.escape(word) + r"[^\n]{0,100}?[a-z]{3,8}[ \t,]+[a-z]{3,8}[ \t,]+[a-z]{3,8}[ \t,]+[a-z]{3,8}",
        )
        for word in ("seed", "mnemonic", "recovery", "backup", "wallet")
    ),
)

# Japan's individual number ("My Number"), twelve digits with a check digit, perhaps in groups of four: "私のマイナン
# バーは 3817 2946 0510 です". Held when its check fails under the Japanese names; "my number" alone is too common a
# phrase (a phone number) to name one unless the check passes.
_MY_NUMBER_CONNECTOR = r"(?:[ \t]*(?:[:=]|は|が|:|is)?[ \t]*)"
_MY_NUMBER_VALUE = r"\d{4}[ \t-]?\d{4}[ \t-]?\d{4}"
MY_NUMBER = (
    dataclasses.replace(
        _named("an individual number", r"マイナンバー(?:カード)?|個人番号|my[ \t]+number", _MY_NUMBER_VALUE,
               ("マイナンバー", "個人番号", "number"), _stdnum_check("jp.in_"), connector=_MY_NUMBER_CONNECTOR),
        sieves=(("マイナンバー", r"マイナンバー[^\n]{0,400}?\d"), ("個人番号", r"個人番号[^\n]{0,400}?\d"),
                ("number", r"number[^\n]{0,400}?\d{4}[ \t-]?\d{4}[ \t-]?\d{4}")),
    ),
    _named("an individual number", r"マイナンバー(?:カード)?|個人番号", _MY_NUMBER_VALUE, ("マイナンバー", "個人番号"),
           _stdnum_check("jp.in_", valid=False), connector=_MY_NUMBER_CONNECTOR, suspect=True),
)  # fmt: skip

NUMBERS: tuple[Rule, ...] = (
    Rule("a card number", _CARD, _named_card, min_digits=13, shape=_CARD_SHAPE),
    Rule("a card number", _CARD, _unnamed_card, min_digits=13, suspect=True, shape=_CARD_SHAPE),
    CODES,
    CODES_ABROAD,
    TYPED_CODE,
    LOCKS,
    LOCKS_ABROAD,
    CJK_PIN,
    RECOVERY,
    TOTP_SEED,
    BITLOCKER,
    SEED_PHRASE,
    RECOVERY_PHRASE,
    _named("a Social Security number", _SSN_NAMES, _SSN_VALUE, ("ssn", "social"), _ssn),
    _named("a Social Security number", _SSN_NAMES, _SSN_VALUE, ("ssn", "social"), _ssn_suspect, suspect=True),
    Rule(
        "a Social Security number",
        re.compile(r"(?P<keep>)(?P<secret>\d{3}-\d{2}-\d{4})(?![\w-])"),
        lambda m: _starts_apart(m) and _ssn(m),
        min_digits=9,
        suspect=True,
        shape=rb"ddd[s]dd[s]dddd",
    ),
    *_id_rules(),
    *MY_NUMBER,
    *(
        dataclasses.replace(rule, sieves=_ID_SIEVES)
        for rule in (
            _named("an id number", _ID_NAMES, _ID_VALUE, _ID_GATE, lambda m: _an_id(m, valid=True), any_value=True),
            _named(
                "an id number",
                _ID_NAMES,
                _ID_VALUE,
                _ID_GATE,
                lambda m: _an_id(m, valid=False),
                any_value=True,
                suspect=True,
            ),
        )
    ),
    *(
        _named(
            "an id number",
            _ID_NAMES_ABROAD,
            _ID_VALUE,
            _ID_GATE_ABROAD,
            check,
            suspect=suspect,
            connector=_CONNECTOR_ABROAD,
        )
        for check, suspect in ((_a_valid_id, False), (_an_invalid_id, True))
    ),
    Rule(  # "AB 12 34 56 C" without a name: the format is HMRC's alone, but only suspect
        "a National Insurance number",
        re.compile(
            r"(?P<keep>)(?P<secret>[A-Z]{2}(?P<gap> ?)\d{2}(?P=gap)\d{2}(?P=gap)\d{2}(?P=gap)[A-D])(?![A-Za-z0-9])"
        ),
        lambda m: _starts_apart(m) and _nino(m),
        min_digits=6,
        suspect=True,
        shape=rb"UUs?dds?dds?dds?U",
    ),
    Rule(
        "an IBAN",
        re.compile(r"(?P<keep>)(?P<secret>[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?)(?![A-Za-z0-9])"),
        # in capitals, as IBANs are written; not one shown as an example ("the sandbox IBAN GB82 WEST ...")
        lambda m: _starts_apart(m) and _iban(m) and not talked_about(m.string, m.start(), m.end()) and not _a_payees(m),
        min_digits=8,
        suspect=True,
        shape=rb"UUdd(?:s?[Ud]{4}){2}",
    ),  # fmt: skip
    _named(  # "Mon IBAN pour les remboursements : FR76 ...": named, held whether or not its check digits pass
        "an IBAN",
        r"iban|rib|(?:bank[ \t]+)?account[ \t]+iban",
        r"[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){2,7}(?:[ ]?[a-z0-9]{1,3})?",
        ("iban", "rib"),
        lambda m: (
            len(_digits(m["secret"])) >= 8 and not talked_about(m.string, m.start(), m.end()) and not _a_payees(m)
        ),
        suspect=True,
        connector=r"(?:[ \t]*[:=#-][ \t]*|[ \t]+(?:is|was|ist|est|es|é|è|lautet)[ \t]*:?[ \t]+|[ \t]+)",
    ),
    dataclasses.replace(
        _named("a bank account number", _ACCOUNT_NAMES, r"[0-9]{5,17}", ("account", "acct"), _beside_a_routing_number),
        min_digits=5,  # the account number's
    ),
    _named("a bank routing number", _ROUTING_NAMES, r"\d{9}", ("routing",), _routing, suspect=True),
    _named(
        "a bank account number",
        rf"{_ACCOUNT_NAMES}|routing[ \t]+(?:number|no\.?)|kontonummer",
        r"\d{6,17}|\d{2}-\d{2}-\d{2}",
        ("account", "acct", "routing", "kontonummer"),
        _account,
        suspect=True,
    ),
)
