"""What the rest of a memory's session says lifts it (:mod:`proxy.memory.session_words`)."""

from proxy.memory.ranking import MemoryIndex, Query
from proxy.memory.records import Memory
from proxy.memory.session_words import SESSION_WEIGHT

NOW = 1_800_000_000.0
DAY = 86400.0
APART = 7200.0  # two hours: memories of one session this far apart lend each other nothing as neighbours


def memory(n: int, text: str, session: str, at: float) -> Memory:
    return Memory(id=f"m-{n}", text=text, session=session, created=NOW - 30 * DAY + at)


def scores(index: MemoryIndex, query: str) -> dict[str, float]:
    return {s.memory.id: s.score for s in index.rank(Query.of(query), now=NOW, limit=10)}


def test_a_memory_whose_session_says_the_rest_of_the_question_outranks_one_that_matched_as_much() -> None:
    """ "How does John feel while surfing?": the answer names only John; the session it was said in is about surfing."""
    index = MemoryIndex(
        [
            memory(1, "John: I finally tried surfing at the beach", "s-1", 0),
            memory(2, "John: out on the water it is so calm", "s-1", APART),
            memory(3, "John: out at the office it is so calm", "s-2", 2 * APART),
            memory(4, "Tim: the library was packed today", "s-3", 3 * APART),
        ]
    )
    found = scores(index, "How does John feel while surfing?")
    assert found["m-2"] > found["m-3"]  # same words matched, but its session told of surfing
    assert found["m-2"] <= (1 + SESSION_WEIGHT) * found["m-3"] * 1.001  # a lift, never more than the weight


def test_what_only_the_memory_itself_says_lifts_nothing() -> None:
    """A memory that matches the question alone gains nothing over the same memory in a session of its own; the same
    memory whose session says the question's word again is lifted."""
    said = "Maria: I baked a peach cobbler"
    index = MemoryIndex(
        [
            memory(1, said, "s-1", 0),
            memory(2, "Maria: the shelter needs volunteers", "s-1", APART),
            memory(3, said, "s-2", 0),
            memory(4, said, "s-3", 0),
            memory(5, "Maria: grandma wrote the cobbler recipe", "s-3", APART),
            memory(6, "John: the game went to overtime", "s-4", 0),
        ]
    )
    found = scores(index, "peach cobbler")
    assert found["m-1"] == found["m-3"]
    assert found["m-4"] > found["m-1"]


def test_a_session_saying_a_name_many_times_lifts_no_more_than_one_saying_it_once() -> None:
    """Where sessions mix unrelated facts, the one fact asked about is not crowded out by the session that names its
    project most often."""
    index = MemoryIndex(
        [
            memory(1, "Onyx pipeline runs on Jenkins", "s-1", 0),
            memory(2, "Onyx went down on Monday", "s-1", APART),
            memory(3, "Onyx pipeline runs on Drone", "s-2", 0),
            *(memory(n, f"Onyx note number {n}", "s-2", n * APART) for n in range(4, 9)),
            memory(9, "Lunch was a salad", "s-3", 0),
        ]
    )
    found = scores(index, "What runs the Onyx pipeline?")
    assert found["m-1"] == found["m-3"]


def test_session_words_follow_the_index_as_it_changes() -> None:
    index = MemoryIndex(
        [
            memory(2, "John: out on the water it is so calm", "s-1", APART),
            memory(3, "John: out at the office it is so calm", "s-2", APART),
        ]
    )

    def ratio() -> float:
        found = scores(index, "John surfing")
        return found["m-2"] / found["m-3"]

    assert ratio() == 1.0
    index.put(memory(1, "John: I finally tried surfing at the beach", "s-1", 0))
    assert ratio() > 1.0
    index.drop("m-1")
    assert ratio() == 1.0
