"""Bank details: IBANs (a business's to be paid is stored, a person's held), US routing and account numbers
(either alone held, both together refused)."""

from __future__ import annotations

import dataclasses
import re

from ..rules import Rule
from ..shapes import talked_about
from .named import _digits, _named, _starts_apart, _valid


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
    r"|faktur\w*|dostawc\w*|gmbh|ltd|llc|inc|plc|sarl|s\.?a\.?s|b\.?v|s\.?l|s\.?r\.?l|sp\.[ \t]?z[ \t]?o\.?o"
    # a payment's reference, as a payee asks for one: "reference INV-0932", "Verwendungszweck", "causale"
    r"|(?:payment[ \t]+)?reference|verwendungszweck|r[ée]f[ée]rence|referencia|riferimento|causale|betalingskenmerk)\b",
    re.I,
)
_OWN = re.compile(
    r"\b(?:my|our|mein\w*|unser\w*|mon|ma|mes|notre|nos|mi|mis|nuestr\w*|meu|minha|nosso|nossa|mijn|onze|m[óo]j"
    r"|moje|moim|nasz\w*|mio|mia)[ \t]+(?:[\w-]+[ \t]+){0,2}?(?:iban|rib|account|konto|compte|cuenta|conta|conto"
    r"|rekening|rachunek)\b|\b(?:balance|saldo|solde|kontostand|pin|password|passwor[dt]|mot[ \t]+de[ \t]+passe"
    r"|contrase[ñn]a|senha|login|log[ \t]+in|online[ \t-]?banking|tan|card|karte|carte|tarjeta|cart[ãa]o)\b",
    re.I,
)


# A company by its legal form, as it writes it (in capitals where a lower-case word would be a common one: "as", "ab")
_COMPANY = re.compile(
    r"\b(?:ApS|A/S|AB|AS|ASA|Oy|Oyj|AG|KG|SE|NV|N\.V\.|BVBA|SA|S\.A\.|SAS|SpA|S\.p\.A\.|Srl|Lda|Kft"
    r"|s\.r\.o\.|Pty|LLP|UG|GbR|e\.K\.)(?![\w/])"
)


def _a_payees(m: re.Match[str]) -> bool:
    """Whether the IBAN `m` found is a business's to be paid: an invoice, a supplier or a company named, nothing of
    an account of one's own."""
    named = _PAYEE.search(m.string) is not None or _COMPANY.search(m.string) is not None
    return named and _OWN.search(m.string) is None


def _account(m: re.Match[str]) -> bool:
    return len(set(_digits(m["secret"]))) > 2 and _A_CUSTOMERS.search(m.string) is None


# A customer's number with a supplier, quoted to it, which pays nothing out: "Our account number at Wren Trade is
# 100482; quote it on every order"
_A_CUSTOMERS = re.compile(
    r"\bquote[ \t]+(?:it|this|that|the[ \t]+number)\b|\b(?:customer|trade|supplier|loyalty|member(?:ship)?|rewards?"
    r"|utility|energy|council[ \t]+tax)[ \t]+account\b",
    re.I,
)


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


BANKING: tuple[Rule, ...] = (
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
