"""Keys split by spaces to slip past a pattern: "sk-proj Ab3dEf 6hIj9k ...", "s k - p r o j - A b 3 d ...",
"api key QdPt Tstb xB2a Yz2G ...".

The pieces are joined only where a key format says so: after a known key prefix (sk-, ghp_, AKIA, hf_, ...)
the joined text must be that rule's key with a random-looking body, and after a key name ("api key", "token") it
must be 16+ characters mixing lower case, upper case and digits in short runs. Ordinary words after a prefix-like
token ("sk - learn pipelines") never join into a key. Invisible characters between the pieces are already gone in
the folded view this runs on.

Both searches are skipped on a text that cannot hold what they look for, told from its `Gated` view: a prefix
spaced out still shows once spaces and tabs are taken out, and a key name is followed by three pieces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .rules import Gated, Hit, Rule, finditer, trie
from .secrets import KEY_NAMES, KEY_WORDS, RULES, SPLIT_PREFIXES, gated
from .shapes import all_classes, looks_generated

_PREFIXED: tuple[Rule, ...] = tuple(rule for rule in RULES if rule.prefixes)
_PREFIXES = sorted({p for rule in _PREFIXED for p in rule.prefixes}, key=len, reverse=True)
# A prefix, perhaps spaced out, where no word character, dot or dash comes before it: at the start, or after the
# character before it, which the engine can look for first, and a trie, not 70 alternatives tried in turn.
_SPACED_PREFIX = trie(_PREFIXES, "[ \t]?")
_PREFIX_AT_START = re.compile(_SPACED_PREFIX)
_PREFIX_AFTER = re.compile(rf"[^\w.-](?:{_SPACED_PREFIX})")
_CHUNK = re.compile(r"[A-Za-z0-9_.+/=-]{1,24}")
_RUN = re.compile(r"[A-Za-z0-9_.+/=-]{1,24}(?:[ \t][A-Za-z0-9_.+/=-]{1,24}){1,63}")
_AFTER_NAME = re.compile(
    rf"(?<![A-Za-z])(?:{KEY_NAMES}|password|passwd|key)(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]+"
    r"(?P<run>[A-Za-z0-9+/=_-]{2,12}(?:[ \t][A-Za-z0-9+/=_-]{2,12}){2,31})",
    re.I,
)
_WORD = re.compile(r"[a-z]+|[A-Z][a-z]{3,}")  # prose around the pieces after a key name, trimmed off
_PROSE = re.compile(r"[a-z]{3,}")  # a word after a key's pieces: the join stops before it
MAX_RUNS = 16  # prefix-like starts looked at per text: bounds the work on hostile input


def _pieces(text: str, start: int, end: int) -> tuple[list[re.Match[str]], str, list[int]]:
    """The chunks of `text[start:end]`, their concatenation, and the source index of each joined character."""
    chunks = list(_CHUNK.finditer(text, start, end))
    origin = [i for chunk in chunks for i in range(chunk.start(), chunk.end())]
    return chunks, "".join(chunk[0] for chunk in chunks), origin


def prefix_starts(text: str) -> Iterator[int]:
    """Where a key prefix, perhaps spaced out, starts a word in `text`, as `(?<![\\w.-])(?:sk-|s k -|...)` would
    find them: a match ends inside the prefix's last character, which is a word character, dot or dash, so the
    next can never start right after it."""
    first = _PREFIX_AT_START.match(text)
    if first:
        yield 0
    for m in _PREFIX_AFTER.finditer(text, first.end() if first else 0):
        yield m.start() + 1


def _after_prefix(text: str, starts: Iterable[int]) -> Iterator[Hit]:
    for n, start in enumerate(starts):
        run = _RUN.match(text, start)
        if n >= MAX_RUNS or run is None:
            continue
        chunks, joined, origin = _pieces(text, run.start(), run.end())
        bounds = [0]
        for chunk in chunks:
            bounds.append(bounds[-1] + len(chunk[0]))
        for rule in _PREFIXED:
            longest = rule.pattern.match(joined)
            whole = rule.pattern.fullmatch(joined, 0, bounds[1])
            if longest is None or (whole and rule.check(whole)):  # not split: the first piece is the whole key
                continue
            ends = [i for i, b in enumerate(bounds) if i >= 2 and b <= longest.end()]  # two pieces at least
            for i in reversed([i for i in ends if not _PROSE.fullmatch(chunks[i - 1][0])] or ends):  # not into prose
                bound = bounds[i]
                m = rule.pattern.fullmatch(joined, 0, bound)
                if m and rule.check(m) and looks_generated(m["secret"]):
                    yield Hit(rule.label, origin[m.start("secret")], origin[bound - 1] + 1)
                    break


def _after_key_name(text: str, lowered: str) -> Iterator[Hit]:
    for n, m in enumerate(finditer(_AFTER_NAME, text, lowered)):
        if n >= MAX_RUNS:
            break
        chunks, _, _ = _pieces(text, m.start("run"), m.end("run"))
        while chunks and _WORD.fullmatch(chunks[-1][0]):
            chunks.pop()
        while chunks and _WORD.fullmatch(chunks[0][0]):
            chunks.pop(0)
        joined = "".join(chunk[0] for chunk in chunks)
        if len(chunks) >= 3 and len(joined) >= 16 and all_classes(joined) and looks_generated(joined, max_run=3.3):
            yield Hit("a token or API key", chunks[0].start(), chunks[-1].end())


# What follows a key name's last word in a match of `_AFTER_NAME` (lower-cased): three pieces at least. Every name
# ends in one of `KEY_WORDS` ("passw": "password", "passwd"), so a match holds one of these.
_PIECES_AFTER = (
    r"(?:[ \t]+(?:is|was)|[ \t]*[:=])?[ \t]+[A-Za-z0-9+/=_-]{2,12}[ \t][A-Za-z0-9+/=_-]{2,12}[ \t][A-Za-z0-9+/=_-]{2}"
)
_NAMED_PIECES = {
    word: re.compile(name + _PIECES_AFTER)
    for word, name in {"token": "token", "secret": "secret", "key": "key", "passw": "passw(?:or)?d"}.items()
}


def _may_name_a_key(view: Gated) -> bool:
    """Whether `_AFTER_NAME` may match: a key word followed by pieces, looked for in the lower-cased text where
    `finditer` runs the pattern's case-sensitive twin on it (not when lower-casing changed the length)."""
    words = [word for word in KEY_WORDS if word in view.present]
    if not words or len(view.lowered) != len(view.text):
        return bool(words)
    return any(_NAMED_PIECES[word].search(view.lowered) for word in words)


def split_hits(text: str, view: Gated | None = None) -> Iterator[Hit]:
    """Every key split by spaces in a folded `text`; `view`, when given, is `gated(text)`."""
    view = view or gated(text)
    if not view.spaced.isdisjoint(SPLIT_PREFIXES):
        yield from _after_prefix(text, prefix_starts(text))
    if _may_name_a_key(view):
        yield from _after_key_name(text, view.lowered)
