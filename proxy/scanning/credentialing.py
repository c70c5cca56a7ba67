"""Does a text give a credential in prose? A linear model over word and character n-grams, for the secrets no rule
names (issue 37 point 4: each outside corpus brought a door code, a locker combination, an id number or a password
in a sentence worded or written in a language nobody had foreseen, and each round of rules closed only the classes
it read).

What it catches is only ever held for a person to review, never refused, and only when the text also holds a value
that could be the credential: a word mixing letters with digits or symbols, a run of four or more digits, a quoted
word (at LIKELY); or, for a value of plain words ("the passphrase is purple monkey dishwasher"), a credential word in
one of the languages the training had (at PLAIN: no benign text of 60 outside splits or of LoCoMo with such a
value scores 0.7, and passphrases of plain words scored 0.82-0.89). A value is never a template's stand-in or an
example's, and the reason never shows it. `redact` masks the values (`spans`) of a text the model holds where the
rules masked nothing it could find; a text with a mask in it is not held again, since what is left is the
credential's context. Trained
by ``bench/credential_model.py`` with scikit-learn, scored by `instructing`'s standard-library scorer (the n-grams a
text shares with the instruction model are counted once); the weights load at the first scan that gets this far (a
gzip of JSON beside this module). Only texts with a value or a credential word are scored: most chat has neither.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from .instructing import InstructionModel, read
from .numbers.codes import LANDLINE, NEGATION, WEAK
from .shapes import PASSWORD_MANAGER, placeholder, talked_about

MODEL = Path(__file__).with_name("credential_model.json.gz")

LIKELY, PLAIN = 0.5, 0.8
MASK = "[redacted]"  # what redaction leaves: no value
# A memory holds at most 500 characters; a longer text (a log, a document) is not one, and the model was trained on
# sentences: a 1,500-character test log's 'line 0000 ...: PASS' read as codes.
LONGEST = 600

# A value: a word of letters with digits or symbols in it, a run of 4+ digits (grouped or not), a quoted word.
_MIXED = re.compile(
    r"(?<![\w/.@-])(?=[^\s]*[^\W\d_])(?=[^\s]*[\d#$%&*^~+=])[^\s\"'“”„«»「」\[\]]{5,}",
)
# Kana, ideographs and Hangul: a text in Japanese, Chinese or Korean has no spaces, and a "word" of it with a digit
# is a sentence ("母は週3回デイサービスに通っている"), not a value (which is ASCII in those texts: "暗証番号は4821")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_DIGITS = re.compile(r"(?<![\w.])[#*]?\d(?:[ ./-]?\d){3,}[#*]?(?![\w.]\w)")
_QUOTED = re.compile(
    r"(?<!\w)\"[^\"\n]{2,60}\"|(?<![^\s(\[{])'[^'\s][^'\n]{1,38}[^'\s]'(?!\w)|“[^”\n]{2,40}”|„[^“”\n]{2,40}[“”]"
    r"|«\s?[^»\n]{2,40}\s?»|”[^”\n]{2,40}”|「[^」\n]{1,40}」"
)
# letters, spaces and commas only: "memory", "Kanzlei NAS", "email only, no SMS"
_PLAIN_WORDS = re.compile(r"[^\W\d_]+(?:(?:,?\s|-)[^\W\d_]+)*")  # and a term's hyphens: "loan-to-value"
_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# An IBAN's groups: the rules judge an IBAN (a payee's is stored, a person's held); its digits are no value here
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
_A_KEY = re.compile(r"[ \t]*:(?!//)")
_IBAN_START = re.compile(r"[A-Z][A-Z]\d\d")
_NOT_LETTER = re.compile(r"[\d#$%&*^~+=]")  # not "_": "api_key" is a name
# What every value has one of (a digit, a symbol, a quote; a single quote opens after a space or a bracket), and
# what every credential word holds: most texts have neither, and are not scored.
_MAYBE_VALUE = re.compile(r"[\d#$%&*^~+=_\"“”„«»「]")
_OPENING = (" '", "\t'", "\n'", "('", "['", "{'")
# "pass" and "pin" begin a word or follow a hyphen: "passion" and "happiness" are common
_STEMS = (
    " pass", "-pass", "_pass", " pin", "-pin", "_pin", "code", "codic", "codig", "códig", "kod", "kód", "comb",
    "login", "creden", "secret", "token", "seed", "recover", "kennw", "zugang", "mdp", "identif", "contras", "clave",
    "parola", "senha", "wachtw", "senord", "adgang", "salasan", "hasł", "hasl", "heslo", "jelsz", "ifre", "пароль",
    "код", "пин",
)  # fmt: skip
_STEMS_INSIDE = ("暗証", "パスワード", "密码", "口令", "暗号", "비밀번호", "비번", "암호")
_TRIM = ".,;:!?)]}>'\"”»」"
# Words for what a credential opens, in the languages of the training texts: a plain-word value needs one of them.
_CREDENTIAL_WORD = re.compile(
    r"(?<![^\s_-])(?:pass(?:word|phrase|code|wort|wd|ord\w*)?|pins?)\b"  # after a space or a hyphen, as `_STEMS`
    r"|\b(?:(?:door|gate|entry|alarm|lock|safe)?codes?|combination|login|credentials?|secret|token|seed|recovery"
    r"|kennwort|zugangsdaten|mot de passe|mdp|digicode|identifiants|contrase[ñn]a|clave|c[oó]digo|parola d'ordine"
    r"|credenziali|codice|senha|palavra-passe|wachtwoord|l[öo]senord\w*|adgangskode\w*|salasana\w*|has[łl]o|heslo"
    r"|jelsz\w*|[şs]ifre\w*|kod\w*|kód\w*"
    r"|(?:phrase|words?)[ \t]+(?:that|which|to)[ \t]+(?:unlocks?|opens?|disarms?|decrypts?))\b"  # what it opens
    r"|пароль|код|пин|暗証|パスワード|密码|口令|暗号|비밀번호|비번|암호",
    re.IGNORECASE,
)


# Between a credential word and its value: a few words naming whose it is, then "is" or a colon.
_SAYS = re.compile(r"[^.,;:=()\n]{0,40}?(?:\s(?:is|ist|est|es|è|é|er|är|lautet|sind|era|was)\s|[:=：]|は|是|는)\s*")


_ASSIGNED = re.compile(r"[=:]")
_ROUND = re.compile(r"[1-9]0{3,}")  # "token: 4000", "10000 steps": an amount
_PORT = re.compile(r"\bports?\s*:?\s*$", re.IGNORECASE)  # "runs on port 8005": a port number opens nothing
# a year after a word of time ("desde 2022", "dopo l'infarto del 2023", "since 2019"): a date, not a PIN ("her PIN is
# 1985" has none)
_YEAR = re.compile(r"(?:19|20)\d\d")
_WHEN = re.compile(
    r"\b(?:since|in|from|until|till|by|of|circa|desde|del|de|en|em|dal|dall'|nel|dopo|seit|im|bis|depuis|sinds"
    r"|od|do|w|roku|année|año|ano|anno|jahr)\s*$",
    re.IGNORECASE,
)
# a recent or coming year stands for a code only where something names it: "the code is 2024" ("Garden plan 2027" is a
# year); an older one is as often a code made of a birth year ("the year his dad arrived, 1987")
_RECENT_YEAR = re.compile(r"20[2-9]\d")
_NAMES_A_VALUE = re.compile(
    r"(?:\b(?:is|was|ist|est|es|pin|code|codice|c[óo]digo|pass\w*|combo|combination|kod|kode)|è|é|[:=])\W*$",
    re.IGNORECASE,
)
# a business's tax or registration number, a published identifier: "Partita IVA dell'idraulico: 04512870961", "VAT no.
# GB123456789", "My ORCID iD is 0000-0003-4172-8856", a phone's IMEI
_BUSINESS_NUMBER = re.compile(
    r"\b(?:partita[ \t]+iva|p\.?[ \t]?iva|vat(?:[ \t]+(?:number|no\.?|id|reg\w*))?|ust-?id\w*|n°[ \t]*tva|tva"
    r"|btw(?:-?nummer)?|cif|siret|siren|abn|company[ \t]+(?:number|no\.?|registration)|kvk(?:-?nummer)?"
    r"|handelsregister\w*|nip[ \t]+firmy"
    r"|registro[ \t]+mercantil|bic|swift(?:[ \t]+code)?"
    # (a BIC is on a bank's letters, an ORCID iD on papers, a pet's microchip number on its passport)
    r"|orcid(?:[ \t]+i[ds])?|doi|isbn|issn|imei|microchip(?:[ \t]+(?:number|no\.?|id))?)\b"
    r"(?:[^\n.;]|\.(?=\w)){0,50}$",  # a dot in a number may come between: "DOI for the 3.0 paper is ..."
    re.IGNORECASE,
)
# an ISO date or time, a JSON number (a landline is `LANDLINE`)
_TIMESTAMP = re.compile(r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])|\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:\.\d+)?Z?)?")
# a standard's name, not a value: "uses WPA2", "SHA256 of the file", "USB-C", "IPv6", "UTF-8"
_STANDARD = re.compile(
    r"wpa[23]?(?:-\w+)?|wep|tls-?1\.?[0-3]|ssl-?[23]|sha-?(?:1|224|256|384|512)|md5|aes-?(?:128|192|256)|rsa-?\d{4}"
    r"|ed25519|ipv[46]|http/?[23]|utf-?(?:8|16)|usb-?[23c](?:\.\d)?|wi-?fi-?[4-7]e?|802\.11\w*|[345]g|h\.?26[45]",
    re.IGNORECASE,
)
# a time of day, a phone number as Americans write it, a store's number after its name ("Walgreens #4021 on Elm St,
# 555-0148, open till 10pm")
_VERSION = re.compile(r"v\d{1,3}(?:\.\d{1,4}){1,3}", re.IGNORECASE)  # "moved to v2.14.3": a release
_ORDINAL = re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.IGNORECASE)  # a day of the month: "change it by the 20th"
_CLOCK = re.compile(r"\d{1,2}(?::\d\d)?[ ]?(?:am|pm)", re.IGNORECASE)
# a time of day on the 24-hour clock, after the word for what happens then: "Gate: opens 0700, closes 2200"
_HHMM = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d")
_HOURS = re.compile(
    r"\b(?:opens?|closes?|from|until|till|departs?|arrives?|weekdays?|weekends?|daily|sundays?|saturdays?)"
    r"[ \t]*:?[ \t]*$",
    re.IGNORECASE,
)
_SHORT_PHONE = re.compile(r"(?:\(\d{3}\)[ ]?|\d{3}[-.])?\d{3}[-.]\d{4}")
_MASKED_BEFORE = re.compile(r"[*•xX]{2,}[ \t-]*$")  # a card's last four after its mask: "**** 4242"
_STORE = re.compile(r"#\d{1,5}")
# a quantity with its unit: "WAV 48kHz 24-bit", "MP3 128kbps", "a 5000mAh battery"
_UNIT = re.compile(
    r"\d+(?:[.,]\d+)?[ -]?(?:k?hz|[kmg]bps|[kmgt]b|bits?|fps|mp|mah|k?wh|kw|mm|cm|km|ms|ml|mg|kg|px|dpi|rpm)", re.I
)
_TEMPERATURE = re.compile(r"[-+]?\d+(?:[.,]\d+)?[ ]?°[CFK]?")  # "anneal at 58°C"
_PRODUCT = re.compile(r"[A-Z]{1,4}-\d{1,3}")  # a product's or a model's name: "a squirt of WD-40", "an F-150"
_LINK = re.compile(r"(?:[\w-]+\.)+[a-z]{2,6}/", re.I)  # a link without its scheme: "zola.com/registry/ellisreed2025"
_CHANNEL = re.compile(r"#[A-Za-z][A-Za-z_-]*")  # a chat channel or a hashtag: "don't post it in #general"
# a card's last four, said so: "the card on Mum's pharmacy account ends in 4471"
_LAST_FOUR = re.compile(
    r"\b(?:ends?|ending)(?:[ \t]+(?:in|with))?[ \t]+$"
    r"|\blast[ \t]+(?:four|4)(?:[ \t]+digits)?(?:[ \t]+of[ \t]+[^\n.]{1,40}?)?[ \t]*(?:are|is|:)?[ \t]*$",
    re.I,
)
# a record's id, which opens nothing: "Visa fee paid: transaction TXN-20260412-88731"
_RECORD = re.compile(
    r"\b(?:transaction|txn|order|invoice|receipt|reference|ref|tracking|ticket|case|claim|shipment|parcel|envelope"
    r"|document|request|job|build|run|trace|correlation)"
    r"(?:[ \t]+(?:ids?|numbers?|no\.?|#))?[ \t]*[:#]?[ \t]*(?:[a-z]{2,5}-)?$",
    re.I,
)
# a published id of an app or a product, which a store page shows anyone: "Lanternfall's Steam app ID is 2419870"
_PUBLIC_ID = re.compile(
    r"\b(?:app|application|store|product|item|listing|game|package|bundle|asin|isbn|sku)[ \t]*(?:ids?|numbers?|no\.?)\b"
    r"[^\n.]{0,60}$",
    re.I,
)
# a ship's, a station's, a label approval's or a tariff's public number: "MMSI for Kittiwake is 235098761", "call sign
# MHXK7", "TTB ID 26311001000412", "tariff code ...: 2204.21"
_REGISTERED = re.compile(
    r"\b(?:mmsi|call[ \t]?sign|imo[ \t]+(?:number|no\.?)|ttb[ \t]+id"
    r"|(?:tariff|hs|commodity|taric|cn|sic|naics)[ \t]+code)\b[^\n.]{0,40}$",
    re.I,
)
# a number to call or page inside a place: "ext 4412", "bleep 2213", "the code blue team number is 2222"
_TO_CALL = re.compile(
    r"\b(?:ext|extension|bleep|pager|crash[ \t]+team|code[ \t]+blue(?:[ \t]+team)?)\b[.:#]?(?:[ \t]+(?:no\.?|number))?"
    r"(?:[ \t]+is)?[ \t]*$",
    re.I,
)
# a booking's or an order's number in French, Spanish, Italian or Portuguese: "Le numéro de réservation du ferry
# Calais–Douvres est FRX-882145"
_BOOKING_ABROAD = re.compile(
    r"\bn(?:um[ée]ro|[uú]mero|°)[ \t]+(?:de[ \t]+|di[ \t]+)?(?:r[ée]servation|reserva|prenotazione|commande|pedido"
    r"|ordine|suivi|seguimiento|dossier|billet|facture|factura|fattura|vol|voo|volo|vuelo|pratica|protocollo"
    r"|expediente)\b[^\n.]{0,50}$",
    re.I,
)
_CURRENCIES = frozenset("£$€¥₹")
# a UK tax code, which says what allowance a payslip applies, not a secret: "tax code is 1257L"
_TAX_CODE = re.compile(r"\btax[ \t]+code[ \t]+(?:is|was|of|:)?[ \t]*$", re.I)
_UK_TAX_CODE = re.compile(r"[SC]?(?:\d{3,4}[LMNT]|K\d{1,4}|BR|D[01]|NT|0T)(?:[ ]?(?:W1|M1|X))?")
_BRANCH = re.compile(r"\b(?!(?i:code|pin|door|gate|lock|alarm|safe|keypad|box|locker)\b)[A-Z][\w'&-]+[ \t]+$")
# how long a code is, not the code: "the 6-digit PIN", "un code à 4 chiffres", "8-stellige PIN"
_LENGTH = re.compile(
    r"\d{1,2}[ -]?(?:digits?|characters?|chars?|letters?|stellig\w*|chiffres?|d[ií]gitos?|cifre|cijferig\w*|znak\w*"
    r"|words?|w[öo]rter|mots|palabras|parole|palavras|woorden|s[łl]ów)",  # "a 12-word backup": a phrase's length
    re.IGNORECASE,
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2})+")  # text in escapes: `decoding` reads it
_JSON_NUMBER = re.compile(r":-?\d+(?:\.\d+)?")
_JSON_ARRAY = re.compile(r"\[\s*(?:[{\[\"\]]|-?\d+(?:\.\d+)?\s*[,\]]|true|false|null)")  # not "[10:42]", a time stamp
# a value said to be no password: "è il livello, non una password", "not a password, just the course code"
# a password in a film, a song or a book ("the scene where the password turns out to be "Joshua""): a story's
_FICTION = re.compile(
    r"\b(?:sc[eè]nes?|novels?|sitcoms?|episodes?|lyrics|songs?|romanzo|fumetto|comics?|manga|anime|script|screenplay"
    r"|(?:in|from|of)[ \t]+(?:the|a|that|this|de|het|el|la|le|il)[ \t]+"
    r"(?:film|movie|book|series|show|pel[íi]cula|filme))\b",
    re.IGNORECASE,
)
# a number said to be published: "pubblicato sul sito e sulle ricevute", "printed on every invoice"
_PUBLISHED = re.compile(
    r"\b(?:published|publicly|pubblicat[oaie]|publi[ée]e?s?|publicad[oa]s?|ver[öo]ffentlicht|gepubliceerd"
    r"|printed[ \t]+on[ \t]+(?:every|each|all|the)|on[ \t]+(?:every|each|all)[ \t]+(?:invoices?|receipts?|letters?)"
    # or put where anyone reads it: "Event code ... on the city's website is FTF-2025-SPRING"
    r"|on[ \t]+(?:(?:the|our|their|its)[ \t]+)?(?:[\w-]+'s[ \t]+)?(?:public[ \t]+)?(?:website|web[ \t]?site"
    r"|web[ \t]?page|homepage"
    r"|flyers?|posters?|noticeboard))\b",
    re.IGNORECASE,
)
_NOT_A_PASSWORD = re.compile(
    r"\b(?:not|non|no|nicht|kein|pas|n'est|ni|nao|não|niet|geen|nie)\s+(?:(?:a|an|una|uno|un|une|ein|eine|um|uma"
    r"|een|el|la|il)\s+)?(?:password|passwort|kennwort|mot\s+de\s+passe|contrase[ñn]a|senha|wachtwoord|has[łl]o|secret"
    r"|pin|(?:(?:real|actual|security|door|access|lock|alarm)(?:\s+or\s+\w+)?\s+)+code)\b",
    re.IGNORECASE,
)
# a phone number ("phone 030 4412 7789", "Tel. 0151 ..."), a parcel's tracking number, an invoice's or an order's
# reference: they open nothing
# a code of six digits or fewer that came to a phone is no phone number: "just came to my phone: 584219"
_TEXTED_CODE = re.compile(r"\d{4,6}")
_TEXTED = re.compile(r"\b(?:to|on)\s+(?:my|her|his|your|the|our)\s+(?:phone|mobile|cell)\s*:?\s*$", re.I)
_CALLED = re.compile(
    r"(?:\b(?:phone|tel|telephone|call|ring|fax|whatsapp|mobile|cell|hotline|tracking|sendungsnummer|suivi"
    r"|seguimiento|tracciamento|zending|reference|ref|invoice|order|ticket|case|booking|receipt|rechnung|facture"
    r"|factura|fattura|bestellung|commande|pedido|donation|transaction|payment|pledge|claim|shipment|parcel)\b[.:#]?"
    r"(?:\s+(?:no|nr|number|nummer|num[ée]ro|n[uú]mero|id))?\.?[:#]?\s*)$"
    # an order's number in one word, the shop between: "Bestelnummer bol.com 4203918472"
    r"|\b(?:bestel|bestell|auftrags|order|rechnungs|kunden|klant|factuur|referentie|sendungs|reserverings|buchungs"
    r"|boekings)-?nummer\b[^\n\d]{0,20}$",
    re.IGNORECASE,
)
# a phone line a few words after its name: "il numero verde di assistenza è 800 900 860", "hotline for the boiler:"
_LINE = re.compile(
    r"\b(?:phone[ \t]+number|telephone|fax|whatsapp|helpline|support[ \t]+line|numero[ \t]+verde|num[ée]ro[ \t]+vert"
    r"|toll-free|freephone|servicenummer|rufnummer)\b"
    r"(?!(?:\s+\S+){0,4}?\s+(?:pin|code|password|passcode|unlock|voicemail)\b)"
    r"(?:\s+\S+){0,4}?\s*[:=]?\s*$",
    re.IGNORECASE,
)
# a postcode, a few words after its name: "Kod pocztowy akademika to 30-059", "PLZ der Praxis: 80331" (no small
# letters: "his kid's name backwards with the zip: nodnarB90210" is a password)
_POSTCODE = re.compile(
    r"\b(?:post[ \t]?code|zip(?:[ \t]?code)?|plz|postleitzahl|code[ \t]+postal|c[óo]digo[ \t]+postal|cap|pocztowy"
    r"|postnummer|postcode)\b(?:\s+\S+){0,5}?\s*[:=]?\s*$",
    re.IGNORECASE,
)
# a measure: "hold it for 30-60 seconds", "1500-2000 kcal", "2019-2023 seasons" are no code
_MEASURE = re.compile(
    r"\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|times|reps|steps|kcal|calories"
    r"|words|pages|people|points|km|kg|lbs?|miles?|m|cm|mm|ml|%|€|\$|eur|usd|gbp|euros?|dollars?|pounds?)\b",
    re.IGNORECASE,
)


# a password manager's entry or vault, named in quotes: "in the 1Password vault 'Parish Admin'"
# a setting's value in a config ('provider: "oidc"', "type = 'postgres'"): a name, not a credential
_SETTING = re.compile(
    r"\b(?:provider|issuer|type|kind|mode|method|algorithm|alg|scheme|region|env|environment|name|driver)\"?\s*[:=]\s*$",
    re.I,
)
# what a screen shows: 'the panel shows "CODE INVALID - 3 ATTEMPTS"', 'error: "E-42"'
_DISPLAYED = re.compile(
    r"\b(?:shows?|showing|displays?|displaying|flashes|flashing|prints|printed|error|warning|message)\s*[:=]?\s*[\"'“„«]?$",
    re.I,
)
# a vault's name, after the manager's: "kept in the 1Password 'Studio admin' vault"
_VAULT_AFTER = re.compile(r"[\"'”»]?[ \t]+(?:vault|folder|collection|entry|item)s?\b", re.I)
_NAMED_BEFORE = re.compile(r"(?:called|named|under|entry|item|vault|folder|labell?ed|titled)\s*[:=]?\s*$", re.I)


def _shown(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is no value: what redaction left, a template's stand-in ("your_key_here",
    "{{ vault_db_password }}", "changeme"), or a value in a sentence that shows an example."""
    value = text[start:end].strip(" \"'“”„«»「」")
    assigned = _ASSIGNED.split(value)[-1]  # "password=${DB_PASSWORD}": the value after the name
    return (
        MASK in value
        or placeholder(value)
        or placeholder(assigned)
        or "://" in value  # a link (a password in one is the rules')
        or _LINK.match(value) is not None
        or _ROUND.fullmatch(value) is not None
        or _PORT.search(text, max(0, start - 12), start) is not None
        or (_CALLED.search(text, max(0, start - 24), start) is not None and not _texted(text, start, value))
        or (_POSTCODE.search(text, max(0, start - 40), start) is not None and value == value.upper())
        or _LINE.search(text, max(0, start - 48), start) is not None
        or _NAMED_BEFORE.search(text, max(0, start - 12), max(0, start - 1)) is not None
        or (
            PASSWORD_MANAGER.search(text, max(0, start - 16), start) is not None
            and _VAULT_AFTER.match(text, end) is not None
        )
        or PASSWORD_MANAGER.fullmatch(value) is not None
        or text[start - 1 : start] == "+"  # an international phone number: "+36 1 555 0199"
        or _SETTING.search(text, max(0, start - 16), max(0, start - 1)) is not None
        or _DISPLAYED.search(text, max(0, start - 24), start) is not None
        or (value.strip("#*") in WEAK and NEGATION.search(text, max(0, start - 24), start) is not None)
        or _MEASURE.match(text, end) is not None
        or (_YEAR.fullmatch(value) is not None and _WHEN.search(text, max(0, start - 16), start) is not None)
        or (
            _RECENT_YEAR.fullmatch(value) is not None and _NAMES_A_VALUE.search(text, max(0, start - 16), start) is None
        )
        or _BUSINESS_NUMBER.search(text, max(0, start - 64), start) is not None
        or LANDLINE.fullmatch(value) is not None
        or _TIMESTAMP.fullmatch(value) is not None
        or _LENGTH.fullmatch(value) is not None
        or _STANDARD.fullmatch(value) is not None
        or _MASKED_BEFORE.search(text, max(0, start - 8), start) is not None
        or _CLOCK.fullmatch(value) is not None
        or (_HHMM.fullmatch(value) is not None and _HOURS.search(text, max(0, start - 16), start) is not None)
        or _ORDINAL.fullmatch(value) is not None
        or _VERSION.fullmatch(value) is not None
        or _SHORT_PHONE.fullmatch(value) is not None
        or (_STORE.fullmatch(value) is not None and _BRANCH.search(text, max(0, start - 24), start) is not None)
        or _CHANNEL.fullmatch(value) is not None
        or (_LAST_FOUR.search(text, max(0, start - 64), start) is not None and len(value) == 4)
        or _PUBLIC_ID.search(text, max(0, start - 80), start) is not None
        or _REGISTERED.search(text, max(0, start - 60), start) is not None
        or _TO_CALL.search(text, max(0, start - 40), start) is not None
        or _BOOKING_ABROAD.search(text, max(0, start - 80), start) is not None
        or (_uk_tax_code(text, start, end) and _TAX_CODE.search(text, max(0, start - 16), start) is not None)
        or text[start - 1 : start] in _CURRENCIES  # an amount: "pays £312.40 monthly"
        or _RECORD.search(text, max(0, start - 24), start) is not None
        or _PRODUCT.fullmatch(value) is not None
        or _TEMPERATURE.fullmatch(value) is not None
        or _UNIT.fullmatch(value) is not None
        or _JSON_NUMBER.fullmatch(value) is not None
        or _ESCAPES.fullmatch(value) is not None
        or (text[max(0, start - 1) : start] == ":" and _NUMBER.fullmatch(value) is not None)
        or talked_about(text, start, end)
    )


def _uk_tax_code(text: str, start: int, end: int) -> bool:
    """Whether a UK tax code starts at `start` and covers `text[start:end]` (the digits of "1257L" are a value too)."""
    m = _UK_TAX_CODE.match(text, start)
    return m is not None and m.end() >= end and not text[m.end() : m.end() + 1].isalnum()


def _texted(text: str, start: int, value: str) -> bool:
    return _TEXTED_CODE.fullmatch(value) is not None and _TEXTED.search(text, max(0, start - 24), start) is not None


def values(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that could be a credential's value (what a hold by the model masks)."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    spans = [
        (start, end)
        for start, end in quoted
        if not _shown(text, start + 1, end - 1)
        and _A_KEY.match(text, end) is None  # '{"spo2": 97}': a JSON key names a value, it is none
        and (not _PLAIN_WORDS.fullmatch(text[start + 1 : end - 1]) or _CREDENTIAL_WORD.search(text, 0, start))
    ]  # a quoted word of letters is a value only after a credential word names one: "alert('memory')" is code, and
    # "„na wnuczka" — ... nie podawać kodu BLIK" names a scam
    # named or not, an IBAN is the IBAN rules' to judge (and has two capitals and two digits: most texts have none)
    ibans = [m.span() for m in _IBAN.finditer(text)] if _IBAN_START.search(text) else []
    for pattern in (_MIXED, _DIGITS):
        for m in pattern.finditer(text):
            start, end = m.start(), m.end()
            while end > start and text[end - 1] in _TRIM:
                end -= 1
            if end - start < 4 or any(s <= start < e for s, e in quoted):  # a quote is judged whole
                continue
            if pattern is _DIGITS and _ADDRESS.fullmatch(text, start, end):  # an IP address, not a code
                continue
            if any(low <= start < high for low, high in ibans):
                continue
            if _shown(text, start, end):
                continue
            if pattern is _MIXED and _CJK.search(text, start, end):
                continue
            if pattern is _DIGITS or _NOT_LETTER.search(text, start, end):  # still a digit or symbol once trimmed
                spans.append((start, end))
    return sorted(spans)


def _plain_value(text: str) -> tuple[int, int] | None:
    """For a value of plain words: what follows the last credential word's "is" or colon, to the clause's end."""
    found = None
    for word in _CREDENTIAL_WORD.finditer(text):
        found = word
    if found is None:
        return None
    if _NUMBERED.match(text, found.end()):  # "Pin 4 on the CAN breakout is the one with the loose crimp"
        return None
    after = _SAYS.match(text, found.end())
    if after is None:
        return None
    start = after.end()
    end = re.search(r"[.,;(\n]|$", text[start:])
    stop = start + (end.start() if end else len(text) - start)
    if stop - start < 3 or MASK in text[start:stop] or _shown(text, start, stop) or _WHERE.match(text, start):
        return None
    return start, stop


# a credential word with a small number after it names one of several ("pin 4", "code 3"), not its value
_NUMBERED = re.compile(r"[ \t]+(?:#|no\.?[ \t]*)?\d{1,2}\b(?![ \t]*[:=])")
# where a credential is or what it is like, not what: "La password del wifi è scritta sul retro del router", "is on
# the fridge", "the 6-digit PIN on her new ID card is needed for the tax form"
# (or "it's" first: "it's the same pattern as my old one")
_WHERE = re.compile(
    r"(?:(?:it'?s|it[ \t]+is|that'?s|that[ \t]+is)[ \t]+(?:the[ \t]+|a[ \t]+)?)?"
    r"(?:needed|required|used|asked|requested|optional|valid|invalid|expired|blocked|locked|same|changed|reset|sent"
    r"|different|new|old|wrong|correct|mandatory|necessary"
    r"|written|scritt[ao]|escrit[ao]|[ée]crit|geschrieben|notiert|printed|stampat[ao]|impres[ao]|imprim[ée]"
    r"|stored|kept|saved|taped|stuck|on|in|at|under|behind|sul|sulla|nel|nella|sotto|dietro|en|sur|dans|sous"
    r"|derri[èe]re|auf|im|unter|hinter|na|no|em|op|onder)\b",
    re.IGNORECASE,
)


@cache
def model() -> InstructionModel:
    return read(MODEL)


def held(text: str, likelihood: float) -> bool:
    """The rule, for a text the model gives `likelihood`: likely with a value in it, or sure with a credential word
    and a plain-word value after it."""
    if likelihood >= LIKELY and values(text):
        return True
    return likelihood >= PLAIN and _plain_value(text) is not None


def _may_have_value(text: str) -> bool:
    """Whether `text` may hold a value (`values`): cheaper than the patterns, and never wrong when it says no."""
    return _MAYBE_VALUE.search(text) is not None or text.startswith("'") or any(o in text for o in _OPENING)


def _may_have_word(text: str) -> bool:
    """Whether `text` may hold a credential word (`_CREDENTIAL_WORD`), likewise."""
    lowered = f" {text.lower()}"
    return any(stem in lowered for stem in _STEMS) or any(stem in text for stem in _STEMS_INSIDE)


def credential(text: str) -> bool:
    """True when `text` reads like a credential given in prose (held for review, never refused). The same rule as
    `held`, with the model scored only for a text that has a value or a credential word and a value after it."""
    if len(text) > LONGEST or MASK in text:  # redacted already: what is left is the context, not the credential
        return False
    if code(text):  # JSON, a tool call's arguments: the model read sentences (the rules read fields)
        return False
    if _may_have_value(text) and values(text):
        return (
            not _NOT_A_PASSWORD.search(text)
            and not _FICTION.search(text)
            and not _PUBLISHED.search(text)
            and model().probability(text) >= LIKELY
        )
    return (
        _may_have_word(text)
        and _plain_value(text) is not None
        and not _NOT_A_PASSWORD.search(text)
        and model().probability(text) >= PLAIN
    )


def code(text: str) -> bool:
    """Whether `text` is a JSON document or a tool call's arguments rather than prose ("[10:42] Sarah: ..." is a chat
    log's time stamp, prose)."""
    text = text.lstrip()
    return text[:1] == "{" or _JSON_ARRAY.match(text) is not None


def spans(text: str) -> list[tuple[int, int]]:
    """What to mask in `text`, which the model holds: its values, else the plain-word value after its credential
    word."""
    if found := values(text):
        return found
    plain = _plain_value(text)
    return [plain] if plain else []
