"""The scanning corpus: samples one per line in text files beside this module.

A line starting with "# " (or a bare "#") is a note; `{U+XXXX}` stands for that code point, so invisible
characters and line breaks stay visible in the file. Kept apart from the tests so a script can score any scanner.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
_CODE_POINT = re.compile(r"\{U\+([0-9A-Fa-f]{4,6})\}")


def load(name: str) -> list[str]:
    """The samples of `name` (e.g. "secrets"), escapes decoded, notes and blank lines dropped."""
    samples = []
    for line in (HERE / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line == "#" or line.startswith("# "):
            continue
        samples.append(_CODE_POINT.sub(lambda m: chr(int(m[1], 16)), line))
    return samples


@dataclass(frozen=True)
class Score:
    """How a scanner did on the corpus: what it missed and what it refused by mistake."""

    secrets: int
    secrets_missed: list[str]
    injections: int
    injections_missed: list[str]
    benign: int
    benign_refused: list[str]

    def summary(self) -> str:
        return (
            f"secrets caught {self.secrets - len(self.secrets_missed)}/{self.secrets}, "
            f"injections caught {self.injections - len(self.injections_missed)}/{self.injections}, "
            f"benign refused {len(self.benign_refused)}/{self.benign}"
        )


Kind = Callable[[str], str | None]  # a scanner reduced to the kind of its finding


def score(kind_of: Kind, visible: Callable[[str], str] = lambda text: text) -> Score:
    """Score a scanner. An injection hidden with invisible characters counts as caught when the scanner reports
    the characters and would still call the text an injection without them (`visible` removes them)."""
    secrets, injections, benign = load("secrets"), load("injections"), load("benign")

    def injection(text: str) -> bool:
        found = kind_of(text)
        return found == "prompt_injection" or (
            found == "invisible_unicode" and kind_of(visible(text)) == "prompt_injection"
        )

    return Score(
        len(secrets),
        [text for text in secrets if kind_of(text) not in ("secret", "private_key")],
        len(injections),
        [text for text in injections if not injection(text)],
        len(benign),
        [text for text in benign if kind_of(text) is not None],
    )


# -- the write decisions (tests/scanning/writes/): refused, held for review, or stored live ------------------------

SPLITS = (
    "tuned",
    "held_out",
    "second",
    "third",
    "fourth",
    "fifth",
    "blind",
    "sixth",
    "seventh",
    "eighth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
    "twentyfirst",
    "twentysecond",
    "twentythird",
    "twentyfourth",
    "twentyfifth",
    "twentysixth",
    "twentyseventh",
    "twentyeighth",
    "twentyninth",
    "thirtieth",
    "thirtyfirst",
    "thirtysecond",
    "thirtythird",
    "thirtyfourth",
    "thirtyfifth",
    "fortysecond",
    "fortythird",
    "fortyfourth",
    "fortyfifth",
    "fortysixth",
    "fortyseventh",
    "fortyeighth",
    "fortyninth",
    "fiftieth",
    "fiftyfirst",
    "fiftysecond",
    "fiftythird",
    "thirtysixth",
    "thirtyseventh",
    "thirtyeighth",
    "thirtyninth",
    "fortieth",
    "fortyfirst",
    "fiftyfourth",
    "fiftyfifth",
    "fiftysixth",
    "fiftyseventh",
    "fiftyeighth",
    "fiftyninth",
    "sixtieth",
    "sixtyfirst",
    "sixtysecond",
    "sixtythird",
    "sixtyfourth",
    "sixtyfifth",
    "sixtysixth",
    "sixtyseventh",
    "sixtyeighth",
    "sixtyninth",
    "seventieth",
    "seventyfirst",
    "seventysecond",
    "seventythird",
    "seventyfourth",
    "seventyfifth",
    "seventysixth",
    "seventyseventh",
    "seventyeighth",
    "seventyninth",
    "eightieth",
    "eightyfirst",
    "eightysecond",
    "eightythird",
    "eightyfourth",
    "eightyfifth",
    "eightysixth",
    "eightyseventh",
    "eightyeighth",
    "eightyninth",
    "ninetieth",
    "ninetyfirst",
    "ninetysecond",
    "ninetythird",
    "ninetyfourth",
    "ninetyfifth",
    "ninetysixth",
    "ninetyseventh",
    "ninetyeighth",
    "ninetyninth",
    "hundredth",
    "hundredfirst",
    "hundredsecond",
    "hundredthird",
    "hundredfourth",
    "hundredfifth",
    "hundredsixth",
    "hundredseventh",
    "hundredeighth",
    "hundredninth",
    "hundredtenth",
    "hundredeleventh",
    "hundredtwelfth",
    "hundredthirteenth",
    "hundredfourteenth",
    "hundredfifteenth",
    "hundredsixteenth",
    "hundredseventeenth",
    "hundredeighteenth",
    "hundrednineteenth",
    "hundredtwentieth",
    "hundredtwentyfirst",
    "hundredtwentysecond",
    "hundredtwentythird",
    "hundredtwentyfourth",
    "hundredtwentyfifth",
    "hundredtwentysixth",
    "hundredtwentyseventh",
    "hundredtwentyeighth",
    "hundredtwentyninth",
    "hundredthirtieth",
    "hundredthirtyfirst",
    "hundredthirtysecond",
    "hundredthirtythird",
    "hundredthirtyfourth",
    "hundredthirtyfifth",
    "hundredthirtysixth",
    "hundredthirtyseventh",
    "hundredthirtyeighth",
    "hundredthirtyninth",
    "hundredfortieth",
    "hundredfortyfirst",
    "hundredfortysecond",
    "hundredfortythird",
    "hundredfortyfourth",
    "hundredfortyfifth",
    "hundredfortysixth",
    "hundredfortyseventh",
    "hundredfortyeighth",
    "hundredfortyninth",
    "hundredfiftieth",
    "hundredfiftyfirst",
    "hundredfiftysecond",
    "hundredfiftythird",
    "hundredfiftyfourth",
    "hundredfiftyfifth",
    "hundredfiftysixth",
    "hundredfiftyseventh",
    "hundredfiftyeighth",
    "hundredfiftyninth",
    "hundredsixtieth",
    "hundredsixtyfirst",
    "hundredsixtysecond",
    "hundredsixtythird",
    "hundredsixtyfourth",
    "hundredsixtyfifth",
    "hundredsixtysixth",
    "hundredsixtyseventh",
    "hundredsixtyeighth",
    "hundredsixtyninth",
    "hundredseventieth",
    "hundredseventyfirst",
    "hundredseventysecond",
    "hundredseventythird",
    "hundredseventyfourth",
    "hundredseventyfifth",
    "hundredseventysixth",
    "hundredseventyseventh",
    "hundredseventyeighth",
    "hundredseventyninth",
    "hundredeightieth",
    "hundredeightyfirst",
    "hundredeightysecond",
    "hundredeightythird",
    "hundredeightyfourth",
    "hundredeightyfifth",
    "hundredeightysixth",
    "hundredeightyseventh",
    "hundredeightyeighth",
    "hundredeightyninth",
    "hundredninetieth",
    "hundredninetyfirst",
    "hundredninetysecond",
    "hundredninetythird",
    "hundredninetyfourth",
    "hundredninetyfifth",
    "hundredninetysixth",
    "hundredninetyseventh",
    "twohundredfourth",
    "twohundredfifth",
    "twohundredsixth",
    "twohundredseventh",
    "twohundredeighth",
    "twohundredninth",
    "twohundredeleventh",
    "twohundredtwelfth",
    "twohundredthirteenth",
    "twohundredfourteenth",
    "twohundredfifteenth",
    "twohundredsixteenth",
    "twohundredseventeenth",
    "hundredninetyeighth",
    "hundredninetyninth",
    "twohundredth",
    "twohundredfirst",
    "twohundredsecond",
    "twohundredthird",
    "twohundredtenth",
    "twohundredeighteenth",
    "twohundrednineteenth",
    "twohundredtwentieth",
    "twohundredtwentyfirst",
    "twohundredtwentysecond",
    "twohundredtwentythird",
    "twohundredtwentyfourth",
    "twohundredtwentyfifth",
    "twohundredtwentysixth",
    "twohundredtwentyseventh",
    "twohundredtwentyeighth",
    "twohundredtwentyninth",
    "twohundredthirtieth",
    "twohundredthirtyfirst",
    "twohundredthirtysecond",
    "twohundredthirtythird",
    "twohundredthirtyfourth",
    "twohundredthirtyfifth",
    "twohundredthirtysixth",
    "twohundredthirtyseventh",
    "twohundredthirtyeighth",
    "twohundredthirtyninth",
    "twohundredfortieth",
)
KINDS = ("secrets", "injections", "benign")
Decide = Callable[[str], str]  # a text -> "refused" | "held" | "live"


@dataclass(frozen=True)
class Outcomes:
    """What the write decision did with each kind of one split: the texts refused, held and stored live."""

    split: str
    by_kind: dict[str, dict[str, list[str]]]

    def count(self, kind: str, outcome: str) -> int:
        return len(self.by_kind[kind][outcome])

    def total(self, kind: str) -> int:
        return sum(len(texts) for texts in self.by_kind[kind].values())

    def summary(self) -> str:
        parts = []
        for kind in KINDS:
            counts = ", ".join(f"{o} {self.count(kind, o)}" for o in ("refused", "held", "live"))
            parts.append(f"{kind} {self.total(kind)}: {counts}")
        return f"{self.split}: " + "; ".join(parts)


def outcomes(decide: Decide, split: str) -> Outcomes:
    by_kind: dict[str, dict[str, list[str]]] = {}
    for kind in KINDS:
        found: dict[str, list[str]] = {"refused": [], "held": [], "live": []}
        for text in load(f"writes/{split}/{kind}"):
            found[decide(text)].append(text)
        by_kind[kind] = found
    return Outcomes(split, by_kind)
