"""Regexes compiled when first used, not when `proxy.scanning` is imported.

Compiling the scanner's ~500 patterns took 0.3 s of every process that imports it (`memproxy serve` and each CLI
command that touches memory), most of it in the few hundred rules a given text never opens: their gates shut them
first. A `LazyPattern` keeps the source; on its first search it compiles and puts the compiled pattern's own methods
on itself, so later calls cost what a compiled pattern's do.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

# The methods a lazy pattern takes from the compiled one on first use (the scanner calls no others).
_METHODS = ("search", "match", "fullmatch", "finditer")


class LazyPattern:
    """`re.compile(pattern, flags)`, done on the first search. `pattern` and `flags` are known before."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags | re.UNICODE  # as a compiled str pattern reports them
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
            self.__dict__.update({name: getattr(compiled, name) for name in _METHODS})  # found before the class's
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags})"


Pattern = re.Pattern[str] | LazyPattern  # what the scanner's rules, families and shapes hold


def compiled(pattern: Pattern) -> re.Pattern[str]:
    """The compiled pattern (for what needs a real one, such as hypothesis's `from_regex`)."""
    return pattern.compiled if isinstance(pattern, LazyPattern) else pattern
