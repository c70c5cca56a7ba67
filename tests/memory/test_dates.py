"""The days and periods a question names lift the memories saved then; a question asking "when" lifts the memories
that say when. Each test fails without its rule: the words alone rank the other memory first."""

from datetime import UTC, datetime

from proxy.config import MemorySettings
from proxy.memory.dates import asks_when, named_spans
from proxy.memory.query import conversation_query
from proxy.memory.ranking import MemoryIndex, Query, says_when, terms
from proxy.memory.recall import Recall
from proxy.memory.records import Memory, parse_ts

NOW = parse_ts("2026-03-13T15:00:00Z")  # a Friday


def days(text: str, now: float | None = NOW) -> list[str]:
    """The UTC days the spans ``text`` names start on (their slack taken off)."""
    spans, _ = named_spans(text, now)
    return [datetime.fromtimestamp(span.start + 12 * 3600, UTC).date().isoformat() for span in spans]


def ranked(memories: list[Memory], query: Query) -> list[str]:
    return [s.memory.id for s in MemoryIndex(memories).rank(query, now=NOW, limit=10)]


def test_dates_as_written_are_read_in_the_usual_orders() -> None:
    assert days("What did Maria donate on 7 July, 2023?") == ["2023-07-07"]
    assert days("Who did she have dinner with on May 3, 2023?") == ["2023-05-03"]
    assert days("What did he paint on October 13th 2023?") == ["2023-10-13"]
    assert days("the log of 2023-05-07") == ["2023-05-07"]
    assert days("What happened in March 2024?") == ["2024-03-01"]
    assert days("the 14th of March") == ["2025-03-14"]  # no year: the latest one not after today
    assert days("what about March 13?") == ["2026-03-13"]
    assert days("may 7 people come?") == []  # "may" is a month only as a name
    assert days("7 May 2023", now=None) == ["2023-05-07"]
    assert days("on May 7", now=None) == []  # no year and no today: nothing to anchor it


def test_relative_days_are_read_against_the_requests_time() -> None:
    assert days("what did I say yesterday?") == ["2026-03-12"]
    assert days("last Friday") == ["2026-03-06"]  # today is Friday: the one before
    assert days("last Tuesday") == ["2026-03-10"]
    assert days("three days ago") == ["2026-03-09"]
    assert days("last weekend") == ["2026-03-07"]
    assert days("last week") == ["2026-03-02"]
    assert days("last month") == ["2026-02-01"]
    assert days("yesterday", now=None) == []


def test_a_named_day_lifts_the_memories_saved_that_day() -> None:
    memories = [
        Memory(id="m-1", text="Maria: I donated my old car to the shelter!", created=parse_ts("2023-06-20T13:00:00Z")),
        Memory(id="m-2", text="Maria: I gave them some clothes.", created=parse_ts("2023-07-07T13:00:00Z")),
        Memory(id="m-3", text="John: the shelter needs volunteers.", created=parse_ts("2023-07-07T13:00:01Z")),
    ]
    assert ranked(memories, Query.of("What did Maria donate to the shelter?"))[0] == "m-1"
    assert ranked(memories, Query.of("What did Maria give the shelter on 7 July, 2023?"))[0] == "m-2"
    assert ranked(memories, Query.of("What did Maria give the shelter on 20 June, 2023?"))[0] == "m-1"


def test_a_month_named_with_its_year_lifts_that_year_only() -> None:
    memories = [
        Memory(id="m-1", text="We hiked the ridge trail.", created=parse_ts("2024-05-10T10:00:00Z")),
        Memory(id="m-2", text="We hiked the coast.", created=parse_ts("2023-05-10T10:00:00Z")),
    ]
    assert ranked(memories, Query.of("Where did we hike in May?"))[0] == "m-2"  # both in May: the words decide
    assert ranked(memories, Query.of("Where did we hike in May 2024?"))[0] == "m-1"
    assert ranked(memories, Query.of("Where did we hike in May 2023?"))[0] == "m-2"


def test_recall_reads_yesterday_against_the_request() -> None:
    recall = Recall(MemorySettings(max_inject_count=1))
    memories = [
        Memory(id="m-1", text="Lunch with the Atlas team.", created=NOW - 3600),
        Memory(
            id="m-2", text="Had lunch with Dana at the taco place by the station, a long chat.", created=NOW - 86400
        ),
    ]
    recalled = recall(
        ("u", "w", "s-1"),
        [{"role": "user", "content": "Who did I have lunch with yesterday?"}],
        [MemoryIndex(memories)],
        now=NOW,
    )
    assert recalled.ids == ("m-2",)
    query = conversation_query([{"role": "user", "content": "lunch yesterday"}], 0, NOW)
    assert query.spans and not conversation_query([{"role": "user", "content": "lunch yesterday"}], 0).spans


def test_a_question_asking_when_lifts_the_memories_that_say_when() -> None:
    assert asks_when("When did Andrew adopt Scout?") and asks_when("how long ago was her birthday?")
    assert not asks_when("What did Andrew adopt?")
    for text in ("I adopted another pup last week!", "two days ago we met", "We went there in March", "next summer"):
        assert says_when(terms(text))
    assert not says_when(terms("Scout loves the park."))
    memories = [
        Memory(id="m-1", text="Andrew: Scout the pup loves the park, Scout is adopted.", created=NOW - 86400),
        Memory(id="m-2", text="Andrew: I adopted Scout last week!", created=NOW - 2 * 86400),
    ]
    assert ranked(memories, Query.of("Which pup did Andrew adopt, Scout?"))[0] == "m-1"
    assert ranked(memories, Query.of("When did Andrew adopt Scout?"))[0] == "m-2"
