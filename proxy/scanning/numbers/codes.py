"""PINs, door codes and lock combinations: the digits after the words that name one (in English, in other
languages, in Chinese, Japanese and Korean), typed on a keypad, or said of the lock they open."""

from __future__ import annotations

import dataclasses
import re

from ..rules import Rule
from ..shapes import placeholder
from .cards import beside_a_test_card
from .named import _CONNECTOR, _END, _named, _not_a_count, bounded

_CODE_NAMES = (
    r"pin(?:[ \t-]*(?:codes?|numbers?|no\.?|#))?|puk(?:[ \t]*(?:codes?|numbers?))?|cvv2?|cvc2?|csc"
    r"|card[ \t]+security[ \t]+code|security[ \t]+code|wps[ \t]+pin"
    # what a phone or a tablet unlocks with: "phone unlock is 160392"
    r"|(?:phone|screen|tablet|ipad|iphone|laptop)[ \t]+(?:unlock|lock)(?:[ \t]+(?:code|pin|number))?"
    # what mobile money calls its PIN: "Airtel Money secret number 8-4-2-0"
    r"|secret[ \t]+(?:number|pin)"
    r"|passcode|(?:zoom[ \t]+)?host[ \t]+key|keypad(?:[ \t]+code)?|(?:door|gate|entry|entrance|alarm|access"
    r"|garage|buzzer|lockbox|lock[ \t]?box|barrier|car[ \t]+park|carpark|parking[ \t]+barrier"
    r"|unlock|intercom|building|parking|storage|safe|locker|padlock|lock|cabinet|cupboard"
    r"|defib(?:rillator)?(?:[ \t]+(?:cabinet|box))?"
    # codes that let someone take a child, void a sale, collect a parcel or silence an alarm
    r"|pick-?up|collection|manager|supervisor|override|till|disarm|arming|duress|panic|wps)"
    r"(?:[ \t]+(?:arming|disarm(?:ing)?|opener"
    r"|remote|entry|access|keypad|panel|door|gate|unlock|security))?[ \t]+codes?"
    r"|(?:lock|locker|padlock|safe|bike[ \t]+lock)?[ \t]*"
    r"combination|combo|(?:manager|supervisor|till|register|void)[ \t]+override(?:[ \t]+(?:code|pin))?"
    r"|code[ \t]+(?:for|to)[ \t]+the[ \t]+(?:front[ \t]+|back[ \t]+|main[ \t]+)?(?:door|gate|lockbox"
    r"|lock|safe|alarm|garage|building|keypad|house)"
    # "the safe with the printed exam papers in room 3.14 opens with 0-5-5-2-1" (a dot in a number is no sentence's end)
    r"|(?:safe|padlock|locker|lock)(?=(?:[^\n.]|\.\d){0,60}opens?[ \t]+with)(?:[^\n.]|\.\d){0,60}?"
)
_CODE_GATE = ("pin", "puk", "cvv", "cvc", "csc", "code", "keypad", "combination", "combo", "safe", "lock", "override",
              "host", "secret")  # fmt: skip
# The same in other languages: "Tür-Code", "Torcode", "code de la porte", "código de la puerta". A rule of its own, so
# that English text does not pay for these names in the pattern `CODES` runs.
_CODE_NAMES_ABROAD = (
    # a lock's combination, and Polish "kod do domofonu"
    r"(?:combinaison|combinazione|combinaci[óo]n|combina[çc][ãa]o|zahlenkombination|kombination|combinatie)"
    # "le digicode de l'immeuble", "code d'entrée", "Pincode van mijn bankpas", "PIN-Code meiner EC-Karte"
    r"|digicode|code[ \t]+d'(?:entr[ée]e|acc[èe]s|immeuble)|pincode|pin-?code|pin-?nummer|geheimzahl"
    # a parcel locker's pickup code: "Kod odbioru z Paczkomatu WAW22M: 482913", "Abholcode", "code de retrait"
    r"|kod[ \t]+odbioru(?:[ \t]+z[ \t]+\S+(?:[ \t]+[a-z0-9]{3,10})?)?|abhol-?code|code[ \t]+de[ \t]+retrait"
    r"|c[óo]digo[ \t]+de[ \t]+(?:recogida|retirada|retiro)|codice[ \t]+(?:di[ \t]+)?ritiro|ophaalcode"
    # a debit card named by its network, whose digits are its PIN: "Bancomat nuovo: 2955", "Multibanco: 4417"
    r"|bancomat(?:[ \t]+(?:nuovo|nuova|vecchio))?|multibanco|girocard"
    # a phone's unlock code, a card's security code: "code de déverrouillage", "código de desbloqueo", "Prüfnummer"
    r"|(?:code|c[óo]digo|codice|kod)[ \t]+(?:de[ \t]+|di[ \t]+|od?[ \t]+)?(?:d[ée]verrouillage|desbloqueo|desbloqueio"
    r"|sblocco|odblokowania|s[ée]curit[ée]|seguridad|seguran[çc]a|sicurezza|zabezpieczaj[ąa]cy)|entsperr-?code"
    r"|ontgrendel-?code|beveiligingscode|sicherheitscode|(?:karten)?pr[üu]fnummer|pr[üu]fziffer|cryptogramme"
    r"|kod[ \t]+(?:do|od)[ \t]+(?:domofonu|drzwi|bramy|klatki|sejfu|alarmu|furtki|garażu|garazu)(?:[ \t]+(?:na|w|przy)"
    r"[ \t]+\w+)?|"
    r"(?:t[üu]r|haust[üu]r|tor|garagen|alarm|tresor|porte|portail|puerta|portal|porta|port[ãa]o|deur|poort|kluis)"
    r"[ \t-]?(?:code|codes|pin|kod|c[óo]digo)|(?:code|c[óo]digo|codice)[ \t]+(?:(?:de[ \t]+la|du|de|del|da|do|della"
    r"|van[ \t]+het|van[ \t]+de|voor[ \t]+het|voor[ \t]+de)[ \t]+|de[ \t]+l'|dell')"
    # and a card's: "le code de la carte bleue", "el código de la tarjeta", "o código do cartão"
    r"(?:carte(?:[ \t]+(?:bleue|bancaire|de[ \t]+cr[ée]dit))?|tarjeta|carta|cart[ãa]o"
    r"|porte|portail|puerta|portal|porta|port[ãa]o|portone|alarme|alarma|allarme|cancello|citofono|garage|garaje"
    r"|immeuble|edificio|palazzo|casa|maison|alarm|deur|voordeur|poort|kluis|cofre|caja[ \t]+fuerte|cassaforte"
    r"|coffre(?:-fort)?|bo[îi]te[ \t]+(?:[àa]|aux)[ \t]+(?:cl[ée]s|lettres))"
    # where the lock is, in a word: "de code van het alarm thuis is 2604"
    r"(?:[ \t]+(?:thuis|beneden|boven|en[ \t]+casa|de[ \t]+casa|em[ \t]+casa|a[ \t]+casa|[àa][ \t]+la[ \t]+maison))?"
)
# Every name holds a word for "code" ("türcode", "código de la puerta", "codice") or for a combination, most of them
# words `CODES` is gated by too, with the same sieves (a digit after it on its line), searched once for both.
_ABROAD_GATE = ("code", "pin", "kod", "digo", "codice", "combina", "kombination", "geheimzahl", "fnummer", "fziffer",
                "cryptogramme", "bancomat", "multibanco", "girocard")  # fmt: skip

# The codes advice names as the ones never to choose: "not 1234", "keine 0000", "avoid 1111"
WEAK = frozenset({"0000", "1111", "1234", "12345", "123456", "4321", "9999", "1212", "6969", "2580"})
NEGATION = re.compile(
    r"\b(?:not|never|avoid|no|nicht|nie|niemals|kein\w*|pas|jamais|ni|nunca|nada|mai|niet|nooit|geen|nigdy)\W*$", re.I
)


def _a_code(m: re.Match[str]) -> bool:
    """Not a count said of the code, nor a weak code named as one not to choose, nor the number of the place whose
    code it is ("the door code for suite 210 changes on the 1st")."""
    if m["secret"].strip("#*") in WEAK and NEGATION.search(m["keep"][-24:]):
        return False
    if _A_PLACE.search(m["keep"][-16:]):
        return False
    if (word := _AN_IDENTIFIER.search(m["keep"][-24:])) and word[1].lower() not in _CODE_WORDS:
        return False  # the digits of an invoice's or a ticket's number: "invoice number INV-33817"
    if _CARD_CODE.search(m["keep"]) and beside_a_test_card(m.string):
        return False  # a published test card's CVC
    return _not_a_count(m)


_CARD_CODE = re.compile(r"(?:cvv2?|cvc2?|csc|security[ \t]+code)", re.I)
# A word joined to the digits by a dash, which makes them an identifier's unless the word names the code
_AN_IDENTIFIER = re.compile(r"(?:^|[ \t])([A-Za-z]{2,})-$")
_CODE_WORDS = frozenset({"pin", "code", "codes", "passcode", "combo", "combination", "keypad", "alarm", "door", "gate",
                         "safe", "lock", "padlock", "lockbox", "puk", "cvv", "cvc", "override"})  # fmt: skip
# A place named just before the digits, a space between: the digits are its number, not its code
_A_PLACE = re.compile(
    r"[ \t](?:suite|room|unit|flat|apartment|apt|office|floor|level|block|bay|dock|platform|lot|house|ward|bed|desk"
    r"|studio|cabin|chalet|pitch|plot|stall|kennel|pen|stable|building|hangar|berth|pontoon|slip)[ \t]+$",
    re.I,
)


CODES = _named(
    "a PIN or an access code",
    _CODE_NAMES,
    # digits, or digits around a letter as buildings number their doors ("31B47"), or a dial's turns
    # (or a keypad's digits with a hash or a star inside: "94#316#")
    r"[#*]?\d{3,8}[#*]?|\d{2,6}[#*]\d{2,6}[#*]?|\d{1,4}[a-z]\d{2,5}|\d{3,6}[a-z](?![a-z])|[a-z]\d{4,6}"
    r"|(?:left|right)[ \t]+\d{1,2}(?:[ \t]*,[ \t]*(?:left|right)[ \t]+\d{1,2}){2,3}"
    r"|\d{1,3}(?:(?:[ \t]*[-–.][ \t]*|[ \t]+)\d{1,3}){2,4}",
    _CODE_GATE,
    _a_code,
)
CODES_ABROAD = _named(
    "a PIN or an access code",
    _CODE_NAMES_ABROAD,
    r"[#*]?\d{3,8}[#*]?|\d{1,4}[a-z]\d{2,5}|\d{1,3}(?:(?:[ \t]*[-–.][ \t]*|[ \t]+)\d{1,3}){2,4}",
    _ABROAD_GATE,
    _not_a_count,
    # "kod do bramy to 9021", "Kod do furtki na osiedlu zmieniony na 1357*"
    connector=_CONNECTOR.replace("lautet|c'est", "lautet|c'est|jest|to|je|este|är|er")[:-1]
    + r"|[ \t]+zmienion[yae][ \t]+na[ \t]+)",
)

# The thing a code opens, named without the word "code": "the lockbox by the front door is 2468", "the padlock on the
# shed is set to 0722", "the alarm panel takes 1205". Four digits at least and a connector that says so (never a
# bare space: "gate 12", "door 3"), and only suspect: "the safe is 1970" may be a year.
_LOCKS = (
    r"(?:lock[ \t]?box|key[ \t]?safe|key[ \t]?box|padlock|combination[ \t]+lock|door[ \t]+(?:entry|access)"
    r"|entry[ \t]+system"
    r"|(?:[a-z]{2,12}|\d-digit)[ \t]+lock"  # "the fridge lock is 1158", "a 3-digit lock set to 471"
    r"|alarm(?:[ \t]+(?:panel|system|keypad))?|keypad|safe|locker|garage(?:[ \t]+door)?|front[ \t]+door|back[ \t]+door"
    r"|side[ \t]+door|(?:crew|staff|fire|entry|cellar|office|room|store|supply)[ \t]+door"
    r"|(?:back|side|rear|staff|main)[ \t]+entrance"
    r"|gate|intercom|buzzer|call[ \t]?box|lift|elevator|ascenseur|aufzug|ascensor|ascensore"
    r"|(?:car[ \t]+park[ \t]+)?barrier"
    r"|(?:key|medicine|drug|narcotics?|gun|filing)?[ \t]*(?:cabinet|cupboard)"
    r"|cash[ \t]+box|strong[ \t]?box|drawer"
    # and in German, French, Spanish, Italian and Dutch: "Schlüsselbox an der Ferienwohnung: 3815", "Tresor: 19-04-72"
    r"|schl[üu]ssel(?:box|kasten|tresor|safe)|tresor|zahlenschloss|spind|bo[îi]te[ \t]+[àa][ \t]+cl[ée]s"
    r"|coffre(?:-fort)?"
    r"|caja[ \t]+fuerte|cassaforte|kluis|sleutelkastje|cadenas|candado|lucchetto|cijferslot|fietsslot|hangslot"
    r"|codeslot)"
)
# "Garage phone is 0161 ...": the number to call a place on, not a code that opens it
_CALLED = re.compile(
    r"\b(?:phone|tel|telephone|fax|mobile|hotline|helpline|line|support|contact|call|whatsapp|number|nummer|num[ée]ro"
    r"|n[úu]mero)\b",
    re.I,
)
_LOCK_CONNECTOR = (
    # (or a colon and what to do: "Car park barrier behind the flats: dial *1470 then the green button")
    r"(?:[ \t]+(?:was[ \t]+)?(?:changed|set|reset)[ \t]+to[ \t]+|[ \t]*[:=][ \t]*"
    r"(?:(?:dial|press|enter|punch|tap|type|key[ \t]+in)[ \t]+)?"
    r"|[ \t]+(?:is|was)(?:[ \t]+(?:now|still))?(?:[ \t]+(?:set|changed|reset))?(?:[ \t]+to)?[ \t]+"
    r"|[ \t]+(?:takes|uses|accepts|wants|needs|(?:opens|unlocks|disarms|arms|(?:is[ \t]+)?(?:opened|unlocked|disarmed"
    r"|armed))[ \t]+(?:with|on))[ \t]+"
    # or a comma or a dash, before digits in a keypad's groups or with a star or a hash: "key box, 2-9-0-6", "- 1473*"
    r"|[ \t]*(?:,|[ \t][–—-])[ \t]*(?=[#*]?[0-9]{1,2}(?:[ \t]*[-–.][ \t]*[0-9]{1,2}){2,5}|[0-9]{4,8}[#*]|[#*][0-9])"
    # or a space, before a keypad's digits one by one: "back door, alarm 5 5 0 3, cat must stay in"
    r"|[ \t]+(?=[0-9](?:[ \t][0-9]){3,7}[ \t]*(?:[,.;)]|$)))"
    # "Our house alarm: code 5160", "the lockbox is PIN 2468"
    r"(?:(?:the[ \t]+)?(?:code|pin|combo|combination|number)(?:[ \t]+is)?[ \t]*[:=#]?[ \t]*)?"
    # "a small padlock, the numbers are 4-4-1-7", "die Schlüsselbox ... hat den Code 7340"
    r"|[ \t]*,?[ \t]+the[ \t]+(?:numbers|digits|code|combination)[ \t]+(?:are|is)[ \t]+"
    # "Keysafe outside the holiday flat on Rue Bonaparte, code 0 3 1 9": a comma, then the code named
    r"|[ \t]*(?:,|[ \t][–—-])[ \t]*(?:the[ \t]+)?(?:code|pin|combo|combination)(?:[ \t]+is)?[ \t]*[:=#]?[ \t]*"
    r"|[ \t]+(?:hat|has)[ \t]+(?:den|die|the)[ \t]+(?:code|pin|kombination|combination)[ \t]+"
    r"|[ \t]+(?:staat|zit|is[ \t]+ingesteld)[ \t]+op[ \t]+"  # "het cijferslot van de schuur staat op 1958"
)
# Four digits at least, or a combination's numbers apart ("23-11-47"); ASCII digits, as `min_digits` counts them.
_CODE_VALUE = (
    r"[#*]?[0-9]{4,8}[#*]?|[0-9]{1,2}(?:[ \t]*[-–.,][ \t]*[0-9]{1,2}){2,5}|[0-9]{1,2}(?:[ \t]+[0-9]{1,2}){3,5}"
)
# and, for a lock named first, its keys said one by one, star and hash too: "keypad: star, 9, 2, 4, 0, hash"
_LOCK_VALUE = (
    _CODE_VALUE
    # (or a letter first, as key safes have: "key safe: C 4 1 8")
    + r"|[a-z][ \t]?[0-9](?:[ \t][0-9]){2,5}(?![ \t]*[0-9])"
    + r"|(?:star|hash)[ \t]*,?[ \t]*[0-9](?:[ \t]*,[ \t]*[0-9]){3,7}(?:[ \t]*,?[ \t]*(?:hash|star))?"
)
_LOCK_GATE = ("lock", "padlock", "keybox", "keysafe", "safe", "alarm", "keypad", "garage", "door", "gate", "intercom",
              "buzzer", "box", "entrance", "cabinet", "cupboard", "drawer", "barrier", "schlüssel", "schlussel",
              "tresor",
              "zahlenschloss",
              "spind", "boîte", "boite", "coffre", "caja", "cassaforte", "kluis", "sleutelkastje", "cadenas", "candado",
              "lucchetto", "cijferslot", "fietsslot", "hangslot", "codeslot")  # fmt: skip
# Each lock word where it starts a word ("gate", not "aggregate"; "lock", not "block"), and a digit after it on its
# line. The lookbehinds come after the word, so that the sieve still starts with it (found fast).
_LOCK_SIEVES = tuple(
    (word, re.escape(word) + r"[^\n]{0,400}?\d" if word in _CODE_GATE  # `CODES`' own sieve: searched once for both
     else rf"{word}(?:(?<=[^a-z]{word})|(?<=^{word}))[^\n]{{0,400}}?\d")
    for word in _LOCK_GATE
)  # fmt: skip
# a landline as it is written ("02 40 89 12 34", "0113 245 7788"): a garage's phone, not its door's code
LANDLINE = re.compile(r"0\d{1,4}[ -]\d{3,4}[ -]\d{3,4}|0\d(?:[ .]\d\d){4}")
LOCKS = dataclasses.replace(
    _named(
        "a PIN or an access code",
        _LOCKS,
        _LOCK_VALUE,
        _LOCK_GATE,
        lambda m: _not_a_count(m) and _CALLED.search(m["keep"]) is None and not LANDLINE.fullmatch(m["secret"]),
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

# A code a keypad takes, by its star and hash, with no lock named: "press *3381# and wait for the double beep". Four
# digits at least, and not "dial": "dial *100# for your balance" is a network's service code.
_STAR_HASH_GATE = ("punch", "enter", "type", "tap", "press", "key")
KEYED_CODE = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:punch|enter|type|tap|press|key)(?:[ \t]+in)?[ \t]+)"
        r"(?P<secret>[*#][0-9]{4,8}#|[0-9]{4,8}#)(?![\w#*])",
        re.I,
    ),
    gate=_STAR_HASH_GATE,
    sieves=tuple((word, word + r"(?:[ \t]{1,8}in)?[ \t]{1,8}[*#]?[0-9]{4}") for word in _STAR_HASH_GATE),
    min_digits=4,
    suspect=True,
)

# A one-time code as it arrives: "the pharmacy just texted 482913 to confirm", "Revolut sent me the code 739 204".
# Six digits (or two groups of three), after "texted", or after "sent" with whom to or the word "code"; a round
# number ("sent 250 000") is an amount. Suspect: a code that has expired is harmless, one that has not is not.
_SENT_CODE = (
    r"(?P<keep>(?<![a-z])(?:(?:texted|sms'?e?d)(?:[ \t]+(?:me|us|her|him|them|you|mum|mom|dad|mam|gran|grandma|grandpa"
    r"|nan|nana))?(?:[ \t]+(?:the|a|my|her|his|our"
    r"|your)(?:[ \t]+[a-z-]+)?[ \t]+(?:code|pin|otp|passcode))?|(?:sent|messaged)(?:[ \t]+(?:me|us|her|him|them|you))?"
    r"(?:[ \t]+(?:the|a|my|her|his|our|your))?(?:[ \t]+[a-z-]+)?[ \t]+(?:code|pin|otp|passcode)"
    # or what an app or a bank sent, the digits straight after: "WhatsApp sent 318 042"
    r"|(?:whatsapp|telegram|signal|google|apple|paypal|revolut|monzo|the[ \t]+bank|my[ \t]+bank)[ \t]+(?:just[ \t]+)?"
    r"(?:sent|texted)(?:[ \t]+(?:me|us|her|him))?|(?:sms|text|code)[ \t]+(?:just[ \t]+)?(?:came[ \t]+in|arrived))"
    r"[ \t]*[:—–,-]?[ \t]+)"
    r"(?P<secret>[0-9]{3}[ \t-]?[0-9]{3}|[a-z]-[0-9]{6})(?![ \t]*(?:\d|[.,]\d))"
)
_SENT_GATE = ("texted", "sms", "sent", "messaged", "came", "arrived")
SENT_CODE = Rule(
    "a one-time code",
    bounded(_SENT_CODE + _END, re.I),
    lambda m: not m["secret"].endswith("000") and _not_a_count(m),
    gate=_SENT_GATE,
    sieves=tuple((word, word + r"[^\n]{0,60}?\d{3}") for word in _SENT_GATE),
    min_digits=6,
    suspect=True,
)

# A one-time code as the message gives it, the code first: "582 019 is your verification code. Never share it.",
# "G-582019 is your Google code", "428913 es tu código de WhatsApp"
RECEIVED_CODE = Rule(
    "a one-time code",
    bounded(
        r"(?P<keep>)(?P<secret>(?<![\w-])(?:[a-z]-)?[0-9]{3}[ \t-]?[0-9]{3}|(?<![\w-])[0-9]{4,8})"
        r"(?=[ \t]+(?:is|es|est|ist|è|é|to)[ \t]+(?:your|tu|su|votre|ton|ihr|dein|il[ \t]+tuo|o[ \t]+seu|seu|uw|jouw"
        r"|tw[oó]j)\b[^\n.]{0,40}?\b(?:codes?|c[óo]digo|codice|otp|pin|tan|kod)\b)",
        re.I,
    ),
    lambda m: not m["secret"].endswith("000") and not placeholder(m["secret"]),
    gate=("code", "códig", "codig", "codice", "otp", "pin", "tan", "kod"),
    min_digits=4,
    suspect=True,
)

# A lock set to a code, the verb first: "I set the room safe to 1 9 0 8", "changed the padlock to 0722"; or a
# factory code changed to one.
SET_CODE = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:set|changed|reset)[ \t]+(?:the|my|our|his|her|their)[ \t]+(?:(?:[a-z]+[ \t]+){0,2}?"
        + _LOCKS
        # or from the factory's code: "Orange voicemail: changed the default 0000 to 9021"
        + r"|(?:default|factory|old|original)(?:[ \t]+(?:pin|code|passcode))?[ \t]+(?:from[ \t]+)?[0-9]{4,8})"
        + r"[ \t]+to[ \t]+)(?P<secret>"
        + _CODE_VALUE
        + ")"
        + _END,
        re.I,
    ),
    _not_a_count,
    gate=("set", "changed", "reset"),
    sieves=tuple((word, word + r"[ \t][^\n]{0,400}?[ \t]to[ \t]{1,8}[#*]?\d") for word in ("set", "changed", "reset")),
    min_digits=3,
    suspect=True,
)

# A code in JSON or YAML under a key naming what it opens: {"gate": "1966", "padlock": "0714"}, pin: "4821". Not a
# postcode, an area code, a country's or a status code.
_JSON_LOCKS = (
    r"pin|passcode|padlock|lock|gate|door|alarm|safe|locker|keypad|combination|combo|lockbox|keybox|door_?code"
    r"|key_?safe|disarm"  # {"alarm_disarm": "5508", "keysafe": "1440"}
    r"|cvc2?|cvv2?|csc|security_?code"  # a card's security code: {"card": "...", "cvc": "087"}
    r"|(?:master|installer|admin|access|entry|duress|arming|user)_?(?:code|pin)"  # {"master_code": "580261"}
)
JSON_CODE = Rule(
    "a PIN or an access code",
    re.compile(
        r"(?P<keep>[\"']?(?<![a-z])(?!(?:zip|post(?:al)?|area|country|status|error|http|promo|discount)[_ -]?code)"
        r"(?:[a-z]+[_ -])?(?:" + _JSON_LOCKS + r")(?:[_ -]?(?:code|disarm|pin))?[\"']?[ \t]*:[ \t]*[\"'])"
        r"(?P<secret>[#*]?[0-9]{3,8}[#*]?|[0-9]{1,2}(?:-[0-9]{1,2}){2,5})(?=[\"'])",
        re.I,
    ),
    gate=(":",),
    sieves=((":", r":[ \t]*[\"'][#*]?[0-9]"),),
    min_digits=3,
    suspect=True,
)

# A gift card's code not yet redeemed: whoever reads it spends it ("Amazon gift card, not redeemed: AQ7K-9XTB2-MRL4P")
GIFT_CARD = _named(
    "a gift card code",
    r"gift[ \t-]?cards?(?:[ \t]+(?:code|number|pin|claim[ \t]+code))?|claim[ \t]+code|carte[ \t]+cadeau"
    r"|tarjeta[ \t]+regalo"
    r"|gutschein(?:code)?|buono[ \t]+regalo|cadeaukaart",
    r"[a-z0-9]{4,6}(?:[ -][a-z0-9]{4,6}){2,4}|[a-z0-9]{12,20}",  # in groups, or run together: "7V7ZBKFNUY27QJE3"
    ("gift", "claim", "cadeau", "regalo", "gutschein"),
    lambda m: sum(c.isdigit() for c in m["secret"]) >= 2 and any(c.isalpha() for c in m["secret"]),
    suspect=True,
    connector=r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|code|number)[ \t]*:?[ \t]+|[^\n:]{0,40}:[ \t]*)",
    any_value=True,
)

# A code spelled out, keyed in: "hold the fob and punch two-nine-seven-seven"
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_DIGIT_GAP = r"(?:[ \t]*[-,][ \t]*|[ \t]+)"
_KEY_SIGN = r"(?:star|hash|pound)"  # a keypad's "*" and "#", said
_KEYED_GATE = ("punch", "enter", "type", "key", "dial", "tap", "press", "unlock", "code", "pin", "combination", "combo")
SPELLED_CODE = Rule(
    "a PIN or an access code",
    bounded(
        rf"(?P<keep>(?<![a-z])(?:(?:punch|enter|type|key|dial|tap|press)(?:[ \t]+in)?"
        # or named: "unlock is seven two seven two", "the code's four four one nine"
        rf"|(?:unlock|code|pin|passcode|combination|combo|keypad)(?:[ \t]+(?:is|was)|'s|[ \t]*:)){_DIGIT_GAP})"
        rf"(?P<secret>(?:{_KEY_SIGN}{_DIGIT_GAP})?{_DIGIT_WORD}(?:{_DIGIT_GAP}{_DIGIT_WORD}){{3,7}}"
        rf"(?:{_DIGIT_GAP}{_KEY_SIGN})?)"
        r"(?![a-z])",
        re.I,
    ),
    gate=_KEYED_GATE,
    sieves=tuple((w, w + r"[^\n]*?(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)") for w in _KEYED_GATE),
    suspect=True,
)
_A_COUNT_AFTER = re.compile(r"[ \t]*(?:days?|weeks?|digits?|characters?)\b", re.I)
# An activation code by post or by mail: "Tax office portal PIN letter arrived: activation code G7K 2LP 9QX"
ACTIVATION = _named(
    "an activation code",
    r"activation[ \t]+(?:code|key|pin)|pin[ \t]+letter|aktivierungs(?:code|schl[üu]ssel)|code[ \t]+d'activation"
    r"|c[óo]digo[ \t]+de[ \t]+activaci[óo]n",
    r"[a-z0-9]{3,6}(?:[ -][a-z0-9]{3,6}){1,5}|[a-z0-9]{6,16}",
    ("activation", "letter", "aktivierung", "activaci"),
    lambda m: sum(c.isdigit() for c in m["secret"]) >= 2 and not _A_COUNT_AFTER.match(m.string, m.end("secret")),
    suspect=True,
    any_value=True,
)

# A generated code in groups, named as what lets someone in: "the access code to share with the bank is
# V-7KQ4-H29M-X3TD". Capitals and digits only, as generated codes are ("Spring-Sale-2024" is words); only suspect.
_GROUPED_GATE = ("access", "share", "sharing", "unlock", "login", "sign", "auth", "enrol", "registration", "pairing",
                 "invit", "setup", "device")  # fmt: skip
_LETTER_GROUPS = re.compile(r"[A-Z]{4}(?:-[A-Z]{4}){2,3}")
GROUPED_CODE = _named(
    "an access code",
    r"(?:access|share|sharing|unlock|login|sign-?in|authori[sz]ation|authentication|auth|enrol?ment|registration"
    r"|pairing|invit(?:e|ation)|setup|device)[ \t]+(?:code|key|pin)",
    # in groups, or six to twelve run together ("Companies House authentication code ...: 7HK2QX")
    r"(?=[a-z-]{0,40}[0-9]|[a-z]{4}(?:-[a-z]{4}){2})(?:[a-z0-9]{1,6}(?:-[a-z0-9]{3,6}){2,6}|[a-z0-9]{6,12})",
    _GROUPED_GATE,
    # (or six to eight digits: "Bandcamp just sent the login code to the merch phone: 662019")
    # (or capitals alone in three groups of four at least, as a card reader's device code is: "MKTQ-ZFLR-PWXD")
    lambda m: (
        m["secret"] == m["secret"].upper()
        and sum(c.isdigit() for c in m["secret"]) >= 2
        and (sum(c.isalpha() for c in m["secret"]) >= 2 or (m["secret"].isdigit() and len(m["secret"]) <= 8))
        or _LETTER_GROUPS.fullmatch(m["secret"]) is not None
    ),
    suspect=True,
    any_value=True,
)

# A push-button lock's code, pressed a button or two at a time: "push-button lock: press 3 and 5 together, then 1,
# then 4". Three presses at least, after a word for what it opens; only suspect.
_PRESS = r"\d(?:[ \t]+(?:and|&|\+)[ \t]+\d)*(?:[ \t]+together)?"
PUSH_BUTTON = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:lock|door|keypad|gate|safe|box|locker|cabinet)\b[^.\n]{0,40}?\b(?:press|push|punch)"
        rf"[ \t]+)(?P<secret>{_PRESS}(?:[ \t]*,[ \t]*(?:then[ \t]+)?{_PRESS}){{2,6}})(?![0-9])",
        re.I,
    ),
    gate=("press", "push", "punch"),
    suspect=True,
)

# A BLIK code, Poland's six digits that pay once: "kod BLIK 672918, wpisz go na Allegro"
BLIK = Rule(
    "a one-time code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:kod(?:u|em)?[ \t]+blik|blik(?:[ \t]+(?:code|kod))?)[ \t]*[:=-]?[ \t]*)"
        r"(?P<secret>[0-9]{3}[ ]?[0-9]{3})(?![0-9])",
        re.I,
    ),
    gate=("blik",),
    min_digits=6,
    suspect=True,
)
# A top-up or airtime voucher's PIN, unscratched: "Unused Lycamobile top-up voucher ...: 8842 1190 5567 3"
VOUCHER = _named(
    "a voucher PIN",
    r"(?:top-?up|recharge|airtime|prepaid|scratch)[ \t]+(?:voucher|card|pin|code)(?:[ \t]+(?:pin|code|number))?",
    r"[0-9]{4}(?:[ -]?[0-9]{1,4}){2,4}",
    ("top-up", "topup", "recharge", "airtime", "prepaid", "scratch"),
    lambda m: sum(c.isdigit() for c in m["secret"]) >= 10,
    suspect=True,
    connector=r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|code|number)[ \t]*:?[ \t]+|[^\n:]{0,60}:[ \t]*)",
)

# A lock or a code that says how many digits it takes, then that many: "a 3-digit lock set to 471", "the 4-digit code
# for the shed is 0722". Three digits are a code here: the text counted them.
COUNTED_CODE = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![\w-])(?P<digits>[3-8])[ \t-](?:digit|number)s?[ \t]+(?:[a-z]{1,20}[ \t]+)?"
        r"(?:lock|padlock|combination|combo|code|pin|passcode|keypad)(?![a-z])[^\n.;:]{0,60}?"
        r"(?:[ \t]+(?:is|was)(?:[ \t]+(?:now|still))?(?:[ \t]+(?:set|changed|reset))?(?:[ \t]+to)?"
        r"|[ \t]+(?:set|changed|reset)[ \t]+to|[ \t]*[:=])[ \t]+)"
        r"(?P<secret>[0-9]{3,8})" + _END,
        re.I,
    ),
    lambda m: len(m["secret"]) == int(m["digits"]) and _not_a_count(m),
    gate=("digit", "number"),
    sieves=(("digit", r"digit[^\n]{0,120}?[0-9]{3}"), ("number", r"number[^\n]{0,120}?[0-9]{3}")),
    min_digits=3,
    suspect=True,
)

# What a code does, then the code: "Animal facility alarm after 10pm: disarm with 2086 then OFF"; or the code, then
# what it is: "2087 is the duress code".
_DOES_GATE = ("disarm", "unset", "unlock")
DISARM_WITH = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:disarm|unset|unlock)(?:s|ed)?(?:[ \t]+(?:it|the[ \t]+\w+))?[ \t]+(?:with|using)[ \t]+"
        r"(?:(?:the[ \t]+)?(?:code|pin)[ \t]+)?)(?P<secret>[#*]?[0-9]{4,8}[#*]?)" + _END,
        re.I,
    ),
    _not_a_count,
    gate=_DOES_GATE,
    sieves=tuple((word, word + r"[^\n]{0,60}?[0-9]{4}") for word in _DOES_GATE),
    min_digits=4,
    suspect=True,
)
_IS_THE_GATE = ("duress", "panic", "alarm", "door", "gate", "master", "disarm", "entry", "garage", "keypad", "lockbox",
                "safe", "padlock")  # fmt: skip
CODE_IS_THE = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>)(?P<secret>(?<![\w#*-])[#*]?[0-9]{4,8}[#*]?)(?=[ \t]+is[ \t]+(?:the|our|my)[ \t]+(?:[a-z]+[ \t]+)?"
        r"(?:duress|panic|alarm|door|gate|master|disarm|entry|garage|keypad|lockbox|safe|padlock)[ \t]+(?:code|pin)\b)",
        re.I,
    ),
    _not_a_count,
    gate=_IS_THE_GATE,
    min_digits=4,
    suspect=True,
)
# A dial's turns as letters: "Controlled-substances safe (ketamine) combination: L 34, R 18, L 7"
_LETTER_GATE = ("combination", "combo", "dial", "safe")
LETTER_DIAL = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?i:combination|combo|dial|safe)[^\n\d]{0,60}?[ \t]*)"
        r"(?P<secret>(?<![A-Za-z])[LR][ \t]?[0-9]{1,2}(?:[ \t]*[,;–-][ \t]*[LR][ \t]?[0-9]{1,2}){2,5})(?![0-9])"
    ),
    lambda m: "L" in m["secret"] and "R" in m["secret"],
    gate=_LETTER_GATE,
    min_digits=3,
    suspect=True,
)

# A dial's combination as its turns, with nothing naming it: "right to 32, left past zero to 14, right to 7", or "27
# left, 4 right, 33 left". Three turns at least, both ways, with a dial's words between a turn and its number (never
# "exit" or "junction"). In Italian, Spanish, French, German, Portuguese, Dutch and Polish too: "destra 32, sinistra 17,
# destra 8".
_WAYS = (
    r"right|left|clockwise|counter-?clockwise|anti-?clockwise|destra|sinistra|derecha|izquierda|droite|gauche|rechts"
    r"|links|direita|esquerda|w[ \t]+prawo|w[ \t]+lewo"
)
_TURN = (
    rf"(?:{_WAYS})"
    r"(?:[ \t]+(?:to|(?:past|passing)(?:[ \t]+[0-9]{1,2}(?=[ \t]+to))?|twice|once|(?:two|three|four|[2-4])[ \t]+times"
    r"|full|turns?|zero|it|stop(?:ping)?|at|on)){0,4}"  # "left past 42 to 17"
    r"[ \t]+[0-9]{1,2}(?:[ \t]+(?:once|twice|times))?"
)
_WAY_GATE = (
    "right", "left", "clockwise", "destra", "sinistra", "derecha", "izquierda", "droite", "gauche", "rechts", "links",
    "direita", "esquerda", "prawo", "lewo",
)  # fmt: skip
_NUMBER_TURN = rf"[0-9]{{1,2}}[ \t]+(?:{_WAYS})\b"
DIAL = Rule(
    "a PIN or an access code",
    bounded(
        rf"(?P<keep>)(?P<secret>(?<![a-z]){_TURN}(?:[ \t]*[,;][ \t]*(?:then[ \t]+)?(?:turn[ \t]+)?{_TURN}){{2,5}}"
        rf"|(?<![0-9]){_NUMBER_TURN}(?:[ \t]*[,;][ \t]*(?:then[ \t]+)?{_NUMBER_TURN}){{2,5}})",
        re.I,
    ),
    lambda m: len({turn[:4] for turn in re.findall(_WAYS, m["secret"].lower())}) > 1,
    gate=_WAY_GATE,
    sieves=tuple((word, word + r"[^\n]{0,80}?\d") for word in _WAY_GATE),
    min_digits=3,
    suspect=True,
)

# A lock named in another language, then what it does with the code: "la alarma se desactiva con 7-3-9-1", "le coffre
# s'ouvre avec 2280", "l'allarme si disattiva con 4410", "o alarme desliga com 1234", "de kluis gaat open met 5519",
# "die Alarmanlage wird mit 4711 deaktiviert". The verb says the digits are the code: refused.
_LOCKS_ABROAD = (
    r"(?:alarma|alarme|allarme|alarm(?:anlage)?|caja[ \t]+fuerte|cofre|cassaforte|coffre(?:-fort)?|tresor|safe|kluis"
    r"|candado|cadenas|lucchetto|cadeado|hangslot|vorh[äa]ngeschloss|schloss|puerta|porte|porta|portail|portal"
    r"|port[ãa]o|port[óo]n|portone|cancello|deur|poort|(?:[a-zäöü]{3,12})?(?:t[üu]r|tor)|garaje|garagem|garage)"
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
        rf"|entsperrt|aufgeschlossen|ausgeschaltet|auf)\b)))(?P<secret>{_CODE_VALUE}){_END}",
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
    r"|オートロック(?:の番号)?|キーボックス(?:の番号)?|金庫の番号"
    r"|비밀번호|핀[ \t]*번호|ワンタイム(?:コード|パスワード)|認証コード|確認コード|验证码|驗證碼|인증[ \t]*번호",
    r"\d{4,8}",
    (
        "密码",
        "密碼",
        "口令",
        "暗証番号",
        "パスワード",
        "パスコード",
        "비밀번호",
        "번호",
        "オートロック",
        "キーボックス",
        "金庫",
        "ワンタイム",
        "認証コード",
        "確認コード",
        "验证码",
        "驗證碼",
        "인증",
    ),
    _not_a_count,
    # (or after what it is for: "暗証番号：利用者証明用は3958")
    connector=r"[ \t]*(?:是|为|為|は|が|는|은|[:=：])?[ \t]*"
    r"(?:[\u3040-\u30ff\u3400-\u9fffA-Za-z]{1,12}(?:は|是|为|が|[:：]))?[ \t]*",
)


# What a lock, a phone or a room opens with, in digits: "Sofia's phone unlocks with 190385", "the server room opens
# with 4719 then #". Only suspect: "opens with 2024" may be a year.
_OPENS = ("unlock", "opens", "opened", "abre", "öffnet", "offnet", "ouvre", "apre")
UNLOCKS_WITH = Rule(
    "a PIN or an access code",
    bounded(
        r"(?P<keep>(?<![a-z])(?:unlocks?|unlocked|opens|opened|abre|[öo]ffnet|ouvre|s'ouvre|apre|si[ \t]+apre)[ \t]+"
        r"(?:with|com|con|avec|mit|met)[ \t]+(?:(?:the|a|o|el|il|le)[ \t]+)?(?:(?:code|pin|pincode|passcode|c[óo]digo"
        r"|codice)[ \t]+)?)(?P<secret>\d{4,8})(?:[ \t]*[#*])?"
        + _END
        # and nothing it counts after it: "opens with 3000 fans" is a crowd
        + r"(?=[ \t]*(?:[#*.,;:!?()—–-]|then\b|and\b|dann\b|puis\b|e\b|y\b|$))",
        re.I,
    ),
    _not_a_count,
    gate=_OPENS,
    sieves=tuple((word, word + r"\w*[ \t]{1,8}\S{1,4}[ \t]{1,8}(?:\S{1,8}[ \t]{1,8}){0,2}\d") for word in _OPENS),
    suspect=True,
)


# A code said long after the lock it opens, in the same sentence: "the guests will need to get through the south
# entrance (the one past the mailboxes ...) and that code is 2713", "the code for contractors this month is - after a
# lot of back and forth ... - 7731". Only suspect, and only with a lock named in the words before it.
_A_LOCK_BEFORE = re.compile(
    r"\b(?:gates?|doors?|entrances?|entry|keypad|lock[ \t]?box|key[ \t]?safe|padlock|garage|alarm|barrier|intercom"
    r"|buzzer|locker|safe|shed|lobby|side[ \t]+door|fob)\b",
    re.I,
)


def _said_of_a_lock(m: re.Match[str]) -> bool:
    before = m.string[max(0, m.start() - 300) : m.start()]
    return (
        _A_LOCK_BEFORE.search(before) is not None
        and _CALLED.search(m["keep"]) is None
        and not LANDLINE.fullmatch(m["secret"])
        and _not_a_count(m)
    )


CODE_SAID_LATER = Rule(
    "a PIN or an access code",
    re.compile(
        r"(?P<keep>(?<![a-z])(?:the|that|this|its|our)[ \t]+code"
        r"(?:[ \t]+for[ \t]+(?:the[ \t]+)?[a-z]+(?:[ \t]+[a-z]+)?)?"
        r"(?:[ \t]+this[ \t]+(?:month|week|year|season|term))?[ \t]+(?:is|was)(?:[ \t]+(?:now|still))?"
        r"(?:[ \t]*[—–-][ \t][^\n]{1,240}?[ \t][—–-][ \t]*|[ \t]+\([^()\n]{1,240}\)[ \t]*|[ \t]*[:=][ \t]*|[ \t]+))"
        r"(?P<secret>[#*]?[0-9]{4,8}[#*]?)(?![0-9])",
        re.I,
    ),
    _said_of_a_lock,
    gate=("code",),
    min_digits=4,
    suspect=True,
)
# A lock's codes by who uses them, after its name and a colon: "Rutherford Estates gate: residents 1122, vendors
# 3344#, emergency override *9911". Two codes at least; not a timetable's hours ("Gate: opens 0700, closes 2200") or a
# building's years. Only suspect; the whole list is masked.
_CODE_LABEL = r"(?:[a-z]+[ \t]+){1,2}"
_ONE_CODE = r"[#*]?[0-9]{4,8}[#*]?"
_NOT_WHO = re.compile(
    r"\b(?:opens?|closes?|from|until|till|to|at|since|in|weekdays?|weekends?|mon|tue|wed|thu|fri|sat|sun|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|hours?|built|renovated|rebuilt|installed|est|pop|population|phone|tel"
    r"|fax|room|suite|unit|no|number)\b",
    re.I,
)
_LABEL = re.compile(r"([a-z]+)[ \t]+(?=[#*]?[0-9])", re.I)  # the word just before each code
_A_YEAR = re.compile(r"(?:19|20)[0-9]{2}")


def _codes_by_who(m: re.Match[str]) -> bool:
    years = all(_A_YEAR.fullmatch(value) for value in re.findall(r"[0-9]{4,8}", m["secret"]))
    return not years and not any(_NOT_WHO.fullmatch(label) for label in _LABEL.findall(m.group(0)))


CODES_BY_WHO = Rule(
    "a PIN or an access code",
    re.compile(
        r"(?P<keep>(?<![a-z])(?:gates?|doors?|entrances?|entry|keypad|lock[ \t]?box|key[ \t]?safe|alarm|barrier"
        rf"|intercom|buzzer)(?:[ \t]+codes?)?[ \t]*:[ \t]*{_CODE_LABEL})"
        rf"(?P<secret>{_ONE_CODE}(?:[ \t]*[,;][ \t]*(?:and[ \t]+)?{_CODE_LABEL}{_ONE_CODE})+)(?![0-9])",
        re.I,
    ),
    _codes_by_who,
    gate=(
        "gate",
        "door",
        "entrance",
        "entry",
        "keypad",
        "lockbox",
        "keysafe",
        "alarm",
        "barrier",
        "intercom",
        "buzzer",
    ),  # fmt: skip
    min_digits=8,
    suspect=True,
)

# A code named, then said at the end of its sentence, with anything between: "Su código de acceso a la sala Mirador
# para el montaje del viernes es 5207B", "El código para confirmar el pago de 3.200,00 EUR a ... es 739184", "Cod y
# drws ffrynt yw 7204", "her CVV out over the phone for the guarantee: 4 4 9". Every language's word for a code and
# for "is"; not a postcode's, a dialling code's, a discount's or a booking's, whose digits open nothing. Only suspect.
_FAR_CODE_WORDS = (
    r"codes?|c[óo]digos?|codice|cod|kod|kode|koodi|pin|pins|passcode|cvv2?|cvc2?|combination|combo|combinaci[óo]n"
    r"|combinaison|combinazione|combina[çc][ãa]o|kombination|combinatie"
)
_FAR_CODE_GATE = ("code", "códig", "codig", "codice", "cod", "kod", "koodi", "pin", "cvv", "cvc", "combina", "combo",
                  "kombination")  # fmt: skip
_NOT_A_SECRET_CODE = re.compile(
    r"(?:zip|post|postal|area|dialling|dialing|country|tax|promo|promotional|discount|coupon|voucher|dress|source"
    r"|qr|bar|error|status|sort|swift|bic|iata|airport|product|item|article|class|course|module|booking|reference"
    r"|confirmation|tracking|order|flight|fare|seat|colou?r|hex|style|zoning|penal|civil|criminal"
    r"|highway|diagnosis|diagnostic|icd|billing|cpt|procedure|postcode|sic|naics|hs|customs|shipping|fault"
    r"|obd|trouble|exit|return|response|ansi|iso|unicode|ascii|morse|cheat|referral|invite|gift|rabatt"
    r"|gutschein|postale|descuento|sconto|réduction|reduction|cap|cp|plz)[ \t-]*$",
    re.I,
)
_FAR_IS = (
    r"is|was|es|era|est|ist|è|é|yw|jest|to|är|er|on|je|este|lautet|wordt|zijn|sono|son|são|sao|fue|foi|était|etait"
)
# what the word names when the next word says so: a code name, a postcode ("código postal"), a code review
_NOT_A_SECRET_AFTER = re.compile(
    r"[ \t-]*(?:name|names|postal|postale|fiscale|fiscal|review|reviews|word|words|base|block|snippet|style"
    r"|of[ \t]+conduct|of[ \t]+practice|red|blue|black|yellow|orange|green)\b",
    re.I,
)
# a second clause with a value of its own between the word and the digits: "... and the booking id is 48213"
_ANOTHER_CLAUSE = re.compile(rf"[ \t](?:and|et|und|och|og)[ \t][^\n]*?[ \t](?:{_FAR_IS})[ \t]", re.I)
_A_YEAR_SAID = re.compile(
    r"\b(?:since|in|from|until|till|by|year|born|built|dated?|seit|depuis|desde|dal|sinds)\b", re.I
)

CODE_NAMED_FAR = Rule(
    "a PIN or an access code",
    bounded(
        rf"(?P<keep>(?<![a-z])(?P<word>{_FAR_CODE_WORDS})(?![a-z])(?:[^\n.!?;]|\.(?=[0-9])){{1,140}}?"
        rf"(?:[ \t]+(?:{_FAR_IS})(?:[ \t]+(?:now|still|ahora|ora|jetzt|nun|maintenant|agora|nu))?[ \t]*:?[ \t]+"
        r"|[ \t]*:[ \t]*|[ \t]+(?:changed|set|reset)(?:[ \t]+[a-z]+)?[ \t]+to[ \t]+))"
        r"(?P<secret>[#*]?[0-9]{4,8}[#*]?|[0-9]{3,6}[a-z](?![a-z])|[0-9](?:[ \t-][0-9]){2,7})" + _END,
        re.I,
    ),
    lambda m: (
        _NOT_A_SECRET_CODE.search(m.string, max(0, m.start() - 24), m.start()) is None
        and _NOT_A_SECRET_AFTER.match(m.string, m.start() + len(m["word"])) is None
        and _ANOTHER_CLAUSE.search(m["keep"], len(m["word"])) is None
        and (sum(c.isdigit() for c in m["secret"]) >= 4 or m["word"].lower().startswith(("cvv", "cvc")))
        and (len(m["secret"]) < 6 or _CALLED.search(m["keep"]) is None)  # "read her CVV out over the phone: 4 4 9"
        and not LANDLINE.fullmatch(m["secret"])
        and not (_A_YEAR.fullmatch(m["secret"]) and _A_YEAR_SAID.search(m["keep"]) is not None)
        and _not_a_count(m)
    ),
    gate=_FAR_CODE_GATE,
    sieves=tuple((word, re.escape(word) + r"[^\n]{0,200}?\d") for word in _FAR_CODE_GATE),
    min_digits=3,
    suspect=True,
)
