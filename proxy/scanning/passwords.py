"""Passwords and keys named by a word: "password=...", "my password is hunter2", "mein Passwort ist ...",
"api_key: ...", "the API key is ...", "mysql -pSecret", "login is admin / Secret1".

Written for prose as much as for config, which is where detect-secrets' keyword plugin falls short for memories: a
value counts only if it is a literal (not "${DB_PASSWORD}", "<your key>", "os.environ[...]" or the next word of a
sentence) and, in prose, only if it looks chosen or generated ("hunter2", not "stored" in "the password is stored
in the vault").
"""

from __future__ import annotations

import re

from .keys import example, public_key
from .rules import Rule
from .shapes import PASSWORD_MANAGER, chosen_password, looks_generated, placeholder, strong_password

# a word after it, or a contraction's ending ("secret: they're doing a salsa routine")
_PROSE_NEXT = re.compile(r"[ \t]+[A-Za-z]|'(?:re|s|t|ll|ve|d|m)[ \t]")
_ELIDED_PREFIX = re.compile(r"[A-Za-z0-9]{1,12}(?:[-_][A-Za-z0-9]{1,12}){0,3}[-_](?:\.{3}|…)[.,;:!?]?")


def _is_literal(m: re.Match[str]) -> bool:
    """A literal, not a placeholder ("${DB_PASSWORD}", "<your key>"), code or prose ("password: must be...")."""
    if _ELIDED_PREFIX.fullmatch(m["secret"]):  # "sk-...", "sk-ant-...", "ghp_…": a key's prefix, the rest left out
        return False
    value = m["secret"].rstrip(".!?:")
    if len(value) < 4 or placeholder(value) or "[redacted" in value or example(value):  # masked, or documented
        return False
    if value.isalpha() and _PROSE_NEXT.match(m.string, m.end()):
        return False
    return not (value.isdigit() and len(value) < 8 and "token" in m["keep"].lower())  # "max token: 4000"


# A length said of a password in a script without spaces: "パスワードは12文字以上", "密码是8位以上", "비밀번호는 8자
# 이상".
_A_LENGTH = re.compile(r"\d+[ \t]*(?:文字|桁|字符|个字符|個字元|位|자리?|characters?|chars?|digits?)")


def _is_chosen_password(m: re.Match[str]) -> bool:
    return (chosen_password(m["secret"]) or _run_together(m)) and not _A_LENGTH.match(m["secret"])


def _run_together(m: re.Match[str]) -> bool:
    """Words run together into a long one, said so or too long for a word: "pw is still thelastdanceatthedmv (all
    lowercase no spaces)"."""
    value = m["secret"].rstrip(".,;:!?")
    if not (value.isalpha() and len(value) >= 10):
        return False
    return len(value) >= 22 or _SPELLED_HOW.match(m.string, m.end("secret")) is not None


_SPELLED_HOW = re.compile(
    r"[ \t]*\(?[ \t]*(?:all[ \t]+)?(?:lower[ \t-]?case|no[ \t]+spaces|one[ \t]+word|run[ \t]+together)", re.I
)


def _is_strong_password(m: re.Match[str]) -> bool:
    return strong_password(m["secret"])


def _is_quoted_phrase(m: re.Match[str]) -> bool:
    """Words in quotes after "passphrase is": two at least, with a digit, a capital or three words or more; or one
    word of six letters or more, quoted as the value (a code word an alarm company asks for: "la palabra clave es
    «gaviota»"), not one that says what the password is ("required", "hidden")."""
    words = m["secret"].split()
    text = m["secret"]
    if len(words) == 1:
        word = text.strip()
        return len(word) >= 6 and not placeholder(word) and not _NOT_A_PHRASE.fullmatch(word)
    return (
        len(words) >= 2
        and not placeholder(text.strip())
        and (any(c.isdigit() for c in text) or len(words) >= 3 or any(w[:1].isupper() for w in words[1:]))
    )


_NOT_A_PHRASE = re.compile(
    r"(?:not|too|the|a|an|in|on|at|your|my|our|their|no|none|empty|blank|required|optional|hidden|invalid|incorrect"
    r"|wrong|missing|expired|same|set|unset|changed|stored|saved|reset|disabled|enabled|correct)\b",
    re.I,
)


def _is_two_words(m: re.Match[str]) -> bool:
    """Two words in quotes said to be the password, not a state or a message ("not set", "too short"), nor the name
    of a password manager's vault ('in 1Password under the "Research Infra" vault')."""
    return (
        not _NOT_A_PHRASE.match(m["secret"])
        and not placeholder(m["secret"].replace(" ", "_"))
        and not _IN_A_MANAGER.search(m["keep"])
    )


_IN_A_MANAGER = re.compile(rf"{PASSWORD_MANAGER.pattern}|\bvault\b", re.I)


def _is_password_shaped(m: re.Match[str]) -> bool:
    """After "password" without a verb: letters and digits together ("tacobell2019"), a chosen password's shape."""
    value = m["secret"].rstrip(".,;:!?)")
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and chosen_password(value)


# A file's or a site's name is no user name: "notes.txt, Draft2", "example.com / Page2"
_A_FILE = re.compile(
    r"\.(?:txt|md|py|js|ts|json|ya?ml|csv|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|zip|html?|log|sh|ini|cfg|toml|com|org|net"
    r"|io|dev|app|co|de|fr|uk|eu|gov|edu)\b",
    re.I,
)
_A_NAME = re.compile(
    r"(?<![A-Za-z])(?:called|named|as|network|ssid|wi-?fi|join|label(?:l?ed)?|titled)[ \t]*[\"'“‘]$"
    # 'Wi-Fi for clients in the waiting room is "BrightLedger-Guest"': the network, named after "is"
    r"|(?<![A-Za-z])(?:network|ssid|wi-?fi|wlan|hotspot)\b(?:(?!pass|key|code|pin)[^\n\"“:=]){0,50}?"
    r"(?:[ \t]is|[:=])[ \t]*[\"'“‘]?$",  # quoted or not: "The guest Wi-Fi is LHS-Robotics-Guest and the password ..."
    re.I,
)


def _is_strong_before_the_word(m: re.Match[str]) -> bool:
    """A strong password's shape (lower and upper case, and a digit or a symbol), not a path, a URL or an address."""
    value = m["secret"].rstrip(".,;:!?")
    if re.search(PASSWORD_WORDS, value, re.I):  # "1Password", "KeePass2Android": a product, not a password
        return False
    if _A_NAME.search(m.string, max(0, m.start() - 80), m.start()):  # 'the network "CafeLuna-5G"', 'as "HP-Office3"'
        return False
    if _SETTING.match(value):  # "DATABASE_URL=postgres": a setting's name, then its value
        return False
    if _COMPOUND.fullmatch(value):  # "API-sleutel", "WLAN-Passwort": a word for a thing, an acronym first
        return False
    return strong_password(value) and not any(mark in value for mark in ("://", "@", "/")) and value.count(".") < 2


_SETTING = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*=")
# what a passphrase's words are not: where it is or what it is like ("is stored in the vault", "is the same")
_PHRASE_START = re.compile(
    r"(?:in|on|at|stored|saved|kept|written|same|not|never|also|still|now|just|too|very|long|short|secure|strong|weak"
    r"|changed|reset|required|somewhere|something|known|only|set|what|a|an|my|our|your)\b",
    re.I,
)
_DIGIT_GROUPS = re.compile(r"\d{2,4}(?:[-./]\d{2,4}){2,3}")
_A_DATE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")  # "that's 2025-06-30" is when, not what
_DESCRIBED = re.compile(r"\b(?:words?|characters?|letters?|digits?|long|diceware|random)\b", re.I)
_A_QUESTION = re.compile(
    r"\b(?:security|secret|test|memorable|challenge|verification|pickup|payout)[ \t]+question|maiden|first[ \t]+pet",
    re.I,
)
_NETWORK = re.compile(r"\b(?:router|wi-?fi|wlan|modem|hub|hotspot|network|box|tablet|ssid)\b", re.I)
# The words a field named for a network's key, a temporary password or what a bank asks holds
_FIELD_GATE = ("psk", "wifi", "wi-fi", "tmp", "temp", "passnumber", "pass_number", "pass-number", "memorable",
               "security_", "security-", "secret_", "secret-")  # fmt: skip
# who asks for a code word on the phone: an alarm's monitoring centre, a security firm, a bank
_ASKED_BY = re.compile(
    r"\b(?:alarm|monitoring|security|securitas|adt|verisure|patrol|bank|call[ \t]?cent(?:re|er)|operator|guards?)\b",
    re.I,
)
# a word for a thing: an acronym first ("API-sleutel", "WLAN-Passwort") or a letter ("e-Services", "i-Ready")
_COMPOUND = re.compile(r"[A-Z]{2,6}-[A-ZÄÖÜ]?[a-zäöüßéèà]{3,}|[a-z]{1,2}-[A-Z][a-z]{2,}")


def _is_strong_typed(m: re.Match[str]) -> bool:
    """A strong password's shape typed at a prompt, not a path, a URL, an address or a flag."""
    value = m["secret"].rstrip(".,;:!?")
    return strong_password(value) and not value.startswith("-") and not any(c in value for c in "/@:")


# What a thing is encrypted or unlocked with that is no password: a cipher, a tool, a body part.
_NOT_A_PASSWORD = re.compile(
    r"(?:aes|rsa|sha|chacha|xchacha|gpg|pgp|luks|tls|ssl|argon|bcrypt|scrypt|pbkdf|md5|ed25519|x25519|curve|des"
    r"|blowfish|twofish|serpent|camellia|ecdsa|dsa|p-?256|secp|hmac|blake|face|touch|finger|windows|bitlocker"
    r"|filevault|veracrypt|7-?zip|winrar|macos|ios|android|yubikey|fido|webauthn|passkey|kms|vault)",
    re.I,
)


def _is_chosen_unlock(m: re.Match[str]) -> bool:
    """What something is locked or unlocked with, a chosen password's shape and neither a cipher nor a tool."""
    value = m["secret"].rstrip(".,;:!?)")
    return (
        value[:1].isalnum()
        and chosen_password(value)
        and not _NOT_A_PASSWORD.match(value)
        and not any(c in value for c in "/@\\")
    )


def _is_network_key(m: re.Match[str]) -> bool:
    """A network's key: a chosen password, or words run together into a long one ("ninetyninebottlesofbeer")."""
    value = m["secret"].rstrip(".,;:!?)")
    return _is_chosen_unlock(m) or (len(value) >= 14 and value.isalpha() and value.islower())


def _is_strong_pair(m: re.Match[str]) -> bool:
    """The password of a "user / password" pair: a strong one, or a word run together with digits ("azulejo2023"),
    not a path, a unit, a date or a cipher."""
    value = m["secret"].rstrip(".,;:)")
    if any(c in value for c in "/@:") or _NOT_A_PASSWORD.match(value):
        return False
    return strong_password(value) or (_WORD_AND_DIGITS.search(value) is not None and chosen_password(value))


_WORD_AND_DIGITS = re.compile(r"[a-z]{4,}.*\d.*\d|\d.*\d.*[a-z]{4,}")


def _is_cli_password(m: re.Match[str]) -> bool:
    return not placeholder(m["secret"]) and not m["secret"].startswith(("$", "%"))


def _is_generated_value(m: re.Match[str]) -> bool:
    """After "the API key is": a value of 12+ characters that looks generated and holds a digit, not a name."""
    value = m["secret"].rstrip(".")
    return (
        len(value) >= 12
        and any(c.isdigit() for c in value)
        and looks_generated(value)
        and not placeholder(value)
        and not example(value)
        and not public_key(m.string, m.start("secret"))
    )


def _is_named_chosen(m: re.Match[str]) -> bool:
    """A chosen password after the word and a name ("mot de passe Freebox c'est ..."), not a link, an address or a
    product."""
    value = m["secret"].rstrip(".,;:!?)")
    if not all(word[:1].isupper() or word[:1].isdigit() for word in m["name"].split()):
        return False  # "password manager is 1Password": a noun the word qualifies, not a name
    if re.search(PASSWORD_WORDS, value, re.I):  # "1Password", "KeePass2Android": a product
        return False
    return chosen_password(value) and not any(mark in value for mark in ("://", "@", "/"))


def _is_session_value(m: re.Match[str]) -> bool:
    """A session cookie's or id's value: 16 characters at least, generated (letters and digits mixed), not a
    placeholder nor a documented example."""
    value = m["secret"].rstrip(".,;:")
    return len(value) >= 16 and looks_generated(value) and not placeholder(value) and not example(value)


def _is_an_answer(m: re.Match[str]) -> bool:
    """A security question's answer: a name or a word, not a placeholder nor a word saying there is none. What only
    a security question asks (a maiden name, "security answer") is one wherever it stands; a first pet, car or
    school only in a text about security questions or an account ("My first car was a red Fiat" is a memory)."""
    value = m["secret"].strip()
    if placeholder(value) or _NOT_AN_ANSWER.fullmatch(value):
        return False
    return bool(_ONLY_ASKED.search(m["keep"]) or _ABOUT_AN_ACCOUNT.search(m.string))


_ONLY_ASKED = re.compile(
    r"maiden|security|secret|memorable|verification|agreed|shared|\banswer|[ \t](?:A|Answer|Ans)[ \t]*[.:]"
    r"|grew[ \t]+up|childhood|m[äa]dchenname|jeune[ \t]+fille|soltera|solteira"
    r"|meisjesnaam|panie[ńn]skie|beveiliging|sicherheit|s[ée]curit|seguridad|sicurezza|seguran[çc]a|bezpiecze"
    r"|nubile|segret[ae]|secretas?",
    re.I,
)
_ABOUT_AN_ACCOUNT = re.compile(
    r"security[ \t]+(?:questions?|answers?)|secret[ \t]+questions?|verification[ \t]+questions?|recovery|account"
    r"|bank|log[ \t]?in|sign[ \t]?in|password|reset",
    re.I,
)


_NOT_AN_ANSWER = re.compile(r"(?:unknown|none|n/?a|not[ \t]+set|blank|empty|the[ \t]+same|same)", re.I)
# What a security question asks, by its subject: "mother's maiden name", "first pet", "street I grew up on".
_SECURITY_QUESTIONS = (
    r"(?:mother'?s?|mom'?s?|mum'?s?)[ \t]+maiden[ \t]+name|maiden[ \t]+name|(?:name[ \t]+of[ \t]+(?:my|your"
    r"|the)[ \t]+)?"
    r"first[ \t-]+(?:pet|dog|cat|car|school|teacher|job|employer|concert|boss)(?:'s)?(?:[ \t]+(?:name|one|called"
    r"|named))?"
    r"|(?:childhood|elementary|primary)[ \t]+(?:best[ \t]+friend|nickname|street|hero|school|home)"
    r"|street[ \t]+(?:i|you|he|she|they)[ \t]+grew[ \t]+up[ \t]+on|(?:city|town)[ \t]+(?:where[ \t]+)?"
    r"(?:i|you|he|she|they|my[ \t]+parents)[ \t]+(?:was|were)[ \t]+(?:born|married)(?:[ \t]+in)?"
    r"|(?:city|town|place)[ \t]+where[ \t]+(?:my|your|his|her|their)[ \t]+parents[ \t]+met"
    r"|favou?rite[ \t]+(?:teacher|childhood[ \t]+\w+)|security[ \t]+(?:answer|question)s?"
    r"|secret[ \t]+(?:answer|question)|memorable[ \t]+(?:answer|word|place|date)"
    r"|verification[ \t]+(?:phrase|word|answer)|(?:agreed|shared)[ \t]+(?:code[ \t]+word|passphrase|safe[ \t]+word)"
    # a maiden name in German, French, Spanish, Portuguese, Dutch and Polish
    r"|m[äa]dchenname|nom[ \t]+de[ \t]+jeune[ \t]+fille|apellido[ \t]+de[ \t]+soltera|nome[ \t]+de[ \t]+solteira"
    r"|meisjesnaam|nazwisko[ \t]+panie[ńn]skie|cognome[ \t]+da[ \t]+nubile"
    # a security question in Dutch, German, French, Spanish, Italian, Portuguese and Polish: "Het antwoord op de
    # beveiligingsvraag van de energieleverancier (naam eerste huisdier) is Snuffel"
    r"|beveiligingsvra(?:ag|gen)|sicherheitsfragen?|questions?[ \t]+(?:de[ \t]+)?s[ée]curit[ée]"
    r"|preguntas?[ \t]+de[ \t]+seguridad|domand[ae][ \t]+di[ \t]+sicurezza|perguntas?[ \t]+de[ \t]+seguran[çc]a"
    r"|pytani[ea][ \t]+bezpiecze[ńn]stwa"
    # and a secret question, as Italian, Spanish, Portuguese and French call it: "domanda segreta"
    r"|domand[ae][ \t]+segret[ae]|preguntas?[ \t]+secretas?|perguntas?[ \t]+secretas?"
)
# What follows each gate word in a match (`rules.Rule`): "first pet", "maiden name", "grew up on", "born".
_SECURITY_SIEVES = (
    ("maiden", r"maiden[ \t]+name"),
    ("first", r"first[ \t-]+(?:pet|dog|cat|car|school|teacher|job|employer|concert|boss)"),
    ("verification", r"verification[ \t]+(?:phrase|word|answer)"),
    ("agreed", r"agreed[ \t]+(?:code|pass|safe)"),
    ("shared", r"shared[ \t]+(?:code|pass|safe)"),
    *(
        (word, word + r"[ \t]+(?:best|nickname|street|hero|school|home)")
        for word in ("childhood", "elementary", "primary")
    ),
    ("grew", r"grew[ \t]+up[ \t]+on"),
    *((word, word + r"[ \t]+(?:teacher|childhood)") for word in ("favourite", "favorite")),
    ("security", r"security[ \t]+(?:answer|question)"),
    ("secret", r"secret[ \t]+(?:answer|question)"),
    ("memorable", r"memorable[ \t]+(?:answer|word|place|date)"),
    ("jeune", r"jeune[ \t]+fille"),
    ("panie", r"panie[ńn]skie"),
)
_SECURITY_GATE = ("maiden", "first", "childhood", "elementary", "primary", "grew", "born", "married", "favourite",
                  "favorite", "security", "secret", "memorable", "mädchenname", "madchenname", "jeune", "soltera",
                  "solteira", "meisjesnaam", "panie", "nubile", "segret", "secreta", "verification", "agreed", "shared",
                  "beveiligingsvra",
                  "sicherheitsfrage", "parents", "sécurité", "securite", "seguridad", "sicurezza", "segurança",
                  "seguranca", "bezpiecze")  # fmt: skip
_SESSION_NAMES = (
    r"(?:session|sess)[ \t_-]?(?:id|cookie|token|key)|sessionid|sessid|phpsessid|jsessionid|asp\.net_sessionid"
    r"|connect\.sid|(?:auth|login|session|remember[ _-]?me|sso)[ \t_-]?cookie|csrf[ \t_-]?token|xsrf[ \t_-]?token"
    r"|[a-z0-9]{1,12}_session(?:id)?"  # a framework's cookie: "xf_session=...", "laravel_session", "_gitlab_session"
)
_SESSION_GATE = ("session", "sessid", "cookie", "csrf", "xsrf", "connect.sid")
_WIFI_KEY = (  # the network's key, in English, German, French, Spanish, Italian, Portuguese, Dutch and Polish
    r"(?:(?:wi-?fi|wlan|wpa2?|network)[ \t]+key|(?:wlan|wi-?fi|netzwerk)-?schl[üu]ssel|cl[ée][ \t]+(?:du[ \t]+)?"
    r"(?:wi-?fi|r[ée]seau)|clave[ \t]+(?:del?[ \t]+(?:la[ \t]+)?)?(?:wi-?fi|red|router)"
    r"|chiave[ \t]+(?:del(?:la)?[ \t]+)?(?:wi-?fi|rete|router)|chave[ \t]+(?:d[oa][ \t]+)?(?:wi-?fi|rede|roteador)"
    r"|(?:wifi|netwerk)-?sleutel"
    r"|klucz[ \t]+(?:do[ \t]+)?(?:wi-?fi|sieci))"
)
# no sieve: rare words. "schlussel": the pattern takes "schl[üu]ssel", so its gate must open for both
_WIFI_KEY_GATE = ("clé", "clave", "chiave", "chave", "schlüssel", "schluessel", "schlussel", "sleutel", "klucz")
_TYPED_GATE = ("ssh", "sudo", "login", "prompt", "ask")
_WIFI_GATE = ("wifi", "wi-fi", "wlan", "wpa", "network")  # rarer in prose than "key", which every key name holds
_NETWORK_GATE = (*_WIFI_GATE, "ssid", "router", "hotspot")
# A login's name and password together ("credentials") in French, German, Spanish, Italian, Portuguese, Dutch,
# Swedish, Danish and Norwegian, Polish, Czech and Hungarian: what a "name / password" pair is said to be.
_CREDENTIALS_ABROAD = (
    r"identifiants?|(?:zugangs|anmelde|login)-?daten|credenciales|credenziali|credenciais|inloggegevens"
    r"|inloggningsuppgifter|loginoplysninger|innloggingsinfo|dane[ \t]+(?:do[ \t]+)?logowania|p[řr]ihla[šs]ovac[íi]"
    r"[ \t]+[úu]daje|bel[ée]p[ée]si[ \t]+adat(?:ok|ai)"
)
_CREDENTIALS_GATE = ("identifiant", "daten", "credencia", "credenzia", "inlogg", "loginoplys", "innlogging",
                     "logowania", "údaje", "udaje", "adatok", "adatai")  # fmt: skip
_PAIR_GATE = ("admin", "user", "account", "root", "owner", "login", "vpn", *_WIFI_GATE, "ssid", "hotspot", "router")
_LOCK_GATE = ("locked", "protected", "secured", "encrypted", "unlock", "opens", "opened", "decrypt",
              # the same in Portuguese, Spanish, Italian, French, German, Dutch and Polish: "o cofre abre com ..."
              "abre", "protegid", "protett", "protég", "proteg", "geschützt", "geschutzt", "gesichert", "verschl",
              "cifrad", "cifrat", "criptat", "versleuteld", "beveiligd", "zabezpieczon", "chronion")  # fmt: skip
_LOCK_WITH = r"(?:with|com|con|avec|par|mit|met|z)"

_STARTS = r"(?<![A-Za-z0-9])"  # a password word starts a word: not "1Password", the manager's name
PASSWORD_WORDS = (
    r"passwords?|passw(?:or)?d|passphrase|passcode|passwort|kennwort|mot de passe|mdp|contrase[ñn]a|senha"
    r"|clave[ \t]+de[ \t]+acceso"
    r"|parola d'ordine|wachtwoord|has[łl]o|[şs]ifre|пароль|парол[ья]|密码|密碼|口令|パスワード|비밀번호"
    # Czech and Slovak, Hungarian, the Balkans', Lithuanian, Estonian, Finnish, Nordic, Hebrew, Arabic, Hindi,
    # Vietnamese, Indonesian, Thai; and a code word, as an alarm company asks for one ("palabra clave", "Kennwort")
    r"|heslo|jelsz[oó]|lozink[aeu]|geslo|slapta[zž]od[iž]\w*|parool|salasana|adgangskoden?|passordet|passord"
    r"|l[öo]senordet|l[öo]senord|kodeordet"  # "the password" is a suffix in Danish, Norwegian and Swedish
    r"|סיסמ[הא]|كلمة[ \t]+(?:ال)?(?:مرور|سر)|पासवर्ड|m[ậa]t[ \t]+kh[ẩa]u|kata[ \t]+sandi|รหัสผ่าน|비번"
    r"|palabra[ \t]+clave|codeword|kodeord|palavra-passe|losungswort"
    # Japanese "pass" for a password, before "is" and not a path ("パス" is both)
    r"|パス(?=[ \t]*は[ \t]*(?![a-z]:\\)[^\s/\\~.])"
)
KEY_NAMES = (
    r"token|secret|(?:api|access|secret|private|priv|auth|service|account|db|database|client|signing|encryption"
    r"|master|licen[cs]e)[ _-]?key|apikey|client[ _-]?secret|auth[ _-]?token|access[ _-]?token"
)
_CONNECTOR = (
    r"(?:[ \t]*[:=][ \t]*|[ \t]*(?:是|为|為|は|는|은)[ \t]*"
    # "the passphrase is written as: ...", "is spelled ..." (before "is" alone, which would take "written")
    r"|[ \t]+(?:(?:is|was)[ \t]+(?:written|spelled|spelt|typed)(?:[ \t]+(?:as|like))?[ \t]*:?"
    r"|(?:is|was|are|ist|lautet|war|est|c'est|était|etait|es|era|é|è|er|är|jest|je|on|este|adalah|là|-)"
    # "is set to", never "is to 8-year-olds"
    r"(?:[ \t]+(?:now|still|set|changed|reset|updated|jetzt|nun|maintenant|ahora|agora|ora))?"
    r"(?:(?<=set|ged|ted)[ \t]+to)?"
    r"|(?:changed|set|reset|updated)[ \t]+to)[ \t]+)"
)
# What may stand between "password" and "is": a phrase saying whose password it is ("for the staging DB", "on the
# NAS"), never a noun the password word qualifies ("password manager is 1Password": the manager is 1Password).
_FILLER = (
    r"(?:[ \t]+(?:for|of|on|to|at|in|from|by|under|behind|inside|für|fur|vom|von|zum|zu|bei|im|am|beim"
    r"|pour|de|du|des|au|aux|para|al|ao|do|da|dos|das|del|per|di"
    r"|della|dello|van|voor|för|til|av|на|для|от|k|ke|ku|za|na|do|pro|till|på|untuk|a|az|için|icin"
    r"|i|w|hos|ved|bij)"  # "in" and "at" in the Nordic languages, Czech, Polish and Dutch: "lösenordet i stugan är"
    r"(?:[ \t]+[^\s:=]{1,24}(?![^\s:=])){1,8}?"  # whole words
    # (or more of them, up to a colon: "Password for the shared Dropbox folder with the flood photos from Cardigan:")
    r"|[ \t]+(?:for|of|on|to|at|in|from|by)(?:[ \t]+[^\s:=]{1,24}(?![^\s:=])){9,14}?(?=[ \t]*:)"
    # or an elided article, Italian and French: "la password dell'utente deploy su Bitbucket è ...", "de l'ENT est"
    r"|[ \t]+(?:dell|dall|all|nell|sull|de[ \t]+l|d)['’][^\s:=]{1,24}(?:[ \t]+[^\s:=]{1,24}(?![^\s:=])){0,6}?"
    # or a word or two of letters before a colon, "Kata sandi email kantor:" (not what a key has: "key fingerprint:")
    r"|(?:[ \t]+(?!(?:fingerprint|hash|digest|id|name|prefix|length|format|type|file|path|size|rotation|policy)\b)"
    r"[^\W\d_]{1,24}){1,2}(?=[ \t]*[:=]|[ \t]+là[ \t])"  # and before Vietnamese "là": "Mật khẩu wifi là ..."
    # or Vietnamese words up to "là", whose the password is: "Mật khẩu cổng thông tin sinh viên của em là ..."
    r"|(?:[ \t]+[^\s:=]{1,12}){1,8}?(?=[ \t]+là[ \t]))?"
    # and an aside between dashes: "the password for the org account — which Jess set up at 3am ... — is ..."
    # (the folded view's dashes are hyphens), in brackets, or after a comma: "..., which Ingrid set up in 2019, is"
    r"(?:[ \t]+[—–-][ \t][^\n]{1,240}?[ \t][—–-]|[ \t]+\([^()\n]{1,240}\)|,?[ \t]+(?:which|who)\b[^\n]{1,240}?,)?"
)
_ASSIGNMENT = r"[\"']?[ \t]*[:=]>?[ \t]*[\"']?)(?P<secret>[^\s\"'`,;)\]}>]{4,})"
# A phrase in quotes of any kind (the folded view has made typographic ones straight), ending where a quote does.
_OPEN = "[\"'`«‹]"
_QUOTED = "(?P<secret>[^\"'`«»‹›\n]{6,60})(?=[\"'`»›])"
# a value ends at a space, a quote, a comma, a bracket, or kana and ideographs (a Japanese or Chinese sentence goes on)
_VALUE = r"(?P<secret>[^\s\"'`,;)\]}>「」『』【】。、\u3040-\u30ff\u3400-\u9fff]"
_PASSWORD_GATE = (
    "pass", "mdp", "contrase", "senha", "clave", "parola", "wachtwoord", "hasło", "haslo", "şifre", "sifre", "kennwort",
    "пароль", "парол", "密码", "密碼", "口令", "パスワード", "비밀번호", "heslo", "jelsz", "lozink", "geslo", "slapta",
    "parool", "salasana", "adgangskode", "senord", "סיסמ", "كلمة", "पासवर्ड", "khẩu", "khau", "sandi", "รหัสผ่าน",
    "palabra", "codeword", "kodeord", "palavra-passe", "losungswort", "비번", "パス",
)  # fmt: skip
_KEY_GATE = ("token", "secret", "key")
# Sieves (`rules.Rule`): what follows a common gate word in a match. Every password word holding "pass" has up to six
# letters after it ("passphrase", "mot de passe"), and every key name ends in a word of `_KEY_GATE`.
_PASS_WORD = "pass[a-z]{0,6}"
_ASSIGNED = r"[\"']?[ \t]*[:=]"
_LOGIN_SIEVE = (
    r"[^\n]{0,25}?(?:[ \t]+(?:is|are|sont|sind|son|sono|zijn|är|er|to|jsou)|[ \t]*[:=])[ \t]+[^\s/:]{1,64}[ \t]*[/:]"
)

# A ~/.pgpass line, host:port:database:user:password: the password is the last field ("\\:" escapes a colon in
# one). A "*" or a placeholder there is no password ("localhost:5432:*:postgres:*" is a template).
_PGPASS_FIELD = r"(?:[^\s:\\]|\\.)+"
_PGPASS_HOST = r"(?<![\w.:*@/-])[A-Za-z0-9.*_-]+"
_PGPASS_GATE = ("pgpass", "passfile")


def _pgpass_line(port: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?P<keep>{_PGPASS_HOST}:{port}:{_PGPASS_FIELD}:{_PGPASS_FIELD}:)(?P<secret>{_PGPASS_FIELD})(?![^\s])"
    )


def _is_pgpass_password(m: re.Match[str]) -> bool:
    value = m["secret"]
    return value != "*" and not placeholder(value) and "[redacted" not in value and not example(value)


PGPASS: tuple[Rule, ...] = (
    # certain where the text names the file ("pgpass entry for staging: db.lan:5432:billing:admin:..."): then any
    # port, or "*", and every line of the file
    Rule("a password", _pgpass_line(r"(?:\d{1,5}|\*)"), _is_pgpass_password, gate=_PGPASS_GATE),
    # held where only PostgreSQL's port says what the five fields are
    Rule("a password", _pgpass_line("5432"), _is_pgpass_password, gate=(":5432:",), suspect=True),
)

NAMED: tuple[Rule, ...] = (
    Rule(
        "a password on a command line",
        re.compile(
            r"(?P<keep>\b(?:mysql(?:dump|admin)?|mariadb|sshpass)\b[^\n]{0,80}?[ \t]-p)(?P<secret>[^\s-]\S{3,})"
        ),
        _is_cli_password,
        gate=("mysql", "mariadb", "sshpass"),
    ),
    Rule(
        "a password on a command line",
        re.compile(
            r"(?P<keep>\bcurl\b[^\n]{0,80}?[ \t](?:-u|--user)[ \t]+[\"']?[^\s:\"']{1,64}:"
            r"|(?<![\w-])--pass(?:word)?[ \t]+[\"']?)(?P<secret>[^\s\"']{4,})"
        ),
        _is_cli_password,
        gate=("curl", "--pass"),
        sieves=(("curl", r"curl[^\n]{0,80}?[ \t](?:-u|--user)[ \t]"),),
    ),
    Rule(  # "login is admin / Sunflower!88", "Les identifiants Pronote de Léo : leo.martin7 / Girafe2015!"
        "a password",
        re.compile(
            rf"(?P<keep>\b(?:login|credentials?|creds|{_CREDENTIALS_ABROAD})\b[^\n]{{0,24}}?"
            r"(?:[ \t]+(?:is|are|sont|sind|son|sono|zijn|är|er|to|jsou)|[ \t]*[:=])[ \t]+"
            r"[^\s/:]{1,64}[ \t]*[/:][ \t]*)(?P<secret>\S{4,64})",
            re.I,
        ),
        _is_chosen_password,
        gate=("login", "credential", "creds", *_CREDENTIALS_GATE),
        sieves=tuple((word, word + _LOGIN_SIEVE) for word in ("login", "credential", "creds")),
    ),
    Rule(
        "a password",
        re.compile(rf"(?P<keep>(?:{PASSWORD_WORDS}|(?<![A-Za-z])(?:pass|pwd?))" + _ASSIGNMENT, re.I),
        _is_literal,
        gate=(*_PASSWORD_GATE, "pw"),
        sieves=(("pass", _PASS_WORD + _ASSIGNED), ("pw", "pwd?" + _ASSIGNED)),
    ),
    Rule(  # "my password is hunter2", "the root password on the NAS was changed to ...", "Pw for the panel: ..."
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}|pw|pwd|{_WIFI_KEY}){_FILLER}{_CONNECTOR}"
            rf"(?:[\"'`「『]|«[ \t]?)?)"
            rf"{_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=(*_PASSWORD_GATE, "pw", *_WIFI_GATE, *_WIFI_KEY_GATE),
        sieves=(
            ("pass", _PASS_WORD + r"[ \t:=是为為は는은]"),
            ("pw", r"pwd?[ \t:=是为為は는은]"),
            *((word, re.escape(word) + r"[ \t]+key") for word in _WIFI_GATE),
        ),
    ),
    Rule(  # "The SNMP community string on all of Meridian's switches is m3r1d1an_rw": a network device's password
        "a password",
        re.compile(
            r"(?P<keep>\b(?:snmp(?:v[12]c?)?[ \t]+(?:[a-z-]+[ \t]+)?community(?:[ \t]+strings?)?"
            r"|community[ \t]+strings?)"
            rf"{_FILLER}{_CONNECTOR}[\"'`]?){_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=("community",),
    ),
    Rule(  # "hasło do wifi to Pierogi2020", "moje hasło jest ...": Polish says "is" with "to" too, and "for" with "do"
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])has[łl]o(?:[ \t]+(?:do|dla|od|na|w|z)(?:[ \t]+[^\s:=]{1,24}){1,3}?)?"
            rf"[ \t]+(?:to|jest)(?:[ \t]+(?:teraz|nadal))?[ \t]+[\"'`]?){_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=("hasło", "haslo"),
    ),
    Rule(  # "e-Devlet şifrem Lale.Bahçe.1923", "modem şifresi: ...": Turkish says whose password with a suffix, no "is"
        "a password",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])[şs]ifre(?:m|miz|si|niz|n)(?:[ \t]+(?:de|da))?[ \t]*[:=]?[ \t]+[\"'`]?)"
            rf"{_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=("şifre", "sifre"),
    ),
    Rule(  # "az Ügyfélkapu jelszavam pedig Pogacsa_2024", "salasanani: ...": Hungarian and Finnish say whose password
        # with a suffix ("my password": "jelszavam", "salasanani") and need no "is"
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:jelszav(?:am|ad|a|unk|uk|atok)|salasana(?:ni|si|mme|nne|nsa))"
            rf"(?:[ \t]+(?:pedig|is|most|meg|on|oli|nyt))?[ \t]*[:=]?[ \t]+[\"'`]?){_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=("jelszav", "salasana"),
    ),
    Rule(  # "I changed the Spotify password to Lantern-Quarry-88": the verb before the word, "to" after it
        "a password",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])(?:changed|changing|set|setting|reset|resetting|updated|switched)[ \t]+"
            rf"(?:[^\s]{{1,24}}[ \t]+){{0,4}}?(?:{PASSWORD_WORDS}|pw|pin|{_WIFI_KEY})[ \t]+to[ \t]+[\"'`]?)"
            rf"{_VALUE}{{4,64}})",
            re.I,
        ),
        _is_chosen_password,
        gate=(*_PASSWORD_GATE, "pw", "pin", "key", *_WIFI_KEY_GATE),
        sieves=(
            ("pass", _PASS_WORD + r"[ \t]+to[ \t]"),
            ("pw", r"pw[ \t]+to[ \t]"),
            ("pin", r"pin[ \t]+to[ \t]"),
            ("key", r"key[ \t]+to[ \t]"),
        ),  # fmt: skip
    ),
    Rule(  # "ssh root@host and when it asks, type Qw7#rTz9pL", "sudo asks for Br1ght!Lamp9": a strong value typed in
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:ssh|sudo|login|prompts?|asks?)(?![A-Za-z])"
            r"[^\n]{0,80}?(?<![A-Za-z])(?:enter|type|asks?[ \t]+for|prompts?[ \t]+for)[ \t]+[\"'`]?)"
            r"(?P<secret>[^\s\"'`,;)]{8,40})"
        ),
        _is_strong_typed,
        gate=_TYPED_GATE,
        sieves=tuple((word, word + r"[^\n]{0,80}?(?:enter|type|for)[ \t]") for word in _TYPED_GATE),
        suspect=True,
    ),
    Rule(  # 'the wifi passphrase is "Blue Harbor Lights 1987"', "the GPG passphrase is 'tangerine dreams 42'"
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}|(?:wi-?fi|wlan|network)[ \t]+key){_FILLER}{_CONNECTOR}{_OPEN})"
            rf"{_QUOTED}",
            re.I,
        ),
        _is_quoted_phrase,
        gate=(*_PASSWORD_GATE, "key"),
        sieves=(("pass", _PASS_WORD + r"[ \t:=是为為は]"), ("key", r"key[ \t:=是为為は]")),
    ),
    Rule(  # 'the verbal password is "blue heron"': two plain words, only suspect ("password is "not set"")
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}){_FILLER}{_CONNECTOR}{_OPEN})(?P<secret>[A-Za-z]{{3,20}}"
            r"[ \t][A-Za-z]{3,20})(?=[\"'`»›])",
            re.I,
        ),
        _is_two_words,
        gate=_PASSWORD_GATE,
        sieves=(("pass", _PASS_WORD + r"[ \t:=是为為は]"),),
        suspect=True,
    ),
    Rule(  # 'with the passphrase "four blue kites over Oslo"', "using the password `march hare tea party`"
        "a password",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])(?:with|using|via)[ \t]+(?:(?:the|my|his|her|our|their|its|a)[ \t]+)?"
            rf"(?:[A-Za-z-]{{1,20}}[ \t]+)?(?:{PASSWORD_WORDS}|pw)[ \t]*[:=]?[ \t]*{_OPEN}){_QUOTED}",
            re.I,
        ),
        _is_quoted_phrase,
        gate=_PASSWORD_GATE + ("pw",),
        sieves=(("pass", _PASS_WORD + r"[ \t:=]*[\"'`«‹]"), ("pw", r"pw[ \t:=]*[\"'`«‹]")),
    ),
    *(
        Rule(  # "the zip opens with oakbarrel1999", 'the drive is protected with the word "Marzipan42"'
            "a password",
            re.compile(
                r"(?P<keep>(?<![A-Za-z])(?:locked|protected|secured|encrypted|unlocks?|unlocked|opens|opened|decrypts?"
                r"|decrypted|abrem?|protegid[oa]s?|protett[oaie]|prot[eé]g[eé]e?s?|gesch[uü]tzt|gesichert|verschl[uü]sselt"
                r"|cifrad[oa]s?|cifrat[oaie]|criptat[oaie]|versleuteld|beveiligd|zabezpieczon\w*|chronion\w*)"
                rf"(?:[ \t]+[^\s]{{1,24}}){{0,5}}?[ \t]+{_LOCK_WITH}[ \t]+"
                r"(?:(?:the|a|my|its|this|o|a|la|el|il|le|das|den|een)[ \t]+)?"
                r"(?:(?:word|phrase|password|passphrase|passcode|pass|key|pin|code|senha|contrase[ñn]a|mot[ \t]+de"
                r"[ \t]+passe|passwort|wachtwoord)[ \t]+)?[:=]?[ \t]*" + opening + ")" + value,
                re.I,
            ),
            check,
            gate=_LOCK_GATE,
            sieves=tuple((word, word + rf"[^\n]{{0,150}}?[ \t]{_LOCK_WITH}[ \t]") for word in _LOCK_GATE),
        )
        for opening, value, check in (
            (_OPEN, _QUOTED, _is_quoted_phrase),
            (f"{_OPEN}?", _VALUE + "{4,64})", _is_network_key),
        )
    ),
    *(
        Rule(  # "network Heron, key 'moss and lichen 77'", "on the office network use the key Wh1teRabbit!9"
            "a password",
            re.compile(
                r"(?P<keep>(?<![A-Za-z])(?:wi-?fi|wlan|ssid|network|router|hotspot)(?![A-Za-z])[^\n.;!?]{0,60}?"
                r"(?<![\w\\])(?:the[ \t]+)?(?:key|pass|passcode|pw|pwd|psk)"
                r"(?:[ \t]+(?:is|was)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)" + opening + ")" + value,
                re.I,
            ),
            check,
            gate=_NETWORK_GATE,
            sieves=tuple((word, word + r"[^\n.;!?]{0,60}?(?:the[ \t]+)?(?:key|pass|pw|psk)") for word in _NETWORK_GATE),
        )
        for opening, value, check in (
            (_OPEN, _QUOTED, _is_quoted_phrase),
            (f"{_OPEN}?", _VALUE + "{4,64})", _is_network_key),
        )
    ),
    Rule(  # "the Plex server admin is ana / Lighthouse-Keeper-19", "Office printer: Admin / Xerox2Fast!"
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:(?:admin(?:istrator)?|user(?:name)?|account|root|owner|login|vpn|wi-?fi|wlan|ssid"
            r"|network|hotspot|router)(?![A-Za-z])[^\n]{0,40}?(?:[ \t]+(?:is|are)[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)"
            r"(?:\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'|[^\s/:]{1,40})|(?:admin(?:istrator)?|root)(?![A-Za-z]))"
            r"[ \t]+/[ \t]+)(?P<secret>\S{6,64})",
            re.I,
        ),
        _is_strong_pair,
        gate=_PAIR_GATE,
        sieves=tuple((word, word + r"[^\n]{0,100}?[ \t]/[ \t]") for word in _PAIR_GATE),
    ),
    Rule(  # "logs in with jira-bot / NtY7#kLp9vQz"
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:logs|logged|signs|signed)[ \t]+in[ \t]+(?:with|as|using)[ \t]+"
            r"[^\s/:]{1,64}[ \t]*[/:][ \t]*)(?P<secret>\S{4,64})",
            re.I,
        ),
        _is_chosen_password,
        gate=("logs", "logged", "signs", "signed"),
        sieves=tuple(
            (word, word + r"[ \t]+in[ \t]+(?:with|as|using)[ \t]") for word in ("logs", "logged", "signs", "signed")
        ),
    ),
    Rule(  # "Pour Grafana je me connecte avec admin et soleil-de-minuit-42": a login and its password, said
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:(?:je[ \t]+me|on[ \t]+se|il[ \t]+se|elle[ \t]+se)[ \t]+connecte|(?:me"
            r"|se)[ \t]+conect[oa]"
            r"|(?:mi|si)[ \t]+colleg[oa]|(?:eu[ \t]+)?entro|(?:logs?|logged|signs?|signed)[ \t]+in)[ \t]+"
            r"(?:avec|con|com|with|using|as)[ \t]+[^\s/:]{1,64}[ \t]+(?:et|y|e|and|en)[ \t]+"
            r"(?:(?:le|el|il|the|o|a)[ \t]+)?(?:(?:mot[ \t]+de[ \t]+passe|password|contrase[ñn]a|senha)[ \t]+)?)"
            r"(?P<secret>[^\s,;]{6,64})",
            re.I,
        ),
        _is_chosen_password,
        gate=("connecte", "conect", "colleg", "entro", "log", "sign"),
        sieves=(
            ("connecte", r"connecte[ \t]+(?:avec|con|com|with|using|as)[ \t]"),
            ("conect", r"conect[oa][ \t]+(?:avec|con|com|with|using|as)[ \t]"),
            ("colleg", r"colleg[oa][ \t]+(?:avec|con|com|with|using|as)[ \t]"),
            ("entro", r"entro[ \t]+(?:avec|con|com|with|using|as)[ \t]"),
            ("log", r"log(?:s|ged)?[ \t]+in[ \t]"),
            ("sign", r"sign(?:s|ed)?[ \t]+in[ \t]"),
        ),
        suspect=True,
    ),
    Rule(  # "Für ELSTER melde ich mich mit Sonnenblume_1983! an": a German login, the password before "an"
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:melde|logge)[ \t]+(?:ich[ \t]+)?mich[ \t]+(?:[^\n]{0,30}?[ \t])?mit[ \t]+"
            r"(?:(?:dem[ \t]+)?(?:passwort|kennwort)[ \t]+)?)(?P<secret>[^\s,;]{6,64})(?=[ \t]+(?:an|ein)\b)",
            re.I,
        ),
        _is_chosen_password,
        gate=("melde", "logge"),
        sieves=(("melde", r"melde[ \t]+(?:ich[ \t]+)?mich"), ("logge", r"logge[ \t]+(?:ich[ \t]+)?mich")),
        suspect=True,
    ),
    Rule(  # "the Moodle one is spelled h-u-m-b-o-l-d-t-1-8-1-0": a password spelled a character at a time
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:spelled|spelt|spells|buchstabiert|deletread[oa]|[ée]pel[ée]e?|compitat[oa])"
            r"(?:[ \t]+(?:out|as|like))?[ \t]*:?[ \t]+)(?P<secret>[A-Za-z0-9](?:[ \t]*[-.][ \t]*[A-Za-z0-9]"
            r"|[ \t][A-Za-z0-9])"
            r"{5,40})(?![A-Za-z0-9])",
            re.I,
        ),
        lambda m: any(c.isdigit() for c in m["secret"]) and any(c.isalpha() for c in m["secret"]),
        gate=("spel", "buchstabiert", "deletrea", "pel", "compitat"),
        min_digits=1,
        suspect=True,
    ),
    Rule(  # "Cambié la clave del correo del trabajo el lunes: ahora es faro-Cadiz_88": changed, and what it is now
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}|clave|login|admin)[^\n]{{0,60}}?[ \t,:;(]+"
            r"(?:(?:now|ahora|agora|adesso|ora|maintenant|jetzt|nu|teraz)[ \t,]+(?:it'?s|it[ \t]+is|is|es|é|è|c'est"
            r"|ist(?:[ \t]+es)?|het[ \t]+is|is[ \t]+het|jest|to)"
            # or "it's now ...": "Router admin ... is no longer the sticker one, it's now 7hT9-qWm2-Lp4z"
            r"|it'?s[ \t]+now|es[ \t]+ahora|c'est[ \t]+maintenant|ist[ \t]+jetzt)[ \t:]+[\"'“]?)" + _VALUE + "{6,40})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and not placeholder(m["secret"].rstrip(".,")),
        gate=(*_PASSWORD_GATE, "login", "admin"),
        suspect=True,
    ),
    Rule(  # "the sticker on the bottom says Fh3k-9Ldq-XpR7": a router's printed key, read off its label; or what a
        # sticky note holds ("the thing on her sticky note is Molar_Smile_88")
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?P<where>sticker|label|sticky[ \t]+note|post-?it)[^\n.]{0,40}?[ \t]+"
            r"(?:says|reads|shows|has|is)[ \t]*:?[ \t]+[\"'“]?)(?P<secret>[^\s,;\"'”]{8,40})",
            re.I,
        ),
        lambda m: (
            strong_password(m["secret"])
            and (m["where"].lower().startswith(("sticky", "post")) or _NETWORK.search(m.string) is not None)
        ),
        gate=("sticker", "label", "sticky", "post-it", "postit"),
        sieves=tuple(
            (w, w + r"[^\n.]*?[ \t](?:says|reads|shows|has|is)\b")
            for w in ("sticker", "label", "sticky", "post-it", "postit")
        ),
        suspect=True,
    ),
    Rule(  # "A rede da casa da praia pede maresalgada2021": what a network asks for
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:rede|wi-?fi|wlan|network|router|r[ée]seau|red|netwerk|netz)\b[^\n.]{0,50}?[ \t]"
            r"(?:pede|asks[ \t]+for|wants|demande|pide|chiede|verlangt"
            r"|vraagt[ \t]+om)[ \t]+[\"'“]?)(?=[^\s,;\"'”]*[0-9])(?P<secret>[^\s,;\"'”]{6,64})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and any(c.isdigit() for c in m["secret"]),
        gate=("pede", "asks", "wants", "demande", "pide", "chiede", "verlangt", "vraagt"),
        min_digits=1,
        suspect=True,
    ),
    Rule(  # 'what opens Bitwarden: "pony orbit lantern 58 Ghent"': what unlocks a vault or a device, given
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:what|the[ \t]+(?:phrase|words?|thing))[ \t]+(?:opens|unlocks"
            r"|gets[ \t]+(?:me[ \t]+)?into)"
            r"[ \t]+[^\n:]{1,40}?[ \t]*:[ \t]*[\"'“]?)(?P<secret>[^\n\"'”]{4,60}?)(?=[\"'”]|[,.;]?[ \t]*(?:$|\n)"
            r"|,[ \t])",
            re.I,
        ),
        lambda m: not placeholder(m["secret"]) and (chosen_password(m["secret"]) or len(m["secret"].split()) >= 3),
        gate=("opens", "unlocks", "into"),
        sieves=tuple((w, w + r"[ \t]+[^\n:]{1,40}?:") for w in ("opens", "unlocks", "into")),
        suspect=True,
    ),
    Rule(  # "getting into my Apple ID: the hotmail address and Boavista1120": a login named, then its password
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:getting|get|logging|log|signing|sign)[ \t]+in(?:to)?[ \t]+[^\n:]{1,40}:[ \t]*"
            r"[^\n]{0,40}?[ \t]+and[ \t]+)(?=[^\s,;()]*[0-9])(?P<secret>[^\s,;()]{6,40})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and any(c.isdigit() for c in m["secret"]) and "@" not in m["secret"],
        gate=("getting", "get", "logging", "log", "signing", "sign"),
        min_digits=1,
        sieves=tuple((w, w + r"[ \t]+in") for w in ("getting", "get", "logging", "log", "signing", "sign")),
        suspect=True,
    ),
    Rule(  # "my vault master phrase: copper lantern drifts over seven quiet hills": a passphrase of plain words
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:(?:pass|master|vault|secret|backup|unlock)[ \t-]?phrase|master[ \t]+password)"
            r"[^\n:;]{0,80}?(?:[ \t]*:"
            r"|[ \t]+is)"
            r"[ \t]+)(?P<secret>[a-z0-9]+(?:[ \t]+[a-z0-9]+){2,9})(?=[ \t]*(?:[.,;!)—–-]|$))",
            re.I,
        ),
        lambda m: (
            _PHRASE_START.match(m["secret"]) is None
            and _DESCRIBED.search(m["secret"]) is None
            and (len(m["secret"].split()) >= 4 or any(c.isdigit() for c in m["secret"]))
        ),
        gate=("phrase", "master"),
        sieves=(
            ("phrase", r"phrase[^\n:]{0,80}?(?:[ \t]*:|[ \t]+is)"),
            ("master", r"master[ \t]+password[^\n:]{0,80}?(?:[ \t]*:|[ \t]+is)"),
        ),
        suspect=True,
    ),
    Rule(  # "the security word on our account is marigold-lantern": a word agreed with a bank, a school, a venue
        "a security answer",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:security|secret|safe|code|memorable|verification|password)[ \t-]?word"
            # (whose, or when it is asked for: "her security word when she rings up to authorise ... is")
            r"(?:[ \t]+(?:on|for|with|at|of|when|if|whenever)[ \t]+[^\n:=]{1,70}?)?(?:[ \t]*[:=]|[ \t]+is)[ \t]+"
            r"[\"'“]?)"
            r"(?P<secret>[a-z]{3,20}(?:-[a-z]{3,20}){0,3})(?![\w-])",
            re.I,
        ),
        lambda m: (
            _PHRASE_START.fullmatch(m["secret"]) is None
            and not placeholder(m["secret"])
            and not _NOT_AN_ANSWER.fullmatch(m["secret"])
            and m["secret"].lower()
            not in ("written", "printed", "required", "needed", "different", "changed", "secret")
        ),
        gate=("word",),
        sieves=(("word", r"word[^\n:=]{0,80}?(?:[ \t]*[:=]|[ \t]+is)[ \t]+[\"'“]?[a-z]{3}"),),
        suspect=True,
    ),
    Rule(  # "Western Union cash pickup test question: name of the dog back in Bohol. Answer: Bantay"
        "a security answer",
        re.compile(
            r"(?P<keep>(?:^|(?<=[.;\n])|(?<=[.;][ \t]))[ \t]*(?i:answer)[ \t]*[:=-][ \t]*[\"'“]?)"
            r"(?P<secret>[A-Z][\w'-]{2,30}(?:[ \t]+[A-Z][\w'-]{1,30}){0,2})"
        ),
        lambda m: _A_QUESTION.search(m.string) is not None,
        gate=("answer",),
        sieves=(("answer", r"answer[ \t]*[:=-]"),),
        suspect=True,
    ),
    Rule(  # "Mullvad account number: 7294 0183 6652 1047": a VPN whose account number is the whole login
        "a login number",
        re.compile(
            r"(?P<keep>(?<![a-z])mullvad(?:[ \t]+vpn)?[ \t]+account(?:[ \t]+(?:number|no\.?"
            r"|id))?(?:[ \t]*\([^)\n]{0,80}\))?"
            r"[ \t]*(?:[:=]|is)?[ \t]*)(?P<secret>[0-9]{4}(?:[ ]?[0-9]{4}){3})(?![0-9])",
            re.I,
        ),
        gate=("mullvad",),
    ),
    Rule(  # "WIFI:T:WPA;S:Lindqvist-5G;P:fika-med-kanelbulle!;;": a network's QR code, its password after "P:"
        "a password",
        re.compile(r"(?P<keep>wifi:(?:[^;\n]*;)*?p:)(?P<secret>(?:[^;\\\n]|\\.)+)", re.I),  # (lower case: `finditer`)
        lambda m: not placeholder(m["secret"]),
        gate=("wifi",),
        sieves=(("wifi", "wifi:"),),
    ),
    Rule(  # "Deliveroo restaurant hub is orders@thecurryleaf.co.uk and Korma4Life": an address, then its password
        "a password",
        re.compile(
            r"(?P<keep>[\w.+-]+@[\w-]+(?:\.[\w-]+)+[ \t]+(?:and|und|et|y|e|en|/)[ \t]+"
            r"(?:(?:the[ \t]+)?(?:password|pw|pass)[ \t]+)?)(?=[^\s,;()]*[0-9])(?P<secret>[^\s,;()]{6,40})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and any(c.isdigit() for c in m["secret"]) and "@" not in m["secret"],
        gate=("@",),
        min_digits=1,
        suspect=True,
    ),
    Rule(  # "La box Freebox : e7x4-trombone-91": a French internet box and its key
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:la[ \t]+(?:(?:free|live|b|sfr[ \t]*)?box)|(?:free|live|b)box)(?:[ \t]+\w+)?"
            r"[ \t]*:[ \t]*)(?=[^\s,;]*[0-9])(?P<secret>[^\s,;]{6,40})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and any(c.isdigit() for c in m["secret"]),
        gate=("box",),
        min_digits=1,
        suspect=True,
    ),
    Rule(  # '{"ssid": "Bakkerij_Gast", "psk": "krentenbol2023!"}', '"temporary_login":"Brisk!Otter-0417"': a field
        # named for a network's key or a temporary password, in JSON or YAML
        "a password",
        re.compile(
            r"(?P<keep>[\"']?(?<![a-z])(?:(?:wpa2?[_-]?)?psk|wi-?fi[_-]?(?:key|pass(?:word)?)|te?mp(?:orary)?[_-]?"
            r"(?:login|pass(?:word)?|pw)"
            # or what a bank asks besides the password: '"passnumber":"583920"', '"memorable_word":"Biscuit"'
            r"|pass[_-]?number|memorable[_-]?(?:word|info\w*|name|date)|(?:security|secret)[_-]?(?:word|answer))"
            r"[\"']?[ \t]*:[ \t]*[\"'])(?P<secret>[^\"'\n]{4,80})(?=[\"'])",
            re.I,
        ),
        lambda m: not placeholder(m["secret"]),
        gate=_FIELD_GATE,
        sieves=tuple((w, w + r"[^\n:]*:[ \t]*[\"']") for w in _FIELD_GATE),
    ),
    Rule(  # '"backup_codes": ["4821 9930", "1177 0462", ...]': a list of codes, named as such, masked whole
        "a recovery code",
        re.compile(
            r"(?P<keep>[\"']?(?<![a-z])(?:backup|recovery|scratch|one[_-]?time|2fa|mfa)[_-]?codes[\"']?[ \t]*:[ \t]*)"
            r"(?P<secret>\[[^\]\n]{4,600}\])",
            re.I,
        ),
        lambda m: any(c.isdigit() for c in m["secret"]),
        gate=("codes",),
        sieves=(("codes", r"codes[\"']?[ \t]*:[ \t]*\["),),
    ),
    Rule(  # "Gmail app password: qzvx tplm wrbn kdse": four groups of four letters
        "an app password",
        re.compile(
            r"(?P<keep>(?<![a-z])app(?:lication)?[ \t-]?(?:specific[ \t-])?passwords?[^\n]{0,100}?)"
            r"(?P<secret>(?<![a-z])[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4}"  # and any more on the line
            r"(?:[^\n]{0,40}?(?<![a-z])[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4})*)(?![a-z])"
        ),
        gate=("pass",),  # a word the other password rules look for already: no more words to look for in every text
        sieves=(("pass", r"passwords?[^\n]{0,100}?[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4}[ \t]?[a-z]{4}"),),
    ),
    Rule(  # "Mon mot de passe Freebox c'est soleil-de-minuit-42": a name after the word, then "is"; only suspect
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS})(?P<name>(?:[ \t]+[^\s:=\"'`]{{1,24}}){{1,2}}?)[ \t]+(?:c'est"
            rf"|c’est|ist"
            rf"|lautet|est|es|è|é|is|was)[ \t]+[\"'`«]?){_VALUE}{{4,64}})",
            re.I,
        ),
        _is_named_chosen,
        gate=_PASSWORD_GATE,
        sieves=(("pass", _PASS_WORD + r"[ \t]"),),
        suspect=True,
    ),
    Rule(  # "my sessionid cookie for the wiki is c1zdvrcd...", "PHPSESSID=...": a session's value logs anyone in
        "a session cookie",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])(?:{_SESSION_NAMES})(?:[ \t]+(?:cookie|token|value|id))?{_FILLER}(?:[ \t]+(?:is"
            rf"|was|value)|[ \t]*[:=])?[ \t]*[\"'`]?)"
            r"(?P<secret>[A-Za-z0-9%+/_.~-]{16,})",
            re.I,
        ),
        _is_session_value,
        gate=_SESSION_GATE,
        sieves=tuple((word, re.escape(word) + r"[^\n]*?[a-z0-9%+/_.~-]{16}") for word in _SESSION_GATE),
    ),
    Rule(  # 'mother's maiden name "Okonkwo"', "first pet: Biscuit": a security question's answer logs anyone in
        "a security answer",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])(?i:{_SECURITY_QUESTIONS})\??[)\"”']?(?i:{_FILLER})"
            r"(?:[ \t]+(?:we|I|you|they|she|he)[ \t]+(?:agreed(?:[ \t]+on)?|set(?:[ \t]+up)?|chose|picked))?"
            r"(?:[ \t]+(?:is|was|are"
            rf"|were|ist|war|est|es|era|é|to)[ \t]+|[ \t]*(?:[:=→-]|->|=>)[ \t]*"
            # or an aside that gives it: "memorable answer, which is Penzance", "(maiden name) - she answered Okonkwo"
            r"|[ \t]*[,;–—-]?[ \t]*(?:and[ \t]+)?(?:which[ \t]+(?:is|was)|it'?s|(?:she|he|I|they|we)[ \t]+"
            r"(?:always[ \t]+|just[ \t]+|usually[ \t]+)?(?:answered|answers?|put|puts|said|say|says|gave|give|chose"
            r"|used"
            r"|use|write|wrote))[ \t]+"
            # or the answer named after the question: "is mother's maiden name; for Aisha the answer they have on
            # file is Kowalczyk"
            # or after the question's mark: '"What was the name of your first school?" the answer we set is ...'
            r"|[ \t]*[;,.]?[ \t]*(?:and[ \t]+)?(?:for[ \t]+\S+[ \t]+)?(?:the|her|his|my|their)[ \t]+answer"
            r"(?:[ \t]+[^\n.;:]{0,30}?)?[ \t]+(?:is|was)[ \t]+"
            # or the question itself in quotes, then a colon: 'domanda segreta "cognome da nubile di tua madre": ...'
            r"|[ \t]+[\"“'][^\"”'\n]{3,80}[\"”'][ \t]*[:=→][ \t]*"
            r"|[ \t]+(?=[\"'“])"
            # or as a form of questions and answers: "Q: City you were born in? A: Wapakoneta."
            r"|[ \t]+(?:A|Answer|Ans)[ \t]*[.:][ \t]*"
            # or a bare space before a name that a comma or a full stop ends, as a list of answers has it: "mother's
            # maiden name Okonkwo, first pet Biscuit"
            r"|[ \t]+(?=[A-Z][A-Za-z'-]{1,30}(?:[ \t]+[A-Z][A-Za-z'-]{1,30}){0,2}(?:[,;.)]|$)))[\"'“]?)"
            r"(?P<secret>[A-Z][A-Za-z'-]{1,30}(?:[ \t]+[A-Z][A-Za-z'-]{1,30}){0,2}"
            r"|(?<=[\"'“])[^\"'”\n]{2,40}(?=[\"'”]))",
        ),
        _is_an_answer,
        gate=_SECURITY_GATE,
        sieves=_SECURITY_SIEVES,
        suspect=True,
    ),
    Rule(  # 'Verification answers: favourite food "lasagne", dream job "lighthouse keeper"': each quoted answer
        "a security answer",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?i:(?:security|verification|secret|challenge|memorable)[ \t]+(?:answers?"
            r"|questions?))[^\n]{0,120}?[\"“])(?P<secret>(?=[A-Za-z0-9])(?!redacted)[^\"”\n]{2,40})(?=[\"”])"
        ),
        lambda m: not placeholder(m["secret"]) and not _NOT_AN_ANSWER.fullmatch(m["secret"]),
        gate=("security", "verification", "secret", "challenge", "memorable"),
        suspect=True,
    ),
    Rule(  # "If the bank asks the security question (name of first pet) the answer is Noisette", "Pytanie pomocnicze
        # w banku: imię pierwszego psa - odpowiedź, którą podałem to Burek2": the answer after its question, far on
        "a security answer",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?i:(?:security|secret|verification|memorable|challenge)[ \t]+questions?"
            r"|pytanie[ \t]+pomocnicze|pregunta[ \t]+de[ \t]+seguridad|question[ \t]+secr[eè]te|sicherheitsfrage"
            r"|domanda[ \t]+di[ \t]+sicurezza|pergunta[ \t]+de[ \t]+seguran[çc]a)[^\n]{0,120}?(?i:answer|odpowied[zź]"
            r"|respuesta|r[ée]ponse|antwort|risposta|resposta)(?:[^\n.;:]{0,40}?[ \t]+(?i:is|was|to|es|est|ist|è|é|era)"
            r"[ \t]+|[ \t]*:[ \t]*)[\"'“]?)(?P<secret>[A-Z][A-Za-z0-9'-]{1,30}(?:[ \t]+[A-Z][A-Za-z0-9'-]{1,30}){0,2})"
        ),
        lambda m: not placeholder(m["secret"]) and not _NOT_AN_ANSWER.fullmatch(m["secret"]),
        gate=("question", "pytanie", "pregunta", "sicherheitsfrage", "domanda", "pergunta"),
        suspect=True,
    ),
    Rule(  # 'the answer to "name of the first street you lived on" is Aldersgate Crescent': a security question quoted
        "a security answer",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?i:answer)[ \t]+to[ \t]+(?:the[ \t]+(?:question[ \t]+)?)?[\"“'(]"
            r"(?=[^\"”')\n]{0,80}?\b(?i:first|maiden|pet|street|school|born|birth|favou?rite|childhood"
            r"|nickname|teacher|car|mother|father|grand\w+|best[ \t]+friend|honeymoon|met|grow[ \t]+up|grew[ \t]+up)\b)"
            # and whose question it is, perhaps: '... for the hotel's Airbnb host account is Wharf Lane'
            r"[^\"”')\n]{5,80}[\"”')](?:[ \t]+(?:for|on|of)[ \t]+[^\n.\"“]{1,60}?)?"
            r"[ \t]*(?i:is|was|[:=-])[ \t]+[\"'“]?)"
            r"(?P<secret>[A-Z][A-Za-z0-9'-]{1,30}(?:[ \t]+[A-Z][A-Za-z0-9'-]{1,30}){0,2})"
        ),
        lambda m: not placeholder(m["secret"]) and not _NOT_AN_ANSWER.fullmatch(m["secret"]),
        gate=("answer",),
        suspect=True,
    ),
    Rule(  # "Blessed2BeABlessing! is what the church Instagram is on now": a strong value first, what it opens after
        "a password",
        re.compile(
            r"(?:^|(?<=[\n.!?:][ \t]))(?P<keep>)(?P<secret>[A-Za-z0-9!#$%&*?@^~+=_.-]{8,40})(?=[ \t]+is[ \t]+what[ \t]+"
            r"(?:the|our|my|his|her|their)[ \t]+[^.\n]{1,40}?[ \t](?:is|was|are)[ \t]+(?:on|set[ \t]+to|using)\b)"
        ),
        lambda m: strong_password(m["secret"].rstrip(".,;:")),
        gate=("what",),
        suspect=True,
    ),
    Rule(  # "with password 'Qu1ckSilver!'", "pass Tr4velB4g!": no verb, so the value must look strong
        "a password",
        re.compile(rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}|pass|pw|pwd)[ \t]+[\"'`]?){_VALUE}{{6,64}})", re.I),
        _is_strong_password,
        gate=(*_PASSWORD_GATE, "pw"),
        sieves=(("pass", _PASS_WORD + r"[ \t]"),),
    ),
    Rule(  # "with password tacobell2019", "the password taxes2023secure": no verb, so only suspect
        "a password",
        re.compile(rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS})[ \t]+[\"'`]?){_VALUE}{{6,64}})", re.I),
        _is_password_shaped,
        gate=_PASSWORD_GATE,
        sieves=(("pass", _PASS_WORD + r"[ \t]"),),
        suspect=True,
    ),
    Rule(  # "type Qw3rty!Dev when it asks for the password": a strong value before the word
        "a password",
        re.compile(
            r"(?<![\w@/.:~-])(?P<keep>)(?P<secret>(?=[^\s]{0,40}[a-z])(?=[^\s]{0,40}[A-Z])[A-Za-z0-9!#$%&*?@^~+=_.-]{8,40})"
            rf"(?=[^\n]{{0,60}}?{_STARTS}(?:{PASSWORD_WORDS})(?![A-Za-z]))"
        ),
        _is_strong_before_the_word,
        gate=_PASSWORD_GATE,
        suspect=True,
    ),
    Rule(
        "a token or API key",
        re.compile(rf"(?P<keep>(?:{KEY_NAMES})" + _ASSIGNMENT, re.I),
        _is_literal,
        gate=_KEY_GATE,
        sieves=tuple((word, word + _ASSIGNED) for word in _KEY_GATE),
    ),
    Rule(  # '"technician_key":"8F3A1C27-94BE-..."': a JSON field named as someone's key, with a generated value
        "a token or API key",
        re.compile(
            r'(?P<keep>"(?!(?:idempotency|partition|sort|primary|foreign|cache|dedupe?|object|public|publishable|routing'
            r'|row|group|lookup|translation|message|map|s3|storage|site|i18n|ssh_public|pub)[_-]key")'
            r'[a-z][a-z0-9]{1,24}[_-]key"[ \t]*:[ \t]*")(?P<secret>[a-z0-9][a-z0-9_-]{19,})(?=")',
            re.I,
        ),
        _is_generated_value,
        gate=("_key", "-key"),
        suspect=True,
    ),
    Rule(  # "the API key is Zx9...", "client secret Q~..."
        "a token or API key",
        re.compile(
            rf"(?P<keep>(?<![A-Za-z])(?:{KEY_NAMES}|key){_FILLER}(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]*[\"'`]?)"
            # (a digit in it: "API key for the post-editing pipeline: 3f8a..." does not stop at "post-editing")
            r"(?P<secret>(?=[A-Za-z+/_.~-]*[0-9])[A-Za-z0-9+/_.~-]{12,})",
            re.I,
        ),
        _is_generated_value,
        gate=_KEY_GATE,
        sieves=tuple(
            (word, rf"{word}{_FILLER}(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]*[\"'`]?[A-Za-z0-9+/_.~-]{{12}}")
            for word in _KEY_GATE
        ),
    ),
    *PGPASS,
    Rule(  # "Shared Recruiter seat: talent@brightpath.io, Hire-More-2026": an account's email, then what it takes
        "a password",
        re.compile(
            r"(?P<keep>[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
            r"(?:[ \t]*(?:[,/|;]|[ \t]-)[ \t]*(?:(?:it'?s|pw|pwd|pass)[ \t]*:?[ \t]+)?"
            r"|[ \t]+(?:and[ \t]+)?(?:it'?s|pw|pwd|pass|the[ \t]+pass(?:word)?[ \t]+is)[ \t]*:?[ \t]+))"
            r"(?P<secret>[^\s,;@\"'()]{8,40})"
        ),
        lambda m: "." not in m["secret"].rstrip(".") and _is_password_shaped(m),
        gate=("@",),
        suspect=True,
    ),
    Rule(  # "ParentPay for dinner money - j.obrien, Tipperary1979": a user name as logins have them, then a password
        "a password",
        re.compile(
            r"(?<![\w.@/-])(?P<keep>(?!e\.g|i\.e)[a-z][a-z0-9]*\.[a-z][a-z0-9]*(?:[._][a-z0-9]+)*"
            r"[ \t]*(?:,|/|\|)[ \t]*)"
            r"(?P<secret>(?=[^\s,;@\"'()/]{0,39}[0-9])[^\s,;@\"'()/]{6,40})"
        ),
        lambda m: _A_FILE.search(m["keep"]) is None and _is_password_shaped(m) and "." not in m["secret"].rstrip("."),
        gate=(".",),
        sieves=((".", r"\.[a-z0-9._]+[ \t]*[,/|][ \t]*[^\s]*\d"),),
        suspect=True,
    ),
    Rule(  # "hot wallet (the one Metamask imported): 0x38ac...053": a wallet's private key, named
        "a private key",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:wallet|private[ \t]+key|priv[ \t]*key|metamask|signer|keystore)\b[^\n]{0,60}?"
            r"(?:[:=]|\bis)[ \t]*[\"'`]?)(?P<secret>(?:0x)?[0-9a-fA-F]{64})(?![0-9a-zA-Z])",
            re.IGNORECASE,
        ),
        gate=("wallet", "private", "priv", "metamask", "signer", "keystore"),
        sieves=tuple(
            (w, w + r"[^\n]{0,80}?[0-9a-f]{64}")
            for w in ("wallet", "private", "priv", "metamask", "signer", "keystore")
        ),
    ),
    Rule(  # 'the code word the call centre asks for is "pistachio kite"', "the safe word is Blue Heron", 'pickup phrase
        # (what the teacher asks anyone collecting her) is "purple otter"': words that prove who someone is, named
        "a code word",
        re.compile(
            r"(?P<keep>(?<![a-zA-Z])(?i:(?:safe|code|pass|secret|duress|panic|verification|challenge|pick-?up|collection)"
            r"[ \t-]?(?:word|phrase)|(?:securedrop|source'?s?)[ \t]+(?:securedrop[ \t]+)?code[ \t-]?name"
            r"|(?:word|phrase)(?=[ \t]+it[ \t]+(?:asks|wants|prompts)[ \t]+(?:you[ \t]+)?for)"
            r"|palabra[ \t]+(?:clave|secreta)"
            r"|mot[ \t]+de[ \t]+passe[ \t]+oral|losungswort|codewort|parola[ \t]+d'ordine"
            r"|(?:senha|palavra)[ \t]+secreta)"
            r"(?:[ \t]+[^\n.!?;\"“„«]{1,80}?)?(?:[ \t]+(?:is|was|ist|est|es|è|é)[ \t]+|[ \t]*[:=][ \t]*)"
            # the words in quotes, or in capitals ("Blue Heron")
            r"(?:[\"“„«'](?=[^\"”“»'\n]{3,60}[\"”“»']))?)"
            r"(?P<secret>(?<=[\"“„«'])[^\"”“»'\n]{3,60}(?=[\"”“»'])|[A-Z][a-z]{2,}(?:[ \t]+[A-Z][a-z]{2,}){1,3}\b)",
        ),
        lambda m: not placeholder(m["secret"].replace(" ", "_")) and not _NOT_A_PHRASE.match(m["secret"]),
        gate=(
            "word",
            "phrase",
            "codename",
            "code-name",
            "losungswort",
            "codewort",
            "palabra",
            "oral",
            "parola",
            "secreta",
        ),
        sieves=(
            (
                "word",
                r"(?:safe|code|pass|secret|duress|panic|verification|challenge|pick-?up|collection)[ \t-]?word"
                r"|word[ \t]+it[ \t]+(?:asks|wants|prompts)",
            ),
            (
                "phrase",
                r"(?:safe|code|pass|secret|duress|panic|verification|challenge|pick-?up|collection)[ \t-]?"
                r"phrase|phrase[ \t]+it[ \t]+(?:asks|wants|prompts)",
            ),
        ),
        suspect=True,
    ),
    Rule(  # 'If Securitas calls about the alarm, say the word "marmalade"': the word an alarm company or a bank asks
        "a code word",
        re.compile(
            r"(?P<keep>(?<![a-zA-Z])(?i:(?:say|give|use|tell[ \t]+them)[ \t]+the[ \t]+word[ \t]+)[\"“'])"
            r"(?P<secret>[^\"”'\n]{3,40})(?=[\"”'])"
        ),
        lambda m: _ASKED_BY.search(m.string) is not None and not placeholder(m["secret"].replace(" ", "_")),
        gate=("word",),
        sieves=(("word", r"(?:say|give|use|them)[ \t]+the[ \t]+word"),),
        suspect=True,
    ),
    Rule(  # "die PIN dazu ist Wattenmeer-44": a PIN that is a word and digits, as a password is
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:pin|pin-?code|passcode|pincode)(?:[ \t]+[^\s:=]{1,20}){0,3}?"
            r"(?:[ \t]+(?:is|ist|est|es|è|é|lautet|c'est)[ \t]+|[ \t]*[:=][ \t]*))"
            r"(?P<secret>[^\W\d_]{4,}[-_.]?\d{2,4})(?![\w-])",
            re.I,
        ),
        lambda m: not placeholder(m["secret"]),
        gate=("pin", "passcode"),
        sieves=(("pin", r"pin[^\n]{0,120}?[^\W\d_][-_.]?\d\d"),),
    ),
    Rule(  # "nginx/htpasswd.plain for the preview env: reviewer:PlumTree_Orbit_55": an htpasswd line in plain text
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])\.?htpasswd[^\n]{0,60}?[ \t][\w.@-]{2,32}:)(?P<secret>[^\s:]{6,64})(?![^\s])", re.I
        ),
        lambda m: not m["secret"].startswith(("$", "{")) and not placeholder(m["secret"]),  # not a hash
        gate=("htpasswd",),
    ),
    Rule(  # "Freya says the key is moonlight-tram-2025": a key that is words and a number run together by dashes
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:key|passphrase|passcode|psk|schl[üu]ssel|cl[ée]|clave|chave|chiave)[ \t]+"
            r"(?:is|was|ist|est|es|è|é)[ \t]+)(?P<secret>[^\W\d_]{3,12}(?:-[^\W\d_]{3,12}){1,4}-\d{2,4})(?![\w-])",
            re.I,
        ),
        gate=("key", "pass", "psk", "schlüssel", "schlussel", "clé", "cle", "clave", "chave", "chiave"),
        sieves=tuple(
            (w, w + r"\w*[ \t]+(?:is|was|ist|est|es|è|é)[ \t]+[^\W\d_]{3,12}-")
            for w in ("key", "pass", "psk", "schlüssel", "schlussel", "clé", "cle", "clave", "chave", "chiave")
        ),
        suspect=True,
    ),
    Rule(  # 'Used "Bluebell1952" for every one of Mum's health sites': one password, reused, named by its use
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:used?|uses|using|reuse[sd]?|reusing|same[ \t]+password)[ \t]+[\"“'])"
            r"(?P<secret>[^\"”'\s]{6,40})(?=[\"”'][ \t]+(?:for|on|across|everywhere)\b)",
            re.I,
        ),
        lambda m: chosen_password(m["secret"]) and not placeholder(m["secret"]),
        gate=("use", "same"),
        sieves=(
            ("use", r"use[sd]?[ \t]+[\"“'][^\"”'\s]{6,40}[\"”'][ \t]+(?:for|on|across|every)"),
            ("same", r"same[ \t]+password[ \t]+[\"“']"),
        ),
    ),
    Rule(  # "notarytool app-specific password (appleid ...): qwmz-tpla-hrvx-ekbn": Apple's and Google's app passwords
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:app[ -]specific|app)[ \t]+password[^\n]{0,100}?[:=]?[ \t]*[\"'`]?)"
            r"(?P<secret>[a-z]{4}(?P<apart>[ -])[a-z]{4}(?P=apart)[a-z]{4}(?P=apart)[a-z]{4})(?![a-z])",
            re.I,
        ),
        gate=("password",),
        sieves=(("password", r"password[^\n]{0,120}?[a-z]{4}[ -][a-z]{4}[ -][a-z]{4}[ -][a-z]{4}"),),
    ),
    Rule(  # 'set DEPLOY_SSH_PASSPHRASE in the actions secrets to "oyster bicycle velvet 1987"': a secret's variable set
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?i:set|put|change|changed)[ \t]+`?"
            r"[A-Z0-9_]*(?:PASS|SECRET|TOKEN|KEY|PWD|PIN)[A-Z0-9_]*`?"
            r"[^\n\"']{0,50}?[ \t](?i:to|=)[ \t]+[\"'`])(?P<secret>[^\"'`\n]{6,80})(?=[\"'`])"
        ),
        lambda m: not placeholder(m["secret"].replace(" ", "_")) and "${" not in m["secret"],
        gate=("pass", "secret", "token", "key", "pwd", "pin"),
        sieves=tuple(
            (w, w + r"[a-z0-9_]*`?[^\n]{0,50}?[ \t](?:to|=)[ \t]+[\"'`]")
            for w in ("pass", "secret", "token", "key", "pwd", "pin")
        ),
    ),
    Rule(  # "Pour Ameli je mets Mamie2024*", "en Glovo uso Paella#77": what someone types for an account, in a
        # password's shape (not in English: "I use Python3 for scripts" is a tool)
        "a password",
        re.compile(
            r"(?P<keep>(?<![a-z])(?:je[ \t]+mets|j'utilise|j'ai[ \t]+mis|uso|pongo|metto"
            r"|ich[ \t]+nehme|ich[ \t]+tippe|gebruik|ik[ \t]+typ|eu[ \t]+uso|ponho|używam|wpisuję)[ \t]+)"
            r"(?P<secret>(?=[^\s]*[0-9])(?=[^\s]*[^\W\d_])[^\s,;]{6,40}?)"
            r"(?=[\s,;.—–-]|$)",
            re.I,
        ),
        lambda m: (
            chosen_password(m["secret"].rstrip("."))
            and not _A_NAME.fullmatch(m["secret"])
            and (sum(c.isdigit() for c in m["secret"]) >= 4 or not m["secret"].rstrip(".").isalnum())
        ),  # not "Python3"
        gate=(
            "mets",
            "utilise",
            "mis",
            "uso",
            "pongo",
            "metto",
            "nehme",
            "tippe",
            "gebruik",
            "typ",
            "ponho",
            "używam",
            "uzywam",
            "wpisuję",
        ),
        suspect=True,
    ),
    Rule(  # "Contraseña de Movistar+: la misma que el correo de mamá pero con ñ al final, o sea Carmen1972ñ": a
        # password after how it was made, then "that is"
        "a password",
        re.compile(
            rf"(?P<keep>{_STARTS}(?:{PASSWORD_WORDS}|pw|pwd)[^\n]{{0,100}}?[ \t,;(—–-]+(?:o[ \t]+sea|es[ \t]+decir"
            r"|i\.e\.|that[ \t]+is|that'?s|which[ \t]+makes[ \t]+it|so[ \t]+it'?s|donc|c'est-[àa]-dire|quindi|ossia"
            r"|cio[èe]"
            r"|d\.[ \t]?h\.|also|ou[ \t]+seja|dus)[ \t:,]+)(?=\S*[0-9])" + _VALUE + "{6,40})",
            re.I,
        ),
        # (or digits in groups, as a date read backwards is: "birthday backwards — that's 7102-60-41")
        lambda m: (
            (chosen_password(m["secret"].rstrip(".)")) and any(c.isdigit() for c in m["secret"]))
            or (_DIGIT_GROUPS.fullmatch(m["secret"].rstrip(".)")) is not None and not _A_DATE.search(m["secret"]))
        ),
        gate=(*_PASSWORD_GATE, "pw"),
        min_digits=1,
        sieves=(
            (
                "pass",
                _PASS_WORD + r"[^\n]{0,100}?(?:sea|decir|i\.e|that|makes|so|donc|dire|quindi|ossia|cio|also|seja|dus)",
            ),
        ),
    ),
    Rule(  # "nimmt überall den Namen ihres Hundes plus Geburtsjahr, also Bello1979": how a password is made, a pet's
        # name and a year, then "that is" and the password, with no word for one
        "a password",
        re.compile(
            r"(?P<keep>(?<![A-Za-z])(?:plus|\+|and|und|mit|with|più|mais|más|y|e|et)[ \t]+(?:\w+[ \t]+){0,2}?"
            r"(?:geburtsjahr|birth[ \t]?year|year[ \t]+of[ \t]+birth|jahr|year|año|anno|ano|année|digits|ziffern)\b"
            r"[^\n]{0,40}?[ \t,;(]+(?:o[ \t]+sea|es[ \t]+decir|i\.e\.|that[ \t]+is|so[ \t]+it'?s|donc|c'est-[àa]-dire"
            r"|quindi|ossia|cio[èe]|d\.[ \t]?h\.|also|ou[ \t]+seja|dus)[ \t:,]+)(?=\S*[0-9])" + _VALUE + "{6,40})",
            re.I,
        ),
        lambda m: chosen_password(m["secret"].rstrip(".)")) and any(c.isdigit() for c in m["secret"]),
        gate=("jahr", "year", "año", "anno", "ano", "année", "digits", "ziffern"),
        min_digits=1,
        suspect=True,
    ),
)
