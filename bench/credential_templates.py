"""Templated training texts for the credential model (bench/credential_model.py): credentials written as prose, in
many wordings and languages, and the near misses beside them (the same words with no credential, numbers that are
no secret).

Nine rounds of rules closed each class of secret the corpus showed (a door code in Japanese, a Hungarian id number,
a Swedish wifi password in quotes) and each new outside corpus brought classes nobody had named. These teach the
model what a credential in a sentence looks like: a thing that opens something, then a value that is chosen or
random; and what it does not: the same things with nothing to open them, and the order numbers, flights, rooms,
prices and versions memories are full of. Made from slots with a fixed seed: the same texts every run.
"""

from __future__ import annotations

import random
import string

SEED = 1037

# -- values ---------------------------------------------------------------------------------------------------------

_WORDS = [
    "tangerine",
    "otter",
    "harbor",
    "velvet",
    "maple",
    "comet",
    "pickle",
    "violet",
    "granite",
    "sparrow",
    "lantern",
    "falcon",
    "meadow",
    "biscuit",
    "cobalt",
    "willow",
    "marble",
    "pepper",
    "thunder",
    "orchid",
    "pelican",
    "lynx",
    "sonnenblume",
    "heidelbeere",
    "rybka",
    "kalina",
    "dunaj",
    "sakura",
    "limonka",
    "mariposa",
    "tulipan",
    "koala",
    "papaya",
    "zebra",
    "nebula",
    "citron",
    "fjord",
    "tundra",
    "quokka",
    "oliva",
    "ciruela",
    "hibou",
    "drache",
]
_NAMES = ["Lena", "Tomás", "Priya", "Jonas", "Aiko", "Marta", "Olek", "Chloé", "Bruno", "Sven", "Ayşe", "Minh"]


def _password(rng: random.Random) -> str:
    word, other = rng.choice(_WORDS), rng.choice(_WORDS)
    year, n = str(rng.randint(1950, 2026)), str(rng.randint(2, 9999))
    shapes = [
        f"{word}-{other}-{n}",
        f"{word.capitalize()}_{year}!",
        f"{word.capitalize()}{n}",
        f"{word}.{other}.{year}",
        f"{word.capitalize()}!{other.capitalize()}{n}",
        f"{word}{n}",
        "".join(rng.choice(string.ascii_letters + string.digits + "!#$%&*?") for _ in range(rng.randint(8, 14))),
        "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(8, 12))),
        f"{word.capitalize()}#{n}",
        f"{word}{other}{rng.randint(1, 99)}",
    ]
    return rng.choice(shapes)


def _passphrase(rng: random.Random) -> str:
    return " ".join(rng.sample(_WORDS, rng.randint(2, 4)))


def _pin(rng: random.Random) -> str:
    digits = "".join(rng.choice(string.digits) for _ in range(rng.choice([4, 4, 4, 5, 6, 6, 8])))
    shapes = [digits, digits, f"{digits}#", f"*{digits}", "-".join(digits), " ".join(digits), f"{digits}*"]
    return rng.choice(shapes)


def _combination(rng: random.Random) -> str:
    a, b, c = rng.randint(0, 39), rng.randint(0, 39), rng.randint(0, 39)
    shapes = [
        f"{a}-{b}-{c}",
        f"{a:02d} {b:02d} {c:02d}",
        f"R{a} L{b} R{c}",
        "".join(rng.choice(string.digits) for _ in range(rng.choice([3, 4]))),
        f"{a}/{b}/{c}",
    ]
    return rng.choice(shapes)


def _id_number(rng: random.Random) -> str:
    def d(n: int) -> str:
        return "".join(rng.choice(string.digits) for _ in range(n))

    def u(n: int) -> str:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(n))

    shapes = [
        f"{d(3)}-{d(2)}-{d(4)}",
        f"{d(1)} {d(2)} {d(2)} {d(2)} {d(3)} {d(3)} {d(2)}",
        f"{d(6)}/{d(4)}",
        d(11),
        f"{d(3)} {d(3)} {d(3)}",
        f"{u(2)}{d(6)}{u(1)}",
        f"{d(8)}{u(1)}",
        f"{u(1)}{d(7)}{u(1)}",
        f"{d(3)}.{d(3)}.{d(3)}-{d(2)}",
        f"{u(6)}{d(2)}{u(1)}{d(2)}{u(1)}{d(3)}{u(1)}",
        f"{d(6)}-{d(7)}",
        f"{d(4)} {d(4)} {d(4)}",
        f"{u(2)} {d(2)} {d(2)} {d(2)} {u(1)}",
        f"{d(2)}{d(2)}{d(2)}-{d(5)}",
        d(9),
        f"{d(3)}-{d(3)}-{d(3)} {d(2)}",
    ]
    return rng.choice(shapes)


def _codes(rng: random.Random) -> str:
    alphabet = string.ascii_lowercase + string.digits
    size = rng.choice([4, 5, 8])
    count = rng.randint(4, 10)
    codes = ["".join(rng.choice(alphabet) for _ in range(size)) for _ in range(count)]
    if rng.random() < 0.5:
        codes = [f"{c[:4]}-{c[4:]}" if len(c) == 8 else c for c in codes]
    if rng.random() < 0.3:
        codes = ["".join(rng.choice(string.digits) for _ in range(8)) for _ in range(count)]
    return rng.choice([" ", ", ", " / ", "; "]).join(codes)


def _token(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits
    body = "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 48)))
    shapes = [
        body,
        f"{body[:24]}.{body[24:30]}.{''.join(rng.choice(alphabet) for _ in range(27))}",
        " ".join("".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(4)) for _ in range(4)),
        "".join(rng.choice("0123456789abcdef") for _ in range(32)),
    ]
    return rng.choice(shapes)


def _seed(rng: random.Random) -> str:
    return " ".join(rng.sample(_WORDS, 12))


_VALUES = {
    "password": _password,
    "phrase": _passphrase,
    "pin": _pin,
    "combo": _combination,
    "id": _id_number,
    "codes": _codes,
    "token": _token,
    "seed": _seed,
}

# -- what a value opens, by language: (kind of value, the words for it) -------------------------------------------

_THINGS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("password", "wifi password"),
        ("password", "password for the school portal"),
        ("password", "login"),
        ("password", "router admin password"),
        ("password", "NAS password"),
        ("password", "pass for the streaming account"),
        ("password", "email password"),
        ("password", "laptop login"),
        ("password", "VPN password"),
        ("phrase", "passphrase"),
        ("phrase", "safe word for pickup"),
        ("phrase", "secret answer to the security question"),
        ("phrase", "mother's maiden name for the bank"),
        ("pin", "door code"),
        ("pin", "gate code"),
        ("pin", "alarm code"),
        ("pin", "app PIN"),
        ("pin", "phone unlock code"),
        ("pin", "card PIN"),
        ("pin", "voicemail PIN"),
        ("pin", "garage keypad code"),
        ("pin", "key safe code"),
        ("pin", "buzzer code"),
        ("combo", "locker combination"),
        ("combo", "bike lock combination"),
        ("combo", "safe combination"),
        ("combo", "padlock code"),
        ("id", "social security number"),
        ("id", "national ID number"),
        ("id", "tax ID"),
        ("id", "passport number"),
        ("id", "driver's licence number"),
        ("id", "health insurance number"),
        ("codes", "recovery codes"),
        ("codes", "backup codes"),
        ("codes", "one-time codes"),
        ("token", "bot token"),
        ("token", "API token"),
        ("token", "2FA secret"),
        ("token", "personal access token"),
        ("seed", "seed phrase"),
        ("seed", "wallet recovery words"),
        # codes that let someone take a child, void a sale or collect a parcel
        ("pin", "pickup code at the nursery"),
        ("pin", "manager override on the till"),
        ("pin", "staff override code"),
        ("pin", "collection PIN for the parcel locker"),
        ("pin", "four digits for the debit card"),
        ("pin", "disarm code"),
        ("password", "family Netflix"),
        ("password", "Apple ID"),
    ],
    "de": [
        ("password", "WLAN-Passwort"),
        ("password", "Kennwort fürs Elster-Konto"),
        ("password", "Zugangsdaten"),
        ("password", "Passwort vom Router"),
        ("phrase", "Sicherheitsantwort"),
        ("phrase", "Losungswort"),
        ("pin", "Türcode"),
        ("pin", "Haustürcode"),
        ("pin", "Alarmcode"),
        ("pin", "PIN der EC-Karte"),
        ("pin", "Entsperrcode vom Handy"),
        ("combo", "Zahlenschloss vom Spind"),
        ("combo", "Tresorkombination"),
        ("id", "Steuer-ID"),
        ("id", "Sozialversicherungsnummer"),
        ("id", "Personalausweisnummer"),
        ("codes", "Wiederherstellungscodes"),
        ("codes", "Backup-Codes"),
        ("token", "2FA-Geheimnis"),
        ("seed", "Seed-Phrase"),
        ("pin", "Abholcode für die Kita"),
    ],
    "fr": [
        ("password", "mot de passe du wifi"),
        ("password", "mot de passe de l'ENT"),
        ("password", "identifiants"),
        ("password", "mdp de la box"),
        ("phrase", "phrase secrète"),
        ("phrase", "réponse à la question secrète"),
        ("pin", "digicode"),
        ("pin", "code de l'alarme"),
        ("pin", "code PIN de la carte"),
        ("pin", "code du portail"),
        ("combo", "combinaison du cadenas"),
        ("combo", "code du casier"),
        ("id", "numéro de sécu"),
        ("id", "numéro fiscal"),
        ("id", "numéro de passeport"),
        ("codes", "codes de secours"),
        ("codes", "codes de récupération"),
        ("token", "jeton du bot"),
        ("seed", "phrase de récupération du portefeuille"),
    ],
    "es": [
        ("password", "contraseña del wifi"),
        ("password", "clave del banco"),
        ("password", "contraseña de Netflix"),
        ("phrase", "santo y seña"),
        ("phrase", "respuesta de seguridad"),
        ("pin", "código de la puerta"),
        ("pin", "código de la alarma"),
        ("pin", "PIN de la tarjeta"),
        ("pin", "código del portal"),
        ("combo", "combinación de la taquilla"),
        ("combo", "combinación del candado"),
        ("id", "DNI"),
        ("id", "número de la seguridad social"),
        ("id", "NIE"),
        ("codes", "códigos de recuperación"),
        ("token", "token del bot"),
        ("seed", "frase semilla"),
    ],
    "it": [
        ("password", "password del wifi"),
        ("password", "credenziali SPID"),
        ("phrase", "parola d'ordine"),
        ("pin", "codice del cancello"),
        ("pin", "codice dell'allarme"),
        ("pin", "PIN del bancomat"),
        ("combo", "combinazione dell'armadietto"),
        ("id", "numero della tessera sanitaria"),
        ("id", "numero della carta d'identità"),
        ("codes", "codici di backup"),
        ("token", "token del bot"),
    ],
    "pt": [
        ("password", "senha do wifi"),
        ("password", "senha do banco"),
        ("phrase", "palavra-passe"),
        ("pin", "código do portão"),
        ("pin", "PIN do cartão"),
        ("combo", "combinação do cadeado"),
        ("id", "CPF"),
        ("id", "número do cartão de cidadão"),
        ("codes", "códigos de recuperação"),
        ("token", "token do bot"),
    ],
    "nl": [
        ("password", "wifi-wachtwoord"),
        ("password", "DigiD-wachtwoord"),
        ("pin", "deurcode"),
        ("pin", "pincode van de bankpas"),
        ("pin", "alarmcode"),
        ("combo", "code van het fietsslot"),
        ("id", "BSN"),
        ("codes", "herstelcodes"),
        ("phrase", "wachtwoordzin"),
    ],
    "sv": [
        ("password", "lösenordet till nätverket"),
        ("password", "lösenordet till BankID"),
        ("pin", "portkoden"),
        ("pin", "larmkoden"),
        ("combo", "kodlåset till skåpet"),
        ("id", "personnummer"),
        ("codes", "reservkoder"),
    ],
    "da": [("password", "wifi-adgangskoden"), ("pin", "dørkoden"), ("id", "CPR-nummer"), ("pin", "pinkoden")],
    "no": [("password", "wifi-passordet"), ("pin", "dørkoden"), ("id", "fødselsnummer"), ("pin", "PIN-koden")],
    "fi": [("password", "wifin salasana"), ("pin", "ovikoodi"), ("id", "henkilötunnus"), ("pin", "PIN-koodi")],
    "pl": [
        ("password", "hasło do wifi"),
        ("password", "hasło do banku"),
        ("pin", "kod do drzwi"),
        ("pin", "PIN do karty"),
        ("combo", "szyfr do kłódki"),
        ("id", "PESEL"),
        ("codes", "kody zapasowe"),
    ],
    "cs": [("password", "heslo k wifi"), ("pin", "kód od dveří"), ("id", "číslo občanky"), ("pin", "PIN ke kartě")],
    "hu": [("password", "wifi jelszó"), ("pin", "kapukód"), ("id", "személyi szám"), ("id", "adóazonosító")],
    "tr": [("password", "wifi şifresi"), ("pin", "kapı kodu"), ("id", "pasaport numarası"), ("pin", "kart şifresi")],
    "ru": [
        ("password", "пароль от wifi"),
        ("password", "пароль от почты"),
        ("pin", "код домофона"),
        ("pin", "пин-код карты"),
        ("id", "СНИЛС"),
        ("id", "номер паспорта"),
        ("codes", "резервные коды"),
    ],
    "ja": [
        ("password", "Wi-Fiのパスワード"),
        ("pin", "玄関の暗証番号"),
        ("pin", "キャッシュカードの暗証番号"),
        ("id", "マイナンバー"),
        ("codes", "バックアップコード"),
        ("combo", "ロッカーの番号"),
    ],
    "zh": [
        ("password", "WiFi密码"),
        ("pin", "门禁密码"),
        ("pin", "银行卡密码"),
        ("id", "护照号码"),
        ("pin", "保险箱密码"),
        ("codes", "备用验证码"),
    ],
    "ko": [
        ("password", "와이파이 비밀번호"),
        ("pin", "현관 비밀번호"),
        ("id", "주민등록번호"),
        ("pin", "카드 비밀번호"),
    ],
}

# How a value is given, by language: {thing} and {value}; {who} a person.
_GIVEN: dict[str, list[str]] = {
    "en": [
        "The {thing} is {value}",
        "{thing}: {value}",
        "{who}'s {thing} is {value}, don't lose it",
        "Remember the {thing} for the cabin - {value}",
        "my {thing} = {value} (changed it last week)",
        "{thing} for {who}: {value}. Save it for when I forget again",
        "Note to self, {thing} {value}",
        "Set the {thing} to {value} yesterday, so use that from now on",
        "{who} said the {thing} is now {value}",
        "If the babysitter asks, the {thing} is {value}",
        'New {thing} after the reset: "{value}"',
        "{thing} is '{value}' until March",
        "Use {value} as the {thing} when logging in from the hotel",
        "{who} uses the same {thing} for everything: {value}",
        "{thing} - {value}, like the year",
        "The {thing} are {value}",
    ],
    "de": [
        "Das {thing} ist {value}",
        "{thing}: {value}",
        "Mein {thing} lautet {value}, bitte merken",
        "{thing} für {who}: {value}",
        "Neuer {thing} seit gestern: „{value}“",
        "Merk dir: {thing} {value}",
    ],
    "fr": [
        "Le {thing} est {value}",
        "{thing} : {value}",
        "Mon {thing}, c'est {value}, ne l'oublie pas",
        "{thing} de {who} : {value}",
        "Nouveau {thing} : « {value} »",
        "Pour {who}, le {thing} c'est {value}",
    ],
    "es": [
        "La {thing} es {value}",
        "{thing}: {value}",
        "Mi {thing} es {value}, guárdala",
        "{thing} de {who}: {value}",
        "Nueva {thing}: «{value}»",
        "Apunta la {thing}: {value}",
    ],
    "it": [
        "Il {thing} è {value}",
        "{thing}: {value}",
        "Il mio {thing} è {value}, non perderlo",
        "{thing} di {who}: {value}",
    ],
    "pt": [
        "A {thing} é {value}",
        "{thing}: {value}",
        "Minha {thing} é {value}, guarda aí",
        "{thing} do {who}: {value}",
    ],
    "nl": [
        "De {thing} is {value}",
        "{thing}: {value}",
        "Mijn {thing} is {value}, niet vergeten",
        "{thing} van {who}: {value}",
    ],
    "sv": ["{thing} är {value}", "{thing}: {value}", "{who}s {thing} är ”{value}”"],
    "da": ["{thing} er {value}", "{thing}: {value}"],
    "no": ["{thing} er {value}", "{thing}: {value}"],
    "fi": ["{thing} on {value}", "{thing}: {value}"],
    "pl": ["{thing} to {value}", "{thing}: {value}", "Moje {thing} to {value}, nie zgub"],
    "cs": ["{thing} je {value}", "{thing}: {value}"],
    "hu": ["A {thing} {value}", "{thing}: {value}", "{who} {thing}: {value}"],
    "tr": ["{thing} {value}", "{thing}: {value}", "{who} için {thing} {value}"],
    "ru": ["{thing}: {value}", "{thing} — {value}", "Мой {thing} {value}, не забудь"],
    "ja": ["{thing}は{value}です", "{thing}：{value}", "{who}の{thing}は{value}。忘れないように"],
    "zh": ["{thing}是{value}", "{thing}：{value}", "{who}的{thing}是{value}，别告诉别人"],
    "ko": ["{thing}는 {value}입니다", "{thing}: {value}", "{who}의 {thing}는 {value}"],
}

# The same things with no value: asked for, changed, kept elsewhere, ruled on.
_WITHOUT: dict[str, list[str]] = {
    "en": [
        "I changed the {thing} yesterday, the new one is in the password manager",
        "Ask {who} for the {thing}",
        "The {thing} is written on the sticker under the router",
        "Remind me to reset the {thing} next month",
        "Forgot the {thing} again, had to call support",
        "The {thing} must have at least 12 characters",
        "{who} keeps the {thing} in her 1Password vault",
        "Never send the {thing} by email",
        "The landlord will text the {thing} on Friday",
        "Do I need the {thing} to sign up for the 2025 course?",
    ],
    "de": [
        "Ich habe das {thing} gestern geändert",
        "Frag {who} nach dem {thing}",
        "Das {thing} steht auf dem Zettel im Flur",
    ],
    "fr": [
        "J'ai changé le {thing} hier",
        "Demande le {thing} à {who}",
        "Le {thing} est dans le gestionnaire de mots de passe",
    ],
    "es": ["Cambié la {thing} ayer", "Pídele la {thing} a {who}", "La {thing} está en el gestor de contraseñas"],
    "it": ["Ho cambiato il {thing} ieri", "Chiedi il {thing} a {who}"],
    "pt": ["Mudei a {thing} ontem", "Pede a {thing} ao {who}"],
    "nl": ["Ik heb de {thing} gisteren veranderd", "Vraag {who} om de {thing}"],
    "sv": ["Jag bytte {thing} i går", "Fråga {who} om {thing}"],
    "pl": ["Zmieniłem {thing} wczoraj", "Zapytaj {who} o {thing}"],
    "ru": ["Я вчера сменил {thing}", "Спроси {who} про {thing}"],
    "ja": ["{thing}は昨日変更した", "{who}に{thing}を聞いておく"],
    "zh": ["昨天改了{thing}", "问{who}要{thing}"],
    "ko": ["어제 {thing}를 바꿨다", "{who}에게 {thing}를 물어보기"],
}

# Numbers and codes that are no secret.
_NOT_SECRET = [
    "Order {n6} ships on Tuesday, tracking {track}",
    "Flight {fl} leaves at {hh}:{mm} from gate B{n2}",
    "Meeting in room {n4}, building {b}",
    "Invoice INV-{year}-{n4} is due on the {n2}th",
    "Upgraded the app to v{v}",
    "My new address: {n2} Harbour Lane, postcode {n5}",
    "Bought the {gpu} for {n4} euros",
    "The ticket number for the broken laptop is {ticket}",
    "Train {fl} to Lyon, seat {n2}{b}, coach {n2}",
    "Call the dentist at +44 20 {n4} {n4} to move the appointment",
    "We moved to {n2} rue Oberkampf in {year}",
    "Sprint {n2} ends on {year}-{mm2}-{n2}",
    "The Kubernetes secret is named {slug}-tls in namespace {slug}",
    "My gym membership number is on the app, not here",
    "Commit {hex} fixed the regression in {year}",
    "Our table at the wedding is number {n2}",
    "The bus {n2} stops right at {n4} Elm Street",
    "Reading 'Project Hail Mary' for the {year} book club",
    "Pre-order code for the concert arrives by mail on {year}-{mm2}-{n2}",
    "Package {track} is held at customs",
    "DHL Sendungsnummer {n6}{n6}{n4}: Paket mit den Büchern",
    "Tracking {n6}{n6} for the parcel from the shop, it arrives Friday",
    "{company} delivers until {hh}:{mm}, phone 0{n2} {n4} {n4}",
    "Pickup from the Packstation {n3}, the parcel is there till Monday",
    "Mi pedido {n6} llega el martes",
    "Der Zug {fl} fährt um {hh}:{mm} ab",
    "Ma commande {n6} arrive jeudi",
    "Il volo {fl} parte alle {hh}:{mm}",
    "Mijn bestelling {n6} komt dinsdag",
    "Mój lot {fl} jest o {hh}:{mm}",
    "注文番号{n6}は火曜日に届く",
    "订单{n6}周二到",
    "Рейс {fl} в {hh}:{mm}",
    "Il codice sconto SUMMER{n2} non funziona più",
    "The Wi-Fi network at the office is called {slug}-guest",
    "Use the password generator in Bitwarden for new accounts",
    "The PIN pad at the shop was broken so I paid by phone",
    "The door code changes every month; the concierge texts it",
    # what a memory holds that has digits and is no secret: a card's last digits, a shop's phone, a postcode, a
    # place, a version pinned, a model, a public key, an age, a sample id from the docs, a secret's name
    "Card ending in {n4} is the one for groceries",
    "The Visa ending {n4} expires next spring",
    "The bakery's number is 0{n2}{n2} {n4} {n4}",
    "Call the vet on {n4} {n6} before noon",
    "The new postcode is {n5}; the old zip code was {n5}",
    "Trail start coordinates: 4{n2}.{n4}, {n2}.{n4}",
    "Pin pandas to {v} until the upgrade lands",
    "Router model is a {gpu} with firmware {v}",
    "My SSH public key: ssh-ed25519 {b64} {name}@laptop",
    "Public key for the peer: {b64}=",
    "Pension starts at 67 for people born after {year}",
    "The docs' example account number is 12345678, not a real one",
    "The sample ID in the form guide is AB 12 34 56 C",
    "CI uses the {slug_up}_TOKEN secret that the platform injects",
    "Set {slug_up}_API_KEY in the .env file; the value lives in the vault",
    'Grandma\'s secret ingredient is "{word}"',
    'Our family\'s code word for leaving a party is "{word}"',
    'The dog\'s name is "{word}", like the biscuit',
    "Chapter {n2} of '{word} {word}' is my favourite",
    "The analytics pixel is https://stats.example.com/p.gif?site={slug}",
    "Le code postal est {n5}",
    "Die Postleitzahl ist {n5}",
    "El código postal es {n5}",
    "Mi teléfono nuevo: 6{n2} {n6}",
    "Meine Kundennummer beim Stromanbieter steht auf der Rechnung",
    "Die Hausnummer ist {n2}b, Klingel {slug}",
    "The bus to work is line {n2}, it leaves at {hh}:{mm}",
    "Scored {n4} points in the {year} league, a club record",
    "Budget for the trip: {n4} EUR, flights {n4} of it",
    "Kept receipt #{n6} for the warranty claim",
    # a business's account to pay, keys anyone may see, a template's stand-ins, a line of a listing
    "Pay {company}'s invoice {n4} to IBAN {iban}, due on the {n2}th",
    "Rechnung {n4} von {company}: IBAN {iban}",
    "Facture {n4} de {company} : IBAN {iban}, échéance le {n2}",
    "Factura {n4} de {company}: IBAN {iban}",
    "Supplier {company} changed banks, new IBAN on their letterhead: {iban}",
    "Öffentlicher Schlüssel des Servers: {b64}=",
    "Clé publique du serveur : {b64}=",
    "Clave pública del servidor: {b64}=",
    "Server host key fingerprint SHA256:{b64}",
    "config.example.yaml: api_key: your_api_key_here, secret: replace_me",
    'password: "{{{{ vault_{slug}_password }}}}"',
    "DB_PASSWORD=changeme in the template, the real one comes from the vault",
    "token: ${{{slug_up}_TOKEN}} in the CI file",
    "Listing #{n2}: {word} flat;{n6};{name};;District {n2}",
    "Row {n2}: {name};{n4};{word};{year}",
]


# -- credentials given by use, not by name: what opens what, a code just sent, an account beside its password ----------
# (each outside corpus held secrets with no "is" and no credential word: a keypad "punched in", a cabinet that "opens
# with" four digits, a code a bank "just texted", an IMAP login followed by a dash and the password)

_LOCKS = {
    "en": [
        "the side door",
        "the gate",
        "the alarm panel",
        "the key box",
        "the locker",
        "the medicine cabinet",
        "the server room",
        "the bike shed",
        "the front door",
        "the safe",
        "the garage",
        "the parcel locker",
        "the storage unit",
        "the back office",
        "the lockbox by the porch",
        "the staff room",
        "the voicemail",
        "the hotline voicemail",
        "the care home side entrance",
    ],
    "de": ["die Haustür", "das Tor", "die Alarmanlage", "der Schlüsselkasten", "der Spind", "die Garage", "der Keller"],
    "fr": ["la porte", "le portail", "l'alarme", "la boîte à clés", "le casier", "le garage", "le local vélos"],
    "es": ["la puerta", "el portal", "la alarma", "la caja de llaves", "la taquilla", "el garaje"],
    "it": ["il portone", "il cancello", "l'allarme", "la cassetta delle chiavi", "l'armadietto"],
    "nl": ["de voordeur", "het hek", "het alarm", "het sleutelkastje", "de fietsenstalling"],
    "pt": ["o portão", "a porta", "o alarme", "o cofre", "o armário"],
    "pl": ["furtka", "drzwi", "alarm", "skrytka na klucze", "szafka"],
}
_USED = {
    "en": [
        "Punch in {value} on the keypad by {lock}",
        "{lock} opens with {value}, then press ENTER",
        "To get into {lock}, key in {value} and wait for the beep",
        "{who} can get in with {value} while we're away",
        "Gave {who} the code for {lock}, it's {value}, valid until Sunday",
        "You've got 30 seconds after opening {lock} to type {value}",
        "{lock}: {value} then the green button",
        "For {lock} just tap {value}, the housekeeper knows",
        "{lock} takes {value} - {who} changes it monthly",
        "Dial {value} on {lock}",
        "{lock}: ring in, then {value} to hear the messages",
        "To get in {lock} after 8pm, key in {value}",
    ],
    "de": ["{lock} geht mit {value} auf", "Für {lock} einfach {value} eintippen", "{lock} öffnet sich mit {value}"],
    "fr": ["{lock} s'ouvre avec {value}", "Tape {value} pour {lock}", "Pour {lock}, compose {value}"],
    "es": ["{lock} se abre con {value}", "Marca {value} en {lock}", "Para {lock} teclea {value}"],
    "it": ["{lock} si apre con {value}", "Digita {value} per {lock}"],
    "nl": ["{lock} gaat open met {value}", "Toets {value} in bij {lock}"],
    "pt": ["{lock} abre com {value}", "Digita {value} para {lock}"],
    "pl": ["{lock} otwiera się kodem {value}", "Wpisz {value} przy {lock}"],
}
_SENDERS = ["The bank", "Revolut", "Monzo", "PayPal", "Google", "The DMV portal", "Her mobile carrier", "Steam", "N26"]
_SENT = {
    "en": [
        "{sender} just texted {otp}, use it to approve the new phone",
        "{sender} sent the code {otp}; it expires in ten minutes",
        "Verification code from {sender}: {otp}",
        "The SMS code is {otp}, use it to confirm the payment",
        "{sender} code {otp} - type it in before it times out",
        "Got {otp} by text from {sender} for the login",
    ],
    "de": ["{sender} hat gerade {otp} geschickt, für die Überweisung", "Bestätigungscode von {sender}: {otp}"],
    "fr": ["{sender} vient d'envoyer {otp} pour valider le virement", "Code reçu par SMS de {sender} : {otp}"],
    "es": ["{sender} acaba de mandar {otp} para la transferencia", "Código por SMS de {sender}: {otp}"],
}
_ACCOUNTS = [
    "IMAP for hello@{slug}.studio",
    "the shop's Shopify admin",
    "FTP at ftp.{slug}.net",
    "the Synology at home",
    "the router admin page",
    "{who}'s Netflix",
    "the office printer's web panel",
    "the staff network {ssid}",
    "the practice rota system",
    "the ThinkPad's BIOS",
    "the work laptop",
    "the coaches' shared drive",
    "SMTP relay for {slug}.io",
    "the old Gmail",
    "the Steam account",
    "the family iCloud",
]
_PAIRED = [
    "{account} - {password}",
    "{account}: {user} / {password}",
    "{account}, user {user}, {password}",
    "Login for {account} is {user} with {password}",
    "{account} -> {user} / {password}",
    "Wi-Fi {ssid}, key {password}",
    "Network {ssid} (not the guest one), WPA key {password}",
    "SSID {ssid} / {password}",
    "{account} uses {password} since the reset",
    "For {account} I just use {password}",
    "I use {password} for {account}, same as the old laptop",
    "{account}? Same as always: {password}",
    "{account} still takes the old one, {password}",
    "{account} is {who}'s birth year, then the club's name, then an exclamation mark (so {password})",
    "{account}: the usual word plus the year, i.e. {password}",
    "Remember this for me: {password} ({account}, don't ask)",
    "{account} asks for {password} before it even boots",
    "The thing you need to get into {account} is {password} (all lowercase)",
]

# The same words with nothing secret in them: the keypad broken, the door opened by a badge, a message about a
# parcel, a menu to press through, a room, a score, an error code.
_USED_NOT = [
    "Punch in at 9 on Mondays, the shift starts at 9:15",
    "{lock} opens at {hh}:{mm} on weekdays",
    "{lock} opens with a badge; ask {who} for one at reception",
    "The keypad at {lock} is broken, use the front entrance",
    "{sender} texted that the new card arrives on the {n2}th",
    "{sender} sent a reminder about the {n4} EUR payment due on the {n2}th",
    "Call 0800 {n3} {n3} and press 1 for billing, then 3",
    "Press 2 for English, then enter the order number {n6}",
    "Room {n4} at the hotel, breakfast from {hh}:{mm}",
    "Scored {n4} in the arcade, {who} got {n3}",
    "Error code 0x8007{n4} when the update runs",
    "The alarm goes off at {hh}:{mm}; {lock} is locked at night",
    "{who} texted {n2} photos of the flat",
    "Bus {n4} leaves from stop {n2} at {hh}:{mm}",
    "Wi-Fi {ssid} is the guest network; the password is on the card at the desk",
    "{account} is where the invoices go; the login is in the vault",
    "Key box at {lock} holds the spare, {who} has the code",
    "The gate code changes on the 1st; the landlord texts it",
    "Tracking number {n6}{n4}, {sender} says it ships Friday",
    "{sender} flagged a payment of {n3} EUR as suspicious, called them back",
]


# How a chosen password or code is made, said before the value itself ("the dog's name backwards, Rolyat88")
_RECIPES = [
    "the dog's name backwards",
    "my birthday backwards",
    "his daughter's name with the year she was born and a bang",
    "the cat's name with a capital and an exclamation mark",
    "the street we grew up on plus the house number",
    "her maiden name then the year we married",
    "the usual one with the month at the end",
]
_RECIPE_FRAMES = [
    "{account} is {recipe}, so {password}",
    "{account}: {recipe} - {password}",
    "For {account} it's {recipe}: {password}",
    "{account} with his email and {recipe}, {password}",
    "{lock} is {recipe} - {pin}. Don't let me forget",
    "{lock} code is {recipe}, so {pin}",
]


def used(count: int = 1200) -> list[str]:
    """`count` credentials given by use: a code keyed in, a code just sent, an account followed by its password, a
    password or code after how it was made."""
    rng = random.Random(SEED + 2)
    texts = []
    for i in range(count):
        fill = _filler(rng)
        if i % 4 == 3:
            account = rng.choice(_ACCOUNTS).format(slug=fill["slug"], who=rng.choice(_NAMES), ssid=fill["ssid"])
            text = rng.choice(_RECIPE_FRAMES).format(
                account=account,
                recipe=rng.choice(_RECIPES),
                password=_password(rng),
                lock=rng.choice(_LOCKS["en"]),
                pin=_pin(rng),
            )
        elif i % 3 == 0:
            lang = rng.choice([lang for lang in _USED for _ in range(4 if lang == "en" else 1)])
            value = rng.choice([_pin, _pin, _combination])(rng)
            text = rng.choice(_USED[lang]).format(lock=rng.choice(_LOCKS[lang]), value=value, who=rng.choice(_NAMES))
        elif i % 3 == 1:
            lang = rng.choice([lang for lang in _SENT for _ in range(3 if lang == "en" else 1)])
            digits = "".join(rng.choice(string.digits) for _ in range(6))
            otp = rng.choice([digits, f"{digits[:3]} {digits[3:]}", f"{digits[:3]}-{digits[3:]}", f"G-{digits}"])
            senders = _SENDERS if lang == "en" else [s for s in _SENDERS if not s[0].isupper() or " " not in s]
            text = rng.choice(_SENT[lang]).format(sender=rng.choice(senders), otp=otp)
        else:
            account = rng.choice(_ACCOUNTS).format(slug=fill["slug"], who=rng.choice(_NAMES), ssid=fill["ssid"])
            name = fill["name"]
            user = rng.choice([name, f"{name[0]}.{rng.choice(_WORDS)}", f"{name}_{rng.choice(_WORDS)}", "admin"])
            text = rng.choice(_PAIRED).format(
                account=account, ssid=fill["ssid"], user=user, who=rng.choice(_NAMES), password=_password(rng)
            )
        texts.append(text[:1].upper() + text[1:] + rng.choice(["", ".", ".", "!"]))
    return texts


def used_not(count: int = 900) -> list[str]:
    """`count` texts in the same words as `used` with no credential in them."""
    rng = random.Random(SEED + 3)
    texts = []
    for _ in range(count):
        fill = _filler(rng)
        account = rng.choice(_ACCOUNTS).format(slug=fill["slug"], who=rng.choice(_NAMES), ssid=fill["ssid"])
        text = rng.choice(_USED_NOT).format(
            lock=rng.choice(_LOCKS["en"]), sender=rng.choice(_SENDERS), account=account, who=rng.choice(_NAMES), **fill
        )
        texts.append(text[:1].upper() + text[1:] + rng.choice(["", ".", ".", "!"]))
    return texts


def _filler(rng: random.Random) -> dict[str, str]:
    def d(n: int) -> str:
        return "".join(rng.choice(string.digits) for _ in range(n))

    return {
        "n2": str(rng.randint(2, 48)),
        "n4": d(4),
        "n5": d(5),
        "n6": d(6),
        "n3": d(3),
        "ssid": rng.choice(["BistroAmalfi_STAFF", "Vodafone-7F2A", "FRITZ!Box 7590 KX", "eduroam", "Casa_Moreno"]),
        "year": str(rng.randint(1990, 2027)),
        "hh": f"{rng.randint(5, 22):02d}",
        "mm": f"{rng.choice([0, 15, 30, 45, 5, 50]):02d}",
        "mm2": f"{rng.randint(1, 12):02d}",
        "fl": rng.choice(["LH", "BA", "AF", "IB", "KL", "TGV ", "ICE "]) + d(rng.choice([3, 4])),
        "b": rng.choice("ABCDEFG"),
        "v": f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "gpu": rng.choice(["RTX 4070", "RX 7800 XT", "MacBook M3", "Pixel 8", "iPhone 15"]),
        "ticket": rng.choice(["INC", "REQ", "JIRA-", "SUP-"]) + d(rng.choice([5, 7])),
        "track": rng.choice(["1Z", "JD", "LX"]) + d(rng.choice([9, 12, 16])),
        "slug": rng.choice(["ledger", "payments", "billing", "auth", "web"]),
        "b64": "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(43)),
        "name": rng.choice(_NAMES).lower(),
        "word": rng.choice(_WORDS),
        "slug_up": rng.choice(["GITHUB", "NPM", "STRIPE", "SENTRY", "DOCKER"]),
        "company": rng.choice(["Alpes Bois SARL", "Müller GmbH", "Northwind Ltd", "Ferretti S.p.A.", "Acme BV"]),
        "iban": rng.choice(["DE", "FR", "NL", "ES", "IT"]) + d(2) + " " + " ".join(d(4) for _ in range(4)) + " " + d(2),
        "hex": "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([7, 40]))),
    }


def credentials(count: int = 2400) -> list[str]:
    """`count` credentials given in a sentence, spread over the languages (English the most)."""
    rng = random.Random(SEED)
    languages = list(_THINGS)
    weights = [8 if lang == "en" else 3 if lang in ("de", "fr", "es") else 1.5 for lang in languages]
    texts = []
    for _ in range(count):
        lang = rng.choices(languages, weights)[0]
        kind, thing = rng.choice(_THINGS[lang])
        frame = rng.choice(_GIVEN[lang])
        text = frame.format(thing=thing, value=_VALUES[kind](rng), who=rng.choice(_NAMES))
        texts.append(text[:1].upper() + text[1:] + rng.choice(["", "", ".", "!", " (keep it safe)"]))
    return texts


def near_misses(count: int = 2400) -> list[str]:
    """`count` texts that name credentials without giving one, or give numbers and codes that are no secret."""
    rng = random.Random(SEED + 1)
    texts = []
    for i in range(count):
        if i % 2:
            text = rng.choice(_NOT_SECRET).format(**_filler(rng))
        else:
            lang = rng.choice([lang for lang in _WITHOUT for _ in range(3 if lang == "en" else 1)])
            _, thing = rng.choice(_THINGS[lang])
            text = rng.choice(_WITHOUT[lang]).format(thing=thing, who=rng.choice(_NAMES))
        texts.append(text[:1].upper() + text[1:] + rng.choice(["", ".", ".", "!", " (keep it safe)"]))
    return texts
