"""The days and periods a question names ("on 7 May 2023", "yesterday", "last Friday", "in March 2024"), as spans of
time that lift the memories saved in them.

A memory carries the time it was saved; a question that names when something happened is asking about what was
said then, and the words rarely say so ("What did Maria donate on 7 July, 2023?" shares "donate" with a dozen
turns; the right one was said that day). Pure: the text and the request's time in, spans out. Days are UTC days
widened by ``DAY_SLACK_S`` either side (the server does not know the user's time zone). Relative expressions need
the request's time; without it only dates as written are read. A day without a year is its latest occurrence not
after the request (or any year's, when no time is given: the span is then left out).

Each span carries its lift, larger the narrower it is: a day says more than a month, a month more than a year.
Measured on LoCoMo's tune split (``bench/retrieval/public.py``, recall@10 through the injection path): see
``docs/recall.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

DAY_WEIGHT = 1.0  # a memory saved on a day the question names scores this much more (x2)
WEEK_WEIGHT = 0.6  # ... in a week it names ("last week", "two weeks ago")
MONTH_YEAR_WEIGHT = 0.6  # ... in a month of a year ("in May 2023", "last month")
YEAR_WEIGHT = 0.2  # ... in a year ("in 2023", "last year")
DAY_SLACK_S = 12 * 3600  # either side of a UTC day: the user's day may start half a day earlier or later
DAY_S = 86400

_MONTHS = {
    name: n
    for n, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sept sep",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?[0-9])(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)[0-9]{2})"
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS = {name: n for n, name in enumerate(_WEEKDAY_NAMES)}
_COUNT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNTS = {word: n for n, word in enumerate(_COUNT_NAMES)}
_COUNTS["a"] = _COUNTS["an"] = 1
_COUNT = r"(?P<count>[0-9]{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)"

_PATTERNS = [
    ("day", re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?(?:\s+{_YEAR})?\b")),
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?")),
    ("iso", re.compile(r"\b(?P<year>(?:19|20)[0-9]{2})-(?P<month>[01][0-9])-(?P<day>[0-3][0-9])\b")),
    ("month", re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")),
    ("year", re.compile(rf"\b(?:in|during|of|since|from|throughout)\s+{_YEAR}\b")),
]  # matched against the lower-cased text: every one needs a digit
_NUMERIC_PATTERNS = [(kind, pattern) for kind, pattern in _PATTERNS if kind in ("iso", "year")]
_TOKENS = re.compile(r"[a-z]+|[0-9]+")
_DIGIT = re.compile(r"[0-9]")
_YEARISH = re.compile(r"(?:19|20)[0-9]{2}")
_MONTH_HINTS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# What each kind of expression needs, looked for as substrings (in C) before any pattern (whose alternations cost tens
# of microseconds per thousand characters) runs: most messages name no time.
_MONTH_WORDS = frozenset(_MONTHS)
_RELATIVE_HINTS = ("today", "tonight", "yesterday", " ago", "last ", "this ", "past ")
# A question asking when: "when", "how long ago", "what date", "which year" (as substrings: "whenever" asks it too).
_ASKS_WHEN = (
    "when",
    " ago",
    *(f"{w} {unit}" for w in ("what", "which") for unit in ("time", "date", "day", "year", "month")),
)
DATE_CHARS = 300  # of a long message, its start and end: a question is short, and a pasted log's dates are noise
_RELATIVE = re.compile(
    r"\b(?:(?P<today>today|this morning|tonight|this evening|this afternoon)"
    r"|(?P<before>the day before yesterday)|(?P<yesterday>yesterday|last night)"
    r"|(?:last|this past)\s+(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)"
    rf"|{_COUNT}\s+(?P<unit>day|week|month|year)s?\s+ago"
    r"|(?P<which>last|this)\s+(?P<period>week|month|year))\b"
)  # matched against the lower-cased text


@dataclass(frozen=True, slots=True)
class Span:
    """Memories saved in [start, end) score ``1 + weight`` times as much."""

    start: float
    end: float
    weight: float


def _day(when: date, slack: float | None = None) -> Span:
    start = datetime(when.year, when.month, when.day, tzinfo=UTC).timestamp()
    slack = DAY_SLACK_S if slack is None else slack
    return Span(start - slack, start + DAY_S + slack, DAY_WEIGHT)


def _days(first: date, count: int, weight: float) -> Span:
    start = datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp()
    return Span(start - DAY_SLACK_S, start + count * DAY_S + DAY_SLACK_S, weight)


def _month(year: int, month: int) -> Span:
    after = date(year + (month == 12), month % 12 + 1, 1)
    first = date(year, month, 1)
    return _days(first, (after - first).days, MONTH_YEAR_WEIGHT)


def _year(year: int) -> Span:
    return _days(date(year, 1, 1), (date(year + 1, 1, 1) - date(year, 1, 1)).days, YEAR_WEIGHT)


def _latest(month: int, day: int, today: date) -> date | None:
    """The latest ``month``/``day`` not after ``today`` (29 February: the latest leap year's)."""
    for year in range(today.year, today.year - 8, -1):
        try:
            when = date(year, month, day)
        except ValueError:
            continue
        if when <= today:
            return when
    return None


@dataclass(frozen=True, slots=True)
class TimeReading:
    """What a question says about time: the spans it names, the months it names with a year or a day (which the
    month-of-any-year lift should leave to the spans), and whether it asks when."""

    spans: tuple[Span, ...] = ()
    dated: frozenset[int] = frozenset()
    when: bool = False


NOTHING = TimeReading()


def read_time(text: str, now: float | None = None) -> TimeReading:
    """The spans of time ``text`` names (relative ones against ``now``, when given) and whether it asks when; of a
    long text, its start and end."""
    if len(text) > 2 * DATE_CHARS:
        text = text[:DATE_CHARS] + "\n" + text[-DATE_CHARS:]
    lower = text.lower()
    when = any(phrase in lower for phrase in _ASKS_WHEN)
    digits = _DIGIT.search(lower) is not None and (
        _YEARISH.search(lower) is not None or any(month in lower for month in _MONTH_HINTS)
    )  # a date as written has a number and a year or a month's name
    relative = (
        now is not None and any(word in lower for word in _RELATIVE_HINTS) and _RELATIVE.search(lower) is not None
    )
    if not (digits or relative):
        return TimeReading(when=when) if when else NOTHING
    spans, dated = _spans(text, lower, set(_TOKENS.findall(lower)) if digits else None, now, relative)
    return TimeReading(spans, dated, when)


def named_spans(text: str, now: float | None = None) -> tuple[tuple[Span, ...], frozenset[int]]:
    """The spans of time ``text`` names, and the months it names with a year or a day."""
    reading = read_time(text, now)
    return reading.spans, reading.dated


def _spans(
    text: str, lower: str, tokens: set[str] | None, now: float | None, relative: bool
) -> tuple[tuple[Span, ...], frozenset[int]]:
    """``tokens``: the text's words and numbers when it has a number (None: no date as written to look for);
    ``relative``: whether it may name a day relative to ``now``."""
    spans: list[Span] = []
    dated: set[int] = set()
    today = datetime.fromtimestamp(now, UTC).date() if now is not None else None
    taken: list[tuple[int, int]] = []  # "7 May 2023" is a day, not also a month of a year
    patterns = () if tokens is None else _PATTERNS if tokens & _MONTH_WORDS else _NUMERIC_PATTERNS
    for kind, pattern in patterns:
        for found in pattern.finditer(lower):
            if any(found.start() < end and start < found.end() for start, end in taken):
                continue
            parts = found.groupdict()
            month_text = str(parts.get("month") or "")
            if kind == "year":
                spans.append(_year(int(parts["year"])))
                taken.append(found.span())
                continue
            month = int(month_text) if kind == "iso" else _MONTHS[month_text.rstrip(".")]
            if month_text == "may" and text[found.start("month")] == "m":
                continue  # "may 7 people come": May is a month only as a name
            if not 1 <= month <= 12:
                continue
            taken.append(found.span())
            year = int(parts["year"]) if parts.get("year") else None
            if kind == "month":
                spans.append(_month(int(parts["year"]), month))
                dated.add(month)
                continue
            day = int(parts["day"])
            if year is not None:
                try:
                    spans.append(_day(date(year, month, day)))
                except ValueError:
                    continue
                dated.add(month)
            elif today is not None:
                latest = _latest(month, day, today)
                if latest is not None:
                    spans.append(_day(latest))
    if today is not None and relative:
        spans += _relative(lower, today)
    return tuple(spans), frozenset(dated)


def _relative(lower: str, today: date) -> list[Span]:
    spans: list[Span] = []
    for found in _RELATIVE.finditer(lower):
        parts = {k: v for k, v in found.groupdict().items() if v}
        if "today" in parts:
            spans.append(_day(today))
        elif "yesterday" in parts:
            spans.append(_day(today - timedelta(days=1)))
        elif "before" in parts:
            spans.append(_day(today - timedelta(days=2)))
        elif "weekday" in parts:
            if parts["weekday"] == "weekend":  # the last Saturday and Sunday before today
                back = (today.weekday() - 5) % 7 or 7
                spans.append(_days(today - timedelta(days=back), 2, DAY_WEIGHT))
            else:
                back = (today.weekday() - _WEEKDAYS[parts["weekday"]]) % 7 or 7
                spans.append(_day(today - timedelta(days=back)))
        elif "unit" in parts:
            count, unit = _COUNTS.get(parts["count"]) or int(parts["count"]), parts["unit"]
            if unit == "day":  # "3 days ago" is loose by a day
                spans.append(_day(today - timedelta(days=count), slack=DAY_S + DAY_SLACK_S))
            elif unit == "week":
                spans.append(_days(today - timedelta(days=7 * count + 3), 7, WEEK_WEIGHT))
            elif unit == "month":
                spans.append(_days(today - timedelta(days=30 * count + 10), 21, MONTH_YEAR_WEIGHT))
            else:
                spans.append(_year(today.year - count))
        elif "period" in parts:
            last = parts["which"] == "last"
            if parts["period"] == "week":  # weeks start on Monday
                monday = today - timedelta(days=today.weekday() + 7 * last)
                spans.append(_days(monday, 7, WEEK_WEIGHT))
            elif parts["period"] == "month":
                year, month = (today.year, today.month)
                if last:
                    year, month = (year - 1, 12) if month == 1 else (year, month - 1)
                spans.append(_month(year, month))
            else:
                spans.append(_year(today.year - last))
    return spans


def asks_when(text: str) -> bool:
    """Whether a question asks when something happened ("When did I ...", "how long ago", "what date")."""
    return read_time(text).when
