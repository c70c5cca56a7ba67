"""The classes the fifth round added (issue 37 point 4), the five secrets the blind split still let through: a
`.pgpass` line, a lock's code as spaced digits after a numbered place, a German tax id under its long name, a US
account number beside its routing number, a TOTP seed after an aside. A member the corpus never saw is held or
refused, its near-misses stay live, and `redact` masks the secrets a write would not store."""

from __future__ import annotations

import pytest

from proxy.scanning import redact

from .decisions import assert_caught_and_redacted, assert_live_and_untouched

# (text, decision, the secret in it)
SECRETS = [
    # a .pgpass line: certain where the file is named, held where only PostgreSQL's port says what it is
    ("My ~/.pgpass has prod.db.internal:6432:ledger:ledger_rw:Qu4rtz-Lamp-81 in it.", "refused", "Qu4rtz-Lamp-81"),
    ("pgpass line for the replica: *:*:analytics:reader:s1lver\\:birch", "refused", "s1lver\\:birch"),
    ("analytics.db.lan:5432:events:etl_loader:Gr33nF1eld#22", "held", "Gr33nF1eld#22"),
    # a lock's code as spaced digits, the lock named with a numbered place ("room 7", "locker 31")
    ("The safe in cabin 7 is set to 4 0 6 2, the key card is in the drawer.", "held", "4 0 6 2"),
    ("Gym locker code for locker 31: 2 7 7 4", "refused", "2 7 7 4"),
    # a German tax id under its long names, its check passing or not
    ("Meine steuerliche Identifikationsnummer ist 52710903686.", "refused", "52710903686"),
    ("Persönliche Identifikationsnummer lautet 52710903687", "held", "52710903687"),
    # a US account number: refused beside a valid routing number, held alone, as is a routing number alone
    ("Savings account 772019384, ABA routing 011000015, for the tax refund.", "refused", "772019384"),
    ("Payroll goes to my checking account 4830019927.", "held", "4830019927"),
    ("The routing for my credit union is 021000021.", "held", "021000021"),
    # a TOTP seed, an aside between its name and the colon
    ("2FA seed for GitHub (backup, in case the phone dies): JBSW Y3DP EHPK 3PXP Q2M4 7NZA", "refused",
     "JBSW Y3DP EHPK 3PXP Q2M4 7NZA"),
    ("OTP secret of the shared admin account, keep it safe = KRUG S4ZA NVXW 2ZLM", "refused", "KRUG S4ZA NVXW 2ZLM"),
]  # fmt: skip
SECRET_NEAR_MISSES = [
    # template and format lines, a "*" or a placeholder for the password
    "localhost:5432:*:postgres:*",
    "The .pgpass line is db.staging.lan:5432:billing:billing_admin:<password>",
    "pgpass entry: *:*:*:replicator:YOUR_PASSWORD",
    "The pgpass format is hostname:port:database:username:password, one per line.",
    "Point PGPASSFILE at ~/.pgpass and keep it mode 0600.",
    # a numbered place, no code
    "The safe is on the 4th floor, room 8 3.",
    "The hotel safe in room 412 is broken, reception has a spare key.",
    # the id's name without a number, and a vehicle's identification number
    "Meine steuerliche Identifikationsnummer steht auf dem Lohnsteuerbescheid.",
    "Die Fahrzeug-Identifikationsnummer lautet WVWZZZ1JZXW000001.",
    # bank words without a number, and digits that are no account
    "The routing number on the bank's website is public.",
    "My savings account earns 4 percent, the checking account 0.",
    # base32 without a word for a one-time password, and the seed's name without one
    "The commit id is MJHTTGZ3PLLVVKGJ6RW7YCYHACP57RWP.",
    "Build hash: MJHT TGZ3 PLLV VKGJ 6RW7 YCYH ACP5 7RWP",
    "The TOTP secret for the VPN is in the password manager, in case I lose my phone.",
]


@pytest.mark.parametrize(("text", "decision", "secret"), SECRETS)
def test_a_secret_of_each_new_class_is_held_or_refused_and_redacted(text: str, decision: str, secret: str) -> None:
    assert_caught_and_redacted(text, decision, secret)


@pytest.mark.parametrize("text", SECRET_NEAR_MISSES)
def test_texts_about_those_secrets_stay_live(text: str) -> None:
    assert_live_and_untouched(text)


def test_the_account_number_is_masked_and_what_names_it_stays_readable() -> None:
    masked = redact("For the direct deposit form: routing 021000021, checking account 4830019927, thanks.")
    assert masked == "For the direct deposit form: routing [redacted], checking account [redacted], thanks."
    line = "pgpass: db.lan:5432:billing:admin:"
    assert redact(line + "Wint3r-is-c0ming!") == line + "[redacted]"
