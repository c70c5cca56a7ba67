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

The families live in modules of their own (`cards`, `codes`, `recovery`, `ids`, `banking`; `named` has what they
share); `NUMBERS` here holds their rules in the order they are tried.
"""

from __future__ import annotations

from ..rules import Rule
from .banking import BANKING
from .cards import CARDS
from .codes import (
    ACTIVATION,
    BLIK,
    CJK_PIN,
    CODE_IS_THE,
    CODE_NAMED_FAR,
    CODE_SAID_LATER,
    CODES,
    CODES_ABROAD,
    CODES_BY_WHO,
    COUNTED_CODE,
    DIAL,
    DISARM_WITH,
    GIFT_CARD,
    GROUPED_CODE,
    JSON_CODE,
    KEYED_CODE,
    LETTER_DIAL,
    LOCKS,
    LOCKS_ABROAD,
    PUSH_BUTTON,
    RECEIVED_CODE,
    SENT_CODE,
    SET_CODE,
    SPELLED_CODE,
    TYPED_CODE,
    UNLOCKS_WITH,
    VOUCHER,
)
from .ids import IDS
from .recovery import BITLOCKER, RECOVERY, RECOVERY_PHRASE, SEED_PHRASE, TOTP_SEED

NUMBERS: tuple[Rule, ...] = (
    *CARDS,
    CODES,
    CODES_ABROAD,
    TYPED_CODE,
    KEYED_CODE,
    SENT_CODE,
    RECEIVED_CODE,
    SET_CODE,
    JSON_CODE,
    GIFT_CARD,
    VOUCHER,
    BLIK,
    SPELLED_CODE,
    ACTIVATION,
    GROUPED_CODE,
    COUNTED_CODE,
    DIAL,
    LETTER_DIAL,
    DISARM_WITH,
    CODE_IS_THE,
    CODE_SAID_LATER,
    CODES_BY_WHO,
    CODE_NAMED_FAR,
    LOCKS,
    LOCKS_ABROAD,
    PUSH_BUTTON,
    UNLOCKS_WITH,
    CJK_PIN,
    RECOVERY,
    TOTP_SEED,
    BITLOCKER,
    SEED_PHRASE,
    RECOVERY_PHRASE,
    *IDS,
    *BANKING,
)
