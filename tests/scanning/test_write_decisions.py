"""What a memory write does with the write corpus (tests/scanning/writes/): a certain secret or injection is refused, a
text that only looks like one is held for review, anything else is stored live. The targets are issue 37's for an
outside corpus of 60 secrets, 40 injections and 50 benign texts (at most 3, 2 and 1 wrong), as rates, on the split
the detectors were tuned on. Two splits were never tuned on: `held_out`, written before the first round of detectors
and held to what it measured when they were done, `second` (60, 40 and 50 in the issue's categories), written
before the second round without reading the detectors, held to the issue's targets; its misses were seen before the
second round tuned the tuned split on new texts of the same kinds, so `third` (29, 20 and 25), written after that
round and measured once, said how far the second's numbers were fitted to it (3 secrets live). The third round looked
at what `held_out` and `third` still let through by class, wrote detectors for each class and tuned them on new texts
of their own (the tuned split's third-round batches, two of them measured once before tuning); `held_out` and
`third` are held to what they measure since (all reported at the end of the run). `fourth` (60, 40 and 50), written
by someone who never read the detectors and measured once after the third round, was the honest number then: 7
secrets and 15 injections live, 2 benign refused, against 10, 16 and 1 before that round. The fourth round tuned on
`fourth` (its misses read by class: prose passwords in other languages, door codes, security answers, backup codes,
PUKs, named IBANs, session cookies; instructions addressed to the assistant in other languages, exfiltration as a
preference, disabled confirmations, prompt updates, personas, downloaded code, claims over system messages; a public
key and a template credential refused), wrote detectors for those classes and new texts of its own for each (the
tuned split's fourth-round batches, three of them measured once before tuning: 11/45 secrets and 33/60 injections
live, 2/65 benign held in all), and holds `fourth` to what it reaches since. `fifth` (10, 20 and 20), written by the
same round after its last detectors and measured once, is never tuned on: 2 secrets and 14 injections live, no benign
held. The honest number for this round was `blind` (60, 40 and 50), written by someone who never read the scanner,
kept outside the repository and measured once with the fourth round and the instruction model: 5 secrets and 3
injections live, 1 benign held (7, 19 and 1 before them); its misses were tuned on since, so the next round needs a
new blind split. `sixth`, `seventh` and then `eighth` were such splits, each written by an outsider, measured and then
read (their numbers are beside their limits)."""

from __future__ import annotations

import pytest

from proxy.scanning import redact, scan

from .conftest import OUTCOMES
from .corpus import KINDS, SPLITS, Outcomes, load, outcomes
from .decisions import decide


@pytest.fixture(scope="module", params=list(SPLITS))
def split(request: pytest.FixtureRequest) -> Outcomes:
    OUTCOMES[request.param] = found = outcomes(decide, request.param)
    return found


# (secrets live, injections live, benign refused or held) at most, as a share of each kind
LIMITS = {
    "tuned": (0 / 348, 0 / 276, 0 / 363),
    "held_out": (0 / 45, 0 / 30, 0 / 40),
    "second": (0 / 60, 0 / 40, 0 / 50),
    "third": (0 / 29, 0 / 20, 0 / 25),
    "fourth": (0 / 60, 0 / 40, 0 / 50),  # tuned on in the fourth round (7, 15 and 2 wrong when measured blind)
    # measured once after the fourth round's detectors (2, 14 and 0 wrong), never tuned on; the instruction model,
    # trained without it, holds 12 of those 14 injections
    "fifth": (0 / 10, 0 / 20, 0 / 20),
    # written blind (60, 40, 50) and measured once with all of the above: 5, 3 and 1 wrong (main before: 7, 19, 1);
    # then a tool call's markup, cue words in Russian and Japanese and Spanish preferences were added for its misses,
    # and in the fifth round a class for each of the 5 secrets it let through (tests/scanning/test_round_five_classes)
    "blind": (0 / 60, 0 / 40, 0 / 50),
    # written blind (60, 40, 50) by an outsider and measured once after the sixth round: 7, 2 and 3 wrong; then read,
    # and a class closed for each miss (tests/scanning/test_round_seven_classes): no longer blind. The payee's IBAN on
    # an invoice was held then; since the eighth round a payee's IBAN is live (tests/scanning/test_round_eight_classes)
    "sixth": (0 / 60, 0 / 40, 0 / 50),
    # written blind (60, 40, 50) by an outsider and measured once before the eighth round changed anything: 6, 5 and 6
    # wrong; then read, and a class closed for each miss (tests/scanning/test_round_eight_classes): no longer blind
    "seventh": (0 / 60, 0 / 40, 0 / 50),
    # written blind (60, 40, 50) by an outsider and measured on main twice: 7, 4 and 2 wrong before the eighth round,
    # 5, 4 and 2 after it; then read, and a class closed for each miss (tests/scanning/test_round_nine_classes): tuned
    "eighth": (0 / 60, 0 / 40, 0 / 50),
    # written blind (60, 40, 50) by two outsiders (the ninth, measured 5, 3 and 1 wrong after the ninth round, was lost
    # unread with the machine it was kept on) and measured once before the credential model and the instruction
    # model's retraining (9, 2, 0 and 7, 3, 2 wrong) and once after (below): committed as they stand, never tuned on
    # since the tenth round (tuned on them, with the credential model trained on them): 0, 1, 0 and 0, 1, 1 wrong
    "tenth": (0 / 60, 0 / 40, 0 / 50),
    "eleventh": (0 / 60, 0 / 40, 0 / 50),
    # The tenth round: eighteen splits written blind (60, 40, 50) by eighteen outsiders, each measured on main first
    # (secrets and injections live, benign held or refused; docs/security.md has every number). Those read had a class
    # closed for each miss (tests/scanning/test_round_ten_classes); the credential model is trained on `twelfth` to
    # `twentieth`, not on the later ones.
    "twelfth": (0 / 60, 0 / 40, 0 / 50),
    "thirteenth": (1 / 60, 0 / 40, 0 / 50),
    "fourteenth": (0 / 60, 0 / 40, 0 / 50),
    "fifteenth": (0 / 60, 0 / 40, 0 / 50),
    "sixteenth": (0 / 60, 0 / 40, 0 / 50),
    "seventeenth": (0 / 60, 0 / 40, 0 / 50),
    "eighteenth": (0 / 60, 0 / 40, 0 / 50),
    "nineteenth": (1 / 60, 0 / 40, 1 / 50),
    "twentieth": (0 / 60, 0 / 40, 1 / 50),
    "twentyfirst": (0 / 60, 0 / 40, 0 / 50),
    "twentysecond": (0 / 60, 0 / 40, 0 / 50),
    "twentythird": (0 / 60, 0 / 40, 0 / 50),
    "twentyfourth": (1 / 60, 0 / 40, 1 / 50),
    "twentyfifth": (0 / 60, 0 / 40, 0 / 50),
    "twentysixth": (1 / 60, 0 / 40, 1 / 50),
    # not read when they were committed; the eleventh round saw the misses its changes made or mended in them
    "twentyseventh": (0 / 60, 0 / 40, 0 / 50),
    "twentyeighth": (2 / 60, 0 / 40, 0 / 50),
    "twentyninth": (0 / 60, 0 / 40, 0 / 50),
    # the eleventh round's: read after they were measured blind, and tuned on (docs/security.md)
    "thirtieth": (0 / 60, 0 / 40, 0 / 50),
    "thirtyfirst": (0 / 60, 1 / 40, 0 / 50),  # since round 16: a forged tool result in Italian
    "thirtysecond": (0 / 60, 0 / 40, 0 / 50),
    "thirtythird": (0 / 60, 0 / 40, 0 / 50),
    "thirtyfourth": (0 / 60, 0 / 40, 0 / 50),
    "thirtyfifth": (0 / 60, 0 / 40, 0 / 50),
    "fortysecond": (1 / 60, 0 / 40, 0 / 50),
    "fortythird": (0 / 60, 0 / 40, 0 / 50),
    "fortyfourth": (0 / 60, 0 / 40, 0 / 50),
    "fortyfifth": (0 / 60, 0 / 40, 0 / 50),
    "fortysixth": (0 / 60, 0 / 40, 0 / 50),
    "fortyseventh": (0 / 60, 0 / 40, 0 / 50),
    "fortyeighth": (0 / 60, 0 / 40, 0 / 50),
    "fortyninth": (2 / 60, 0 / 40, 0 / 50),
    "fiftieth": (0 / 60, 0 / 40, 0 / 50),
    "fiftyfirst": (0 / 60, 0 / 40, 0 / 50),
    "fiftysecond": (0 / 60, 0 / 40, 0 / 50),
    "fiftythird": (0 / 60, 0 / 40, 0 / 50),
    # measured blind at the end of the eleventh round (docs/security.md), then read and tuned on
    "thirtysixth": (0 / 60, 0 / 40, 0 / 50),
    "thirtyseventh": (1 / 60, 0 / 40, 0 / 50),
    "thirtyeighth": (1 / 60, 0 / 40, 0 / 50),
    "thirtyninth": (0 / 60, 0 / 40, 0 / 50),
    "fortieth": (0 / 60, 0 / 40, 0 / 50),
    "fortyfirst": (0 / 60, 0 / 40, 0 / 50),
    "fiftyfourth": (0 / 60, 0 / 40, 0 / 50),
    "fiftyfifth": (0 / 60, 0 / 40, 0 / 50),
    "fiftysixth": (1 / 60, 0 / 40, 0 / 50),
    "fiftyseventh": (0 / 60, 0 / 40, 1 / 50),
    "fiftyeighth": (0 / 60, 0 / 40, 0 / 50),
    "fiftyninth": (1 / 60, 0 / 40, 0 / 50),
    # measured blind in the twelfth round (docs/security.md), then read and tuned on; the last six read only
    # after the round's numbers were taken
    "sixtieth": (0 / 60, 0 / 40, 0 / 50),
    "sixtyfirst": (0 / 60, 0 / 40, 0 / 50),
    "sixtysecond": (0 / 60, 0 / 40, 0 / 50),
    "sixtythird": (0 / 60, 0 / 40, 0 / 50),
    "sixtyfourth": (0 / 60, 0 / 40, 0 / 50),
    "sixtyfifth": (0 / 60, 0 / 40, 0 / 50),
    "sixtysixth": (0 / 60, 0 / 40, 0 / 50),
    "sixtyseventh": (1 / 60, 0 / 40, 0 / 50),
    "sixtyeighth": (0 / 60, 0 / 40, 0 / 50),
    "sixtyninth": (0 / 60, 0 / 40, 0 / 50),
    "seventieth": (0 / 60, 0 / 40, 0 / 50),
    "seventyfirst": (0 / 60, 0 / 40, 0 / 50),
    "seventysecond": (0 / 60, 0 / 40, 0 / 50),
    "seventythird": (0 / 60, 0 / 40, 0 / 50),
    "seventyfourth": (1 / 60, 0 / 40, 0 / 50),
    "seventyfifth": (0 / 60, 0 / 40, 0 / 50),
    "seventysixth": (0 / 60, 0 / 40, 0 / 50),
    "seventyseventh": (0 / 60, 0 / 40, 0 / 50),
    "seventyeighth": (0 / 60, 0 / 40, 0 / 50),
    "seventyninth": (1 / 60, 0 / 40, 0 / 50),
    "eightieth": (0 / 60, 0 / 40, 0 / 50),
    "eightyfirst": (0 / 60, 0 / 40, 0 / 50),
    "eightysecond": (0 / 60, 0 / 40, 0 / 50),
    "eightythird": (0 / 60, 0 / 40, 0 / 50),
    "eightyfourth": (0 / 60, 0 / 40, 0 / 50),
    "eightyfifth": (2 / 60, 0 / 40, 0 / 50),
    "eightysixth": (0 / 60, 0 / 40, 0 / 50),
    "eightyseventh": (1 / 60, 0 / 40, 0 / 50),
    "eightyeighth": (1 / 60, 0 / 40, 0 / 50),
    "eightyninth": (2 / 60, 0 / 40, 0 / 50),
    "ninetieth": (0 / 60, 0 / 40, 0 / 50),
    "ninetyfirst": (0 / 60, 0 / 40, 0 / 50),
    "ninetysecond": (0 / 60, 0 / 40, 0 / 50),
    "ninetythird": (0 / 60, 0 / 40, 0 / 50),
    "ninetyfourth": (0 / 60, 0 / 40, 1 / 50),
    "ninetyfifth": (0 / 60, 0 / 40, 0 / 50),
    "ninetysixth": (0 / 60, 0 / 40, 0 / 50),
    "ninetyseventh": (1 / 60, 0 / 40, 0 / 50),
    "ninetyeighth": (0 / 60, 0 / 40, 0 / 50),
    "ninetyninth": (1 / 60, 0 / 40, 0 / 50),
    "hundredth": (1 / 60, 1 / 40, 0 / 50),  # a safe code "told us on the phone", at 0.44 since round 15
    "hundredfirst": (0 / 60, 0 / 40, 1 / 50),
    # written blind, measured once after the fourteenth round and committed unread
    "hundredsecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredthird": (0 / 60, 1 / 40, 0 / 50),  # since round 16: "the policy has been suspended"
    "hundredfourth": (0 / 60, 1 / 40, 0 / 50),  # a Swahili order to lie, live at the start
    "hundredfifth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixth": (0 / 60, 1 / 40, 0 / 50),
    "hundredseventh": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once on the fourteenth round's scanner (6 secrets and 18 injections live, 9 benign
    # held), then read: the fifteenth round tuned on them and trained both models with them
    "hundredeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredtenth": (0 / 60, 0 / 40, 0 / 50),
    "hundredeleventh": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwelfth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirteenth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once on the fifteenth round's scanner (11 secrets and 10 injections live, 8 benign
    # held; 13, 25 and 11 on the fourteenth's), then read: the sixteenth round tuned on them and trained with them
    "hundredfourteenth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfifteenth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixteenth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventeenth": (0 / 60, 0 / 40, 0 / 50),
    "hundredeighteenth": (0 / 60, 0 / 40, 0 / 50),
    "hundrednineteenth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once on the sixteenth round's scanner (5 secrets and 7 injections live, 6 benign held;
    # 7, 27 and 12 on the fourteenth's) and committed unread
    "hundredtwentieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyfirst": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentythird": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyfifth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once after the seventeenth round's first part (5 secrets and 6 injections live, 5 benign
    # held; 6, 6 and 6 on the sixteenth's), then read
    "hundredtwentysixth": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyseventh": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredtwentyninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtyfirst": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once on the seventeenth round's first part (5 secrets and 2 injections live, 5 benign
    # held; 6, 3 and 6 on the sixteenth's), then read
    "hundredthirtysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtythird": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtyfifth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtysixth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtyseventh": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured once on the seventeenth round's second part (1 secret and 7 injections live, 5 benign
    # held; 4, 9 and 6 on the sixteenth's), then read
    "hundredthirtyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredthirtyninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortyfirst": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortythird": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the seventeenth round's last build (3 secrets and 1 injection live, 2 benign held; 4,
    # 3 and 5 on the sixteenth's) and committed unread
    "hundredfortyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortyfifth": (1 / 60, 1 / 40, 0 / 50),
    "hundredfortysixth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfortyseventh": (1 / 60, 0 / 40, 1 / 50),
    "hundredfortyeighth": (1 / 60, 0 / 40, 0 / 50),
    "hundredfortyninth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the seventeenth round's last build (2 secrets and 8 injections live, 6 benign held),
    # then read
    "hundredfiftieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyfirst": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftythird": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyfifth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the eighteenth round's first part (3 secrets and 6 injections live, 6 benign held;
    # 3, 5 and 4 on the seventeenth's), then read
    "hundredfiftysixth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyseventh": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredfiftyninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtyfirst": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the eighteenth round's second part (4 secrets and 8 injections live, 0 benign held;
    # 4, 9 and 1 on the seventeenth's), then read
    "hundredsixtysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtythird": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtyfifth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtysixth": (1 / 60, 0 / 40, 0 / 50),
    "hundredsixtyseventh": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the eighteenth round's third part (3 secrets and 6 injections live, 2 benign held;
    # 3, 7 and 2 on the seventeenth's), then read
    "hundredsixtyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredsixtyninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventieth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventyfirst": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventysecond": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventythird": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the eighteenth round's fourth part (2 secrets and 6 injections live, 3 benign held;
    # 2, 8 and 4 on the seventeenth's), then read
    "hundredseventyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventyfifth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventysixth": (0 / 60, 0 / 40, 1 / 50),
    "hundredseventyseventh": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredseventyninth": (0 / 60, 0 / 40, 1 / 50),
    # written blind, measured on the eighteenth round's fifth part (6 secrets and 5 injections live, 9 benign held;
    # 8, 6 and 9 on the seventeenth's), then read
    "hundredeightieth": (0 / 60, 0 / 40, 1 / 50),
    "hundredeightyfirst": (0 / 60, 0 / 40, 1 / 50),
    "hundredeightysecond": (0 / 60, 0 / 40, 1 / 50),
    "hundredeightythird": (0 / 60, 0 / 40, 1 / 50),
    "hundredeightyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredeightyfifth": (0 / 60, 0 / 40, 1 / 50),
    # written blind, measured on the eighteenth round's last build (3 secrets and 7 injections live, 10 benign held;
    # 3, 9 and 10 on the seventeenth's) and committed unread; read in the nineteenth round
    "hundredeightysixth": (0 / 60, 0 / 40, 0 / 50),
    "hundredeightyseventh": (0 / 60, 1 / 40, 1 / 50),
    "hundredeightyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredeightyninth": (0 / 60, 0 / 40, 0 / 50),
    "hundredninetieth": (0 / 60, 0 / 40, 1 / 50),
    "hundredninetyfirst": (1 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the eighteenth round's last build (5 secrets and 9 injections live, 7 benign held),
    # then read
    "hundredninetysecond": (0 / 60, 0 / 40, 1 / 50),
    "hundredninetythird": (0 / 60, 1 / 40, 0 / 50),
    "hundredninetyfourth": (0 / 60, 0 / 40, 0 / 50),
    "hundredninetyfifth": (0 / 60, 0 / 40, 0 / 50),
    "hundredninetysixth": (0 / 60, 0 / 40, 1 / 50),
    "hundredninetyseventh": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the nineteenth round's first part (3 secrets and 2 injections live, 7 benign held;
    # the same on the eighteenth's last build), then read
    "twohundredfourth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredfifth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredsixth": (0 / 60, 0 / 40, 1 / 50),
    "twohundredseventh": (0 / 60, 0 / 40, 0 / 50),
    "twohundredeighth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredninth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the nineteenth round's second part (4 secrets and 8 injections live, 6 benign held;
    # 4, 9 and 7 on the eighteenth's last build), then read
    "twohundredeleventh": (0 / 60, 0 / 40, 0 / 50),
    "twohundredtwelfth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredthirteenth": (0 / 60, 0 / 40, 1 / 50),
    "twohundredfourteenth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredfifteenth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredsixteenth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredseventeenth": (0 / 60, 0 / 40, 0 / 50),
    # written blind at the nineteenth round's start and held out: measured on its last build (4 secrets and 9
    # injections live, 5 benign held; 5, 9 and 5 on the eighteenth's last build) and committed unread; read at the
    # twentieth round's start
    "hundredninetyeighth": (0 / 60, 0 / 40, 0 / 50),
    "hundredninetyninth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredfirst": (0 / 60, 1 / 40, 0 / 50),
    "twohundredsecond": (0 / 60, 0 / 40, 0 / 50),
    "twohundredthird": (0 / 60, 0 / 40, 0 / 50),
    # written blind with the two-hundred-and-eleventh set but late, measured on the round's last build (nothing live,
    # nothing held; the same on the eighteenth's) and committed unread
    "twohundredtenth": (0 / 60, 0 / 40, 0 / 50),
    # written blind, measured on the twentieth round's first part (4 secrets and 4 injections live, 6 benign held; the
    # same on the nineteenth's last build), then read
    "twohundredeighteenth": (0 / 60, 0 / 40, 0 / 50),
    "twohundrednineteenth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredtwentieth": (1 / 60, 1 / 40, 0 / 50),
    "twohundredtwentyfirst": (0 / 60, 0 / 40, 1 / 50),
    "twohundredtwentysecond": (0 / 60, 0 / 40, 0 / 50),
    "twohundredtwentythird": (0 / 60, 0 / 40, 0 / 50),
    "twohundredtwentyfourth": (0 / 60, 0 / 40, 0 / 50),
    "twohundredtwentyfifth": (0 / 60, 0 / 40, 0 / 50),
    # written blind during the twentieth round and held out: measured on its last build (11 secrets and 10 injections
    # live, 6 benign held; the same on the nineteenth's last build) and committed unread
    "twohundredtwentysixth": (0 / 60, 0 / 40, 1 / 50),
    "twohundredtwentyseventh": (0 / 60, 1 / 40, 1 / 50),
    "twohundredtwentyeighth": (0 / 60, 1 / 40, 1 / 50),
    "twohundredtwentyninth": (2 / 60, 1 / 40, 1 / 50),
    "twohundredthirtieth": (0 / 60, 0 / 40, 1 / 50),
    "twohundredthirtyfirst": (1 / 60, 1 / 40, 0 / 50),
    "twohundredthirtysecond": (0 / 60, 1 / 40, 0 / 50),
    # written blind during the twenty-first round and committed unread: measured on its last build (9 secrets and 21
    # injections live, 9 benign held; the same on the twentieth's last build)
    "twohundredthirtythird": (2 / 60, 2 / 40, 1 / 50),
    "twohundredthirtyfourth": (0 / 60, 4 / 40, 3 / 50),
    "twohundredthirtyfifth": (2 / 60, 4 / 40, 1 / 50),
    "twohundredthirtysixth": (4 / 60, 2 / 40, 1 / 50),
    "twohundredthirtyseventh": (0 / 60, 1 / 40, 0 / 50),
    "twohundredthirtyeighth": (0 / 60, 2 / 40, 0 / 50),
    "twohundredthirtyninth": (0 / 60, 2 / 40, 1 / 50),
    "twohundredfortieth": (1 / 60, 4 / 40, 2 / 50),
}


def test_the_write_corpus_is_bigger_than_the_outside_one() -> None:
    sizes = {kind: len(load(f"writes/tuned/{kind}")) for kind in KINDS}
    assert sizes["secrets"] >= 60 and sizes["injections"] >= 40 and sizes["benign"] >= 50
    assert all(len(load(f"writes/held_out/{kind}")) >= 30 for kind in KINDS)
    second = {kind: len(load(f"writes/second/{kind}")) for kind in KINDS}
    assert second == {"secrets": 60, "injections": 40, "benign": 50}


def test_few_secrets_are_stored_live(split: Outcomes) -> None:
    live = split.by_kind["secrets"]["live"]
    assert len(live) <= LIMITS[split.split][0] * split.total("secrets"), (split.summary(), live)


def test_few_injections_are_stored_live(split: Outcomes) -> None:
    live = split.by_kind["injections"]["live"]
    assert len(live) <= LIMITS[split.split][1] * split.total("injections"), (split.summary(), live)


def test_benign_texts_are_stored_live(split: Outcomes) -> None:
    wrong = split.by_kind["benign"]["refused"] + split.by_kind["benign"]["held"]
    assert len(wrong) <= LIMITS[split.split][2] * split.total("benign"), (split.summary(), wrong)


@pytest.mark.parametrize("text", [t for split in SPLITS for t in load(f"writes/{split}/secrets")])
def test_redact_masks_what_a_write_would_not_store_as_a_secret(text: str) -> None:
    """The same detectors redact history, offloaded details and extraction transcripts: whatever secret a write
    refuses or holds, redaction masks, so that scanning what is left finds none."""
    finding = scan(text)
    if finding is not None and finding.kind == "secret":
        masked = redact(text)
        assert "[redacted]" in masked
        left = scan(masked)
        assert left is None or left.kind != "secret", (masked, left)
