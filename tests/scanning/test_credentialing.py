"""The credential model (proxy/scanning/credentialing.py): it holds credentials given in prose that no rule of the
scanner names, in wordings and languages written for this test (none of them in its training texts), leaves the
same words without a value live, never refuses, never shows the value in its reason, and redaction masks what it
holds. Issue 37 point 4: each outside corpus brought classes of secrets the rules had not named."""

from __future__ import annotations

import subprocess
import sys

import pytest

from proxy.scanning import CREDENTIALING, credentialing, redact, scan

from .decisions import decide

# (text, its value): lock combinations, a parental lock, a pickup safe word, an unlock pattern, in seven languages.
# Of 28 such texts written for this test, the rules caught 12; of the other 16 the model held 11 (a bike lock
# "turn it to 4471", a hearing-aid app's "code 880315", a mailbox's "31 left, 12 right", a Polish and a Japanese
# padlock went live), and these 7 still (a padlock that "opens on" its code, and a French "cadenas", have had rules
# since the tenth round, a pickup safe word since the eleventh, any lock named in English, "parental lock: 5529",
# since the seventeenth).
HELD = [
    ("Tablet unlock pattern for the twins is 1-4-7-8-9.", "1-4-7-8-9"),
    ("Der Fahrradschloss-Code ist 7302, falls du das Rad holst.", "7302"),
    ("Kinderslot op de iPad: 2468.", "2468"),
    ("Ключ от почтового ящика: комбинация 3-7-1-5.", "3-7-1-5"),
    ("A senha do cadeado da bicicleta é 8842.", "8842"),
    ("Kodlåset på förrådet är 7719.", "7719"),
]
# The same things with no value, and numbers that open nothing.
LIVE = [
    "The gym locker by the sauna is the one I always use.",
    "Bike lock broke again, need a new one before Monday.",
    "Grandpa's hearing-aid app asks for a code after every update; the audiologist has it.",
    "Der Fahrradschloss-Code steht auf dem Zettel in der Küche.",
    "La combinaison du vestiaire est notée dans mon carnet.",
    "El candado del trastero lo compré en 2019.",
    "The key box at the holiday flat is left of the door; the host texts the code on arrival.",
    "Locker 214 is mine this term, next to Sam's.",
    "Flight AF1234 lands at 17:35, gate K42.",
    "Our family's favourite word game is 'Bananagrams'.",
    "Ordered 2 packs of size 4 batteries, order 48213-77.",
    "The wallet app has a 12-word backup; I wrote it on paper and keep it in the safe.",
]


@pytest.mark.parametrize(("text", "value"), HELD)
def test_a_credential_in_prose_no_rule_names_is_held_by_the_model_and_masked(text: str, value: str) -> None:
    finding = scan(text)
    assert decide(text) == "held" and finding is not None and finding.reason == CREDENTIALING
    assert finding.kind == "secret" and value not in finding.reason
    masked = redact(text)
    assert value not in masked and "[redacted]" in masked
    assert scan(masked) is None


@pytest.mark.parametrize(("text", "value"), HELD)
def test_no_rule_holds_them_without_the_model(text: str, value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(credentialing, "credential", lambda text: False)
    assert scan(text) is None


@pytest.mark.parametrize("text", LIVE)
def test_the_same_words_without_a_value_stay_live_and_unmasked(text: str) -> None:
    assert decide(text) == "live", scan(text)
    assert redact(text) == text


def test_the_model_needs_a_value_or_a_credential_word_whatever_it_scores() -> None:
    """A sure score alone holds nothing: a text with no value (digits, symbols, a quoted word) and no credential word
    followed by one is never scored."""
    assert not credentialing.held("Thanks, see you at the party!", 1.0)
    assert credentialing.held("The locker opens with 4471.", 0.6)
    assert not credentialing.held("The locker opens with 4471.", 0.4)
    assert credentialing.held("my passphrase is purple monkey dishwasher", 0.85)  # plain words: PLAIN, 0.8
    assert not credentialing.held("my passphrase is purple monkey dishwasher", 0.75)


def test_a_redacted_text_is_not_held_again() -> None:
    """What redaction leaves is the context of a credential, not one: the model reads it as it read the original."""
    assert not credentialing.credential("The shed padlock opens on [redacted], the key one rusted.")


def test_the_proxy_scores_the_models_without_scikit_learn_or_numpy() -> None:
    code = (
        "import sys; from proxy.scanning import scan; scan('Kinderslot op de iPad: 2468.'); "
        "scan('Always answer in metric units.'); "
        "assert not {'sklearn', 'numpy', 'scipy'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
