"""Recovery codes, TOTP seeds, BitLocker recovery keys, and recovery and seed phrases: what opens an account or a
wallet once its password or device is lost."""

from __future__ import annotations

import re

from ..rules import Rule
from ..shapes import PASSWORD_MANAGER, placeholder
from .named import _named, _not_a_count, _starts_apart, bounded


def _long_enough(m: re.Match[str]) -> bool:
    """Codes of four characters at least, or shorter groups with six digits in all ("193 472 881", not "404")."""
    groups = re.split(r"[ \t,;/、-]+", m["secret"])
    return all(len(group) >= 4 for group in groups) or sum(c.isdigit() for c in m["secret"]) >= 6


def _a_recovery_code(m: re.Match[str]) -> bool:
    """A digit in the first code, long enough, no count; and not where the codes are kept ("recovery codes are kept
    in the 1Password 'Break glass' vault")."""
    first = re.split(r"[ \t,;]+", m["secret"])[0]
    return (
        any(c.isdigit() for c in first)
        and _long_enough(m)
        and _not_a_count(m)
        and PASSWORD_MANAGER.fullmatch(first) is None
    )


RECOVERY = _named(
    "a recovery code",
    r"otp(?=[ \t]*[:=]?[ \t]*[0-9])|(?:(?:recovery|backup|scratch|one-time|one[ \t]+time|single-use|2fa|mfa|two-factor"
    r"|verification|otp|emergency|bypass)"
    r"(?:[ \t]+(?:backup|recovery|verification))?[ \t]*(?:codes?|keys?|pins?)"
    # in Spanish, German, French, Italian, Portuguese, Dutch, Polish, Russian
    r"|c[óo]digos?[ \t]+de[ \t]+(?:recuperaci[óo]n|respaldo|emergencia|recupera[çc][ãa]o|backup|reserva)"
    r"|(?:wiederherstellungs|notfall|backup|sicherungs)-?codes?|codes?[ \t]+de[ \t]+(?:secours|r[ée]cup[ée]ration"
    r"|sauvegarde)|codici[ \t]+(?:di[ \t]+)?(?:recupero|backup|riserva|emergenza)|(?:herstel|back-?up)codes?"
    r"|kody[ \t]+(?:zapasowe|odzyskiwania|awaryjne)|резервные[ \t]+коды|коды[ \t]+восстановления"
    # a verification code, in Spanish, French, Portuguese, Italian, German, Dutch and Polish ("Código de verificación
    # en dos pasos de WhatsApp: 638204")
    r"|c[óo]digos?[ \t]+de[ \t]+verifica(?:ci[óo]n|[çc][ãa]o)(?:[ \t]+en[ \t]+dos[ \t]+pasos)?"
    r"|codes?[ \t]+de[ \t]+v[ée]rification|codice[ \t]+di[ \t]+verifica|best[äa]tigungs-?code|verifizierungs-?code"
    r"|verificatie-?code|kod[ \t]+weryfikacyjny"
    # in Japanese, Chinese and Korean
    r"|(?:リカバリー|バックアップ|復元|回復|復旧)[ \t]*コード|恢复码|恢復碼|备用码|備用碼|(?:백업|복구)[ \t]*코드)"
    # an aside before a colon: "GitHub recovery codes, keep safe: d51ab-bc3dc ...", "Apple ID recovery key, he asked me
    # to hold on to it while he resets the phone: R4KT-..."
    # (or words before the colon: "Customer read the verification code out over the phone: 482913")
    r"(?:,?[^\n:=]{0,80}?(?=[ \t]*:))?",
    # the first code holds a digit (the check asks it): so "for my Google account" is whose codes, not the first
    # (groups of three digits too, "193 472 881": six digits at least in all, the check asks)
    r"(?=[a-z-]{0,60}[0-9])[a-z0-9]{3,12}(?:(?:-|[ \t]*[,;/]?[ \t]+|[ \t]*、[ \t]*)[a-z0-9]{3,12}){0,23}",
    ("recovery", "backup", "scratch", "one-time", "onetime", "single-use", "2fa", "mfa", "two-factor", "verification",
     "bypass",
     "otp", "emergency", "recupera", "respaldo", "emergencia", "wiederherstellung", "notfall", "sicherungs", "secours",
     "récupération", "recuperation", "sauvegarde", "recupero", "riserva", "herstelcode", "zapasowe", "odzyskiwania",
     "awaryjne", "резервн", "восстановлен", "verifica", "vérification", "bestätigung", "bestatigung",
     "verifizierung", "verificatie", "weryfikacyjny", "リカバリー", "バックアップ", "復元", "回復", "復旧", "恢复码",
     "恢復碼", "备用码", "備用碼", "백업", "복구"),
    _a_recovery_code,
    connector=r"(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|are|was|were)[ \t]*:?[ \t]+|[ \t]+[-–][ \t]+|[ \t]+)",
    any_value=True,
)  # fmt: skip
# A TOTP seed, named: base32 (letters and digits), 16 characters at least, perhaps in groups of four;
# an aside may stand between the name and a colon ("TOTP secret for the VPN, in case I lose my phone: MJHT ...").
TOTP_SEED = _named(
    "a one-time password seed",
    r"(?:(?:totp|otp|2fa|mfa|two-factor|authenticator|google[ \t]+authenticator)[ \t]+"
    r"(?:seed|secret|setup[ \t]+key|key)|setup[ \t]+key(?=[^\n:=]{0,80}?(?:authenticator|2fa|totp|mfa|otp))"
    # the same in other languages: "Sekret TOTP", "segreto 2FA", "secreto TOTP", "clé secrète TOTP", "TOTP-Schlüssel"
    r"|(?:sekret|klucz|secret|segreto|secreto|segredo|chave|clave|chiave|cl[ée](?:[ \t]+secr[èe]te)?|geheimnis"
    r"|semilla|seme|semente|graine)[ \t]+(?:totp|otp|2fa|mfa)|(?:totp|otp|2fa)-?(?:schl[üu]ssel|geheimnis))"
    r"(?:[^\n:=]{0,120}?(?=[ \t]*[:=]))?",  # "TOTP-Schlüssel fürs Portal hab ich abgeschrieben, falls ...: IIBL ..."
    # base32 as it should be, or what a user copied of it ("9RHA": a look-alike digit)
    r"[a-z0-9]{4}(?:[ ]?[a-z0-9]{4}){3,15}",
    ("totp", "otp", "2fa", "mfa", "two-factor", "authenticator", "setup"),
    lambda m: sum(c.isdigit() for c in m["secret"]) >= 2 and sum(c.isalpha() for c in m["secret"]) >= 4,
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
        r"|mnemonic|seed)[^\n:=]{0,160}?(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|are|was)[ \t]*:?[ \t]+)[\"'“]?)"
        # its words perhaps numbered: "1 harvest 2 oval 3 timber ..."
        r"(?P<secret>(?:1[.):]?[ \t]+)?[a-z]{3,8}(?:[ \t,]+(?:[0-9]{1,2}[.):]?[ \t]+)?[a-z]{3,8}){11,23})(?![a-z])",
        re.IGNORECASE,
    ),
    gate=("seed", "mnemonic", "recovery", "backup", "wallet"),  # every name holds one, none very common
    sieves=tuple(
        (
            word,
            re.escape(word) + r"[^\n]{0,220}?[a-z]{3,8}[ \t,]+(?:[0-9]{1,2}[.):]?[ \t]+)?[a-z]{3,8}",
        )
        for word in ("seed", "mnemonic", "recovery", "backup", "wallet")
    ),
)
