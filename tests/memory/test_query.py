from typing import Any

from proxy.config import MemorySettings
from proxy.memory import query as conversation
from proxy.memory.query import conversation_query
from proxy.memory.ranking import MemoryIndex, Query, salient_terms, terms
from proxy.memory.recall import Recall
from proxy.memory.records import Memory, parse_ts

NOW = parse_ts("2026-10-01T09:00:00Z")
DAY = 86400.0

PROJECTS = [
    Memory(id="m-1", text="The Atlas pipeline runs on Jenkins.", created=NOW - 90 * DAY),
    Memory(id="m-2", text="Atlas keeps its data in Postgres.", created=NOW - 80 * DAY),
    Memory(id="m-3", text="The Beacon pipeline runs on CircleCI.", created=NOW - 20 * DAY),
    Memory(id="m-4", text="Beacon keeps its data in MongoDB.", created=NOW - 10 * DAY),
]


def said(*turns: str, system: str | None = None) -> list[dict[str, Any]]:
    """A conversation: user and assistant turns in turn, the last one the user's."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    last = len(turns) - 1
    roles = ["user" if (last - n) % 2 == 0 else "assistant" for n in range(len(turns))]
    return messages + [{"role": role, "content": text} for role, text in zip(roles, turns, strict=True)]


def ranked(index: MemoryIndex, query: Query) -> list[str]:
    return [s.memory.id for s in index.rank(query, now=NOW, limit=10)]


def weights(query: Query) -> dict[str, float]:
    return dict(zip(query.terms, query.weights, strict=True))


def test_a_follow_up_finds_what_it_means_through_the_turns_before_it() -> None:
    index = MemoryIndex(PROJECTS)
    messages = said(
        "Which database does Atlas use?", "Atlas keeps its data in Postgres.", "And what runs its pipeline?"
    )
    assert ranked(index, conversation_query(messages, 2))[0] == "m-1"
    assert ranked(index, Query.of("And what runs its pipeline?"))[0] == "m-3"  # alone it cannot tell which


def test_the_newest_message_outweighs_the_conversation_before_it() -> None:
    index = MemoryIndex(PROJECTS)
    messages = said("Tell me about Atlas.", "Sure, what about Atlas?", "Actually, where does Beacon keep its data?")
    assert ranked(index, conversation_query(messages, 2))[0] == "m-4"


def test_the_previous_user_turn_weighs_more_than_the_assistant_and_older_turns_fade() -> None:
    messages = said("kafka", "redis", "postgres", "mongodb", "what about sqlite?")
    got = weights(conversation_query(messages, 4))
    assert got["sqlite"] == 1.0
    assert got["postgr"] == conversation.USER_WEIGHT
    assert got["mongodb"] == conversation.ASSISTANT_WEIGHT
    assert got["kafka"] < got["postgr"] and got["redi"] < got["mongodb"]


def test_a_word_said_again_weighs_what_its_weightiest_turn_gives_it() -> None:
    messages = said("postgres postgres", "postgres", "is postgres fast?")
    assert weights(conversation_query(messages, 2)) == {"postgr": 1.0, "fast": 1.0}


def test_only_the_last_exchanges_count() -> None:
    turns = [f"topic{n}" for n in range(2 * conversation.MAX_EXCHANGES + 3)]
    messages = said(*turns)
    got = weights(conversation_query(messages, len(messages) - 1))
    assert turns[0] not in got and turns[1] not in got
    assert turns[-2] in got


def test_instructions_tool_results_and_images_add_no_words() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a Kubernetes expert."},
        {"role": "user", "content": [{"type": "text", "text": "Deploy status?"}, {"type": "image_url"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "terraform plan output"},
        {"role": "assistant", "content": "It is green."},
        {"role": "user", "content": "And staging?"},
    ]
    assert set(conversation_query(messages, 5).terms) == {"stage", "deploy", "status", "green"}


def test_a_long_earlier_turn_is_read_by_its_start_and_end() -> None:
    pasted = "traceback from kafka " + "filler words " * 2000 + " ends in zookeeper"
    got = conversation_query(said(pasted, "Looks like a broker issue.", "why?"), 2).terms
    assert {"kafka", "zookeep"} <= set(got) and len(got) <= 64


def test_names_and_numbers_weigh_more_than_plain_words() -> None:
    words, months = salient_terms("Which datastore backs Atlas? It listens on 6432, says the CI. Beacon too.")
    assert words["atlas"] == words["6432"] == words["ci"] == 2.0
    assert words["datastor"] == 1.0
    assert words["beacon"] == 1.0  # opening a sentence: a capital says nothing there
    assert months == set()


def test_a_month_is_read_from_the_words_and_may_only_as_a_name() -> None:
    assert salient_terms("what broke Atlas in march?")[1] == {3}
    assert salient_terms("May I ask what we decided in May?")[1] == {5}
    assert salient_terms("May I ask something?")[1] == set()


def test_a_named_month_favours_memories_saved_in_it() -> None:
    index = MemoryIndex(
        [
            Memory(id="m-1", text="We deploy Atlas to Heroku.", created=parse_ts("2026-03-04T10:00:00Z")),
            Memory(id="m-2", text="We moved Atlas to Fly.io.", created=parse_ts("2026-08-20T10:00:00Z")),
        ]
    )
    assert ranked(index, Query.of("Where did we deploy Atlas?"))[0] == "m-1"  # "deploy" matches it too
    assert ranked(index, Query.of("Where was Atlas in August?"))[0] == "m-2"
    assert ranked(index, Query.of("Where was Atlas in March?"))[0] == "m-1"


def test_a_day_written_as_an_ordinal_matches_its_number() -> None:
    assert sorted(terms("the 14th of March")) == sorted(terms("March 14"))
    index = MemoryIndex(
        [
            Memory(id="m-1", text="My sister's wedding is on March 14.", created=NOW - 9 * DAY),
            Memory(id="m-2", text="My cousin's party is on March 21.", created=NOW - DAY),
        ]
    )
    assert ranked(index, Query.of("What's happening on the 14th of March?"))[0] == "m-1"


def test_recall_chooses_a_new_sessions_block_from_its_conversation() -> None:
    """A client resending a conversation to a fresh session: the block is chosen for what it is about."""
    recall = Recall(MemorySettings(max_inject_count=1))
    messages = said(
        "Which database does Atlas use?", "Atlas keeps its data in Postgres.", "And what runs its pipeline?"
    )
    recalled = recall(("u", "w", "s-1"), messages, [MemoryIndex(PROJECTS)], now=NOW)
    assert recalled.ids == ("m-1",)
