from typing import Any

from proxy.config import MemorySettings
from proxy.memory import query as conversation
from proxy.memory.query import conversation_query
from proxy.memory.ranking import MAX_QUERY_TERMS, MemoryIndex, Query, salient_terms, terms
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


def test_a_capital_names_something_only_inside_a_sentence() -> None:
    """What counts as a sentence's start: the text's, and after an end, a line break, a quote or a list mark."""
    words, _ = salient_terms("we use Atlas, Beacon (Comet) and Drift; then\nEcho runs.\tFoxtrot too")
    assert words["atlas"] == words["beacon"] == words["drift"] == 2.0
    assert words["comet"] == words["echo"] == words["foxtrot"] == 1.0
    words, _ = salient_terms('  Golf said "Hotel" to: India -\tJuliet *Kilo #Lima >Mike')
    assert words == {"golf": 1.0, "hotel": 1.0, "said": 1.0, "india": 1.0, "juliet": 1.0, "kilo": 1.0, "lima": 1.0,
                     "mike": 1.0}  # fmt: skip
    words, _ = salient_terms("via Zürich and Ōsaka, then \u00a0Tokyo")  # any script; a no-break space is no blank
    assert words == {"via": 1.0, "zürich": 2.0, "ōsaka": 2.0, "tokyo": 2.0}


def test_acronyms_numbers_and_ordinals_weigh_as_names_wherever_they_stand() -> None:
    words, months = salient_terms("CI broke on the 14th. 2nd run of v2 on port 6432 passed. OK? K8s too.")
    assert words["ci"] == words["14"] == words["2"] == words["v2"] == words["6432"] == words["k8s"] == 2.0
    assert words["broke"] == words["run"] == 1.0
    assert "ok" in words and "the" not in words and "on" not in words
    assert months == set()
    assert salient_terms("the 1ST and 3rd-party 21st")[0] == {"1": 2.0, "3": 2.0, "parti": 1.0, "21": 2.0}


def test_may_and_the_other_months_are_read_as_written() -> None:
    assert salient_terms("MAY we ship? In MAY, maybe")[1] == {5}  # an acronym-looking MAY inside a sentence
    assert salient_terms("MAY we ship?")[1] == set()
    assert salient_terms("Shipped.\nMay 3rd was fine")[1] == set()  # opening a line: the verb as often as not
    assert salient_terms("in june or JULY, then: august")[1] == {6, 7, 8}


def test_past_the_cap_a_later_turn_adds_no_term_but_still_raises_a_kept_one() -> None:
    newest = " ".join(f"w{n}x" for n in range(MAX_QUERY_TERMS - 4))  # each with a digit: weighs double
    query = Query.weighted([(newest, 1.0), ("alpha beta gamma delta epsilon zeta", 0.3), ("so beta and zeta", 0.5)])
    got = weights(query)
    assert len(got) == MAX_QUERY_TERMS and list(got)[-4:] == ["alpha", "beta", "gamma", "delta"]
    assert got["w0x"] == 2.0 and got["alpha"] == 0.3 and got["beta"] == 0.5 and "zeta" not in got


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
