"""Id numbers: Social Security and National Insurance numbers, the national id numbers python-stdnum checks
(certain when the check passes, suspect when a named one fails it), any id named as a person's, Japan's My Number."""

from __future__ import annotations

import dataclasses
import re

from ..rules import Rule
from ..shapes import talked_about
from .named import _CONNECTOR, _SIEVES, CONNECTOR_OR_FIELD, Check, _digits, _named, _starts_apart, _valid


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


def _passport(m: re.Match[str]) -> bool:
    """Five digits at least, or a German passport's nine capitals and digits ("C4R8J21TP": four digits may be all)."""
    value = m["secret"]
    digits = sum(c.isdigit() for c in value)
    return digits >= 5 or (len(value) == 9 and digits >= 3 and value == value.upper())


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
    ("an IRD number", r"ird(?:[ \t]+(?:number|no\.?|#))?|inland[ \t]+revenue[ \t]+(?:number|no\.?)",
     r"\d{2,3}[ -]?\d{3}[ -]?\d{3}", ("ird", "inland"), "nz.ird"),
    ("a Unique Taxpayer Reference", r"utr(?:[ \t]+(?:number|no\.?|#))?|unique[ \t]+tax(?:payer)?[ \t]+reference"
     r"(?:[ \t]+(?:number|no\.?))?", r"\d{5}[ ]?\d{5}", ("utr", "unique"), "gb.utr"),
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
     r"\d{3}[ ]?\d{3}[ ]?\d{3}", ("nif", "identifica", "contribuinte"), "pt.nif"),
    ("a National Insurance number", r"national[ \t]+insurance(?:[ \t]+(?:number|no\.?))?|nino|ni[ \t]+(?:number|no\.?)",
     r"[a-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[a-d]", ("insurance", "nino", "ni"), _nino),
    # Hungary's social security number (TAJ) and tax id (adóazonosító jel): python-stdnum checks neither
    ("a social security number", r"taj(?:[ \t-]?sz[aá]m(?:om|od|a|unk)?)?|t[aá]rsadalombiztos[ií]t[aá]si[ \t]+"
     r"azonos[ií]t[oó](?:[ \t]+jel)?", r"[0-9]{3}[ -]?[0-9]{3}[ -]?[0-9]{3}",
     ("taj", "társadalombiztos", "tarsadalombiztos"), lambda m: _taj(_digits(m["secret"]))),
    ("a tax id number", r"ad[oó]azonos[ií]t[oó](?:[ \t]+jel)?(?:e|em|ed|a)?", r"8[0-9]{9}",
     ("adóazonos", "adoazonos"), lambda m: _hu_tax_id(_digits(m["secret"]))),
    # Nigeria's bank verification number and national identification number, Zambia's national registration card
    ("a bank verification number", r"bvn|bank[ \t]+verification[ \t]+number", r"[0-9]{11}", ("bvn", "verification"),
     lambda m: True),
    ("a national identification number", r"nin|national[ \t]+identification[ \t]+number", r"[0-9]{11}",
     ("nin", "identification"), lambda m: True),
    ("a national registration card number", r"nrc(?:[ \t]+(?:number|no\.?))?|national[ \t]+registration[ \t]+card",
     r"[0-9]{6}/[0-9]{2}/[0-9]", ("nrc", "registration"), lambda m: True),
    # Kenya's KRA PIN, its tax number: a letter, nine digits, a letter ("KRA PIN ya Baba: A012345678Z")
    ("a tax number", r"kra[ \t]+pin(?:[ \t]+(?:number|no\.?))?", r"[ap][0-9]{9}[a-z]", ("kra",), lambda m: True),
    # Ontario's health card number (OHIP): ten digits, a version code after them
    ("a health card number", r"ohip(?:[ \t]+(?:number|no\.?|#|card))?|ontario[ \t]+health[ \t]+card(?:[ \t]+number)?",
     r"[0-9]{4}[ -]?[0-9]{3}[ -]?[0-9]{3}", ("ohip", "ontario"), lambda m: len(_digits(m["secret"])) == 10),
    # a cédula (Colombia, Ecuador, Venezuela, Costa Rica ...): no check digit python-stdnum knows, its name enough
    ("an identity card number", r"c[ée]dula(?:[ \t]+de[ \t]+(?:ciudadan[ií]a|identidad))?",
     r"[0-9]{1,3}(?:\.[0-9]{3}){2,3}|[0-9]{1,2}-[0-9]{3,4}-[0-9]{3,4}|[0-9]{6,11}", ("cédula", "cedula"),
     lambda m: len(_digits(m["secret"])) >= 6),
    ("a passport number", r"passport(?:[ \t_-]+(?:number|num|no\.?|#|nr\.?))?|reisepass(?:nummer)?|passeport"
     r"|旅券番号|パスポート番号|护照号码?|護照號碼?|여권[ \t]*번호",
     # (a digit in it, so that "passport for the flight: 548290173" does not take "flight" and stop)
     r"(?=[a-z]{0,8}[0-9])[a-z0-9]{6,9}", ("passport", "reisepass", "passeport", "旅券番号", "パスポート番号", "护照号",
                                          "護照號", "여권"),
     _passport),
    ("a driving licence number", r"driver'?s?[ \t]+licen[cs]e(?:[ \t]+(?:number|no\.?|#))?|driving[ \t]+licen[cs]e"
     r"(?:[ \t]+(?:number|no\.?|#))?|licen[cs]e[ \t]+number|f[üu]hrerschein(?:nummer)?",
     r"[a-z0-9][a-z0-9-]{4,19}",
     ("driver", "driving", "licen", "hrerschein"), _with_digits(3)),
)  # fmt: skip


# or an aside between a comma and a colon: "Sofie's passport, needed for the trip booking: C03R71K94"
_OR_A_CLAUSE = rf"(?:{CONNECTOR_OR_FIELD}|[ \t]*,[ \t](?:[^\n.!?;:=]|\.(?=\S)){{1,60}}?[ \t]*:[ \t]*)"


def _id_rules() -> tuple[Rule, ...]:
    rules = []
    for label, names, value, gate, check in _IDS:
        if isinstance(check, str):
            for valid in (True, False):
                checked = _stdnum_check(check, valid=valid)
                rules.append(_named(label, names, value, gate, checked, suspect=not valid, connector=_CONNECTOR_ABROAD))
            # a number its check passes, a clause after its name and a colon: "PESEL Adama w fixtures/klienci.csv
            # jest prawdziwy: 90031512348"
            rules.append(
                _named(
                    label, names, value, gate, _stdnum_check(check, valid=True), connector=_AFTER_A_CLAUSE, filler=""
                )
            )
        else:  # the value's digits are the check's to count: its sieve cannot ask for one
            rules.append(_named(label, names, value, gate, check, any_value=True, connector=_OR_A_CLAUSE))
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
_AFTER_A_CLAUSE = r"[ \t](?:[^\n.!?;:=]|\.(?=\S)){1,60}?[ \t]*:[ \t]*"  # within the sentence ("klienci.csv")
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


# An organisation's number, named as such: "Codice fiscale della parrocchia (ente, pubblicato sul sito)", "the charity's
# tax id": a public registration, nobody's personal number.
_AN_ORGANISATION = re.compile(
    r"\b(?:ente|parrocchia|associazione|azienda|societ[àa]|company|charity|organi[sz]ation|association|asociaci[óo]n"
    r"|empresa|fundaci[óo]n|church|iglesia|chiesa|parish|club|verein|stiftung|gmbh|ltd|inc|llc|onlus|ngo|ong)\b",
    re.IGNORECASE,
)


def _an_id(m: re.Match[str], *, valid: bool) -> bool:
    value = m["secret"].upper()
    if len(_digits(value)) < 6 or _A_TIN.match(m["keep"]) or _AN_ORGANISATION.search(m["keep"]):
        return False
    compact = "".join(c for c in value if c.isalnum())
    passes = _varied(value) and any(_valid(module, compact) or _valid(module, value) for module in _PERSONAL_IDS)
    return passes is valid


def _a_valid_id(m: re.Match[str]) -> bool:
    return _an_id(m, valid=True)


def _an_invalid_id(m: re.Match[str]) -> bool:
    return _an_id(m, valid=False)


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

# A US Medicare number (MBI), named: eleven characters in the shape CMS fixed, letters but S, L, O, I, B and Z, perhaps
# as 4-3-4 ("4TN7-PK2-RX58"); not CMS's own example, 1EG4-TE5-MK73.
_MBI_LETTER = "AC-HJKMNP-RT-Y"
_MBI = re.compile(rf"[1-9][{_MBI_LETTER}][{_MBI_LETTER}0-9][0-9]-?[{_MBI_LETTER}][{_MBI_LETTER}0-9][0-9]-?"
                  rf"[{_MBI_LETTER}]{{2}}[0-9]{{2}}")  # fmt: skip


def _mbi(m: re.Match[str]) -> bool:
    value = m["secret"].upper()
    return _MBI.fullmatch(value) is not None and value.replace("-", "") != "1EG4TE5MK73"


MEDICARE = _named(
    "a Medicare number",
    r"medicare(?:[ \t]+(?:beneficiary[ \t]+identifier|number|no\.?|id|card(?:[ \t]+number)?|mbi))?|mbi",
    r"\d[a-z][a-z0-9]\d-?[a-z][a-z0-9]\d-?[a-z]{2}\d{2}",
    ("medicare", "mbi"),
    _mbi,
)

IDS: tuple[Rule, ...] = (
    # a National Insurance number named as one whose prefix HMRC never issues: a typo'd real one, or an example, held
    _named(
        "a National Insurance number",
        r"national[ \t]+insurance(?:[ \t]+(?:number|no\.?))?|nino|ni[ \t]+(?:number|no\.?)",
        r"[a-z]{2}[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[a-d]",
        ("insurance", "nino", "ni"),
        lambda m: not _nino(m) and not talked_about(m.string, m.start(), m.end()),
        suspect=True,
        any_value=True,
    ),
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
    MEDICARE,
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
)
