"""Mixed turns made whole again on the client's follow-up (COMPAT E2, E3)."""

from __future__ import annotations

import copy
from typing import Any

from proxy.dialects.base import Call, call_message
from proxy.dialects.chat import tool_result
from proxy.dialects.chat_restore import restore_messages
from proxy.tools.hidden import HiddenTurns

ADA = ("ada", "repo")

STORE = Call("call_m1", "memory_store", '{"text": "User prefers tabs"}')
SEARCH = Call("call_m2", "memory_search", '{"query": "weather"}')
STORE_RESULT = tool_result(STORE, '{"ok":true,"id":"m-1"}')
SEARCH_RESULT = tool_result(SEARCH, '{"count":0,"memories":[]}')


def client_call(call_id: str, name: str = "get_weather", arguments: str = '{"city": "Paris"}') -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def answer(call_id: str, content: str = "sunny") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def assistant(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def keep_mixed_turn(turns: HiddenTurns, owner: tuple[str, str] = ADA) -> None:
    """The model called, in this order: memory_store, get_weather, memory_search, get_time."""
    turns.keep_calls(
        owner,
        "s1",
        ["call_m1", "call_c1", "call_m2", "call_c2"],
        [STORE, SEARCH],
        [STORE_RESULT["content"], SEARCH_RESULT["content"]],
    )


HEAD = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather and time in Paris?"}]
C1 = client_call("call_c1")
C2 = client_call("call_c2", "get_time", "{}")


def follow_up(*tail: dict[str, Any]) -> list[dict[str, Any]]:
    """What the client sends next: its own two calls and their results."""
    return [*HEAD, assistant(C1, C2), answer("call_c1"), answer("call_c2", "12:00"), *tail]


def test_a_mixed_turn_is_restored_in_the_models_order_with_every_result() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    restored = restore(turns, ADA, "s1", follow_up())
    assert restored is not None
    assert restored[:2] == HEAD
    turn = restored[2]
    assert turn["role"] == "assistant"
    assert [call["id"] for call in turn["tool_calls"]] == ["call_m1", "call_c1", "call_m2", "call_c2"]
    assert turn["tool_calls"][0] == call_message(STORE)
    assert turn["tool_calls"][1] == C1
    assert turn["tool_calls"][2] == call_message(SEARCH)
    assert turn["tool_calls"][3] == C2
    assert restored[3:] == [STORE_RESULT, answer("call_c1"), SEARCH_RESULT, answer("call_c2", "12:00")]


def test_every_tool_call_id_is_answered_exactly_once_right_after_its_turn() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    restored = restore(turns, ADA, "s1", follow_up())
    assert restored is not None
    call_ids = [call["id"] for call in restored[2]["tool_calls"]]
    answered = [m["tool_call_id"] for m in restored[3:] if m["role"] == "tool"]
    assert sorted(answered) == sorted(call_ids)
    assert len(restored) == 2 + 1 + 4


def test_client_results_sent_out_of_order_are_kept() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    messages = [*HEAD, assistant(C1, C2), answer("call_c2", "12:00"), answer("call_c1")]
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert answer("call_c1") in restored and answer("call_c2", "12:00") in restored
    assert [m["tool_call_id"] for m in restored[3:]] == ["call_m1", "call_c1", "call_m2", "call_c2"]


def test_the_assistant_messages_other_fields_are_kept() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    messages = [*HEAD, {**assistant(C1, C2, content="Checking."), "name": "bot"}, answer("call_c1"), answer("call_c2")]
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert restored[2]["content"] == "Checking." and restored[2]["name"] == "bot"


def test_messages_before_and_after_the_turn_are_untouched() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    tail = [{"role": "assistant", "content": "Sunny, noon."}, {"role": "user", "content": "Thanks"}]
    messages = follow_up(*tail)
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert restored[:2] == HEAD
    assert restored[-2:] == tail
    assert len(restored) == len(messages) + 2  # the two hidden calls' results


def test_the_input_list_is_not_mutated() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    messages = follow_up({"role": "user", "content": "Thanks"})
    before = copy.deepcopy(messages)
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None and restored is not messages
    assert messages == before


def test_another_user_or_workspace_restores_nothing() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    assert restore(turns, ("bob", "repo"), "s1", follow_up()) is None
    assert restore(turns, ("ada", "other"), "s1", follow_up()) is None
    assert restore(turns, ADA, "s1", follow_up()) is not None


def test_an_unknown_follow_up_is_sent_as_the_client_wrote_it() -> None:
    assert restore(HiddenTurns(), ADA, "s1", follow_up()) is None  # nothing kept at all (a restart)
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    unknown = [*HEAD, assistant(client_call("call_x")), answer("call_x")]
    assert restore(turns, ADA, "s1", unknown) is None
    assert restore(turns, ADA, "s1", HEAD) is None


def test_a_client_that_sent_the_whole_turn_is_left_alone() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    whole = [
        *HEAD,
        assistant(call_message(STORE), C1, call_message(SEARCH), C2),
        STORE_RESULT,
        answer("call_c1"),
        SEARCH_RESULT,
        answer("call_c2"),
    ]
    assert restore(turns, ADA, "s1", whole) is None


def test_the_turn_is_found_by_any_of_its_client_calls() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    only_second = [*HEAD, assistant(C2), answer("call_c2", "12:00")]  # a client that dropped one of its calls
    restored = restore(turns, ADA, "s1", only_second)
    assert restored is not None
    assert [call["id"] for call in restored[2]["tool_calls"]] == ["call_m1", "call_m2", "call_c2"]
    assert [m["tool_call_id"] for m in restored[3:]] == ["call_m1", "call_m2", "call_c2"]


def test_a_client_call_the_proxy_never_saw_stays_with_its_result() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    extra = client_call("call_extra", "lookup")
    messages = [*HEAD, assistant(C1, C2, extra), answer("call_c1"), answer("call_c2"), answer("call_extra", "x")]
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert [call["id"] for call in restored[2]["tool_calls"]][-1] == "call_extra"
    assert answer("call_extra", "x") in restored[3:]
    assert len(restored) == len(messages) + 2


def test_every_remembered_turn_of_a_conversation_is_restored() -> None:
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    later = Call("call_m3", "memory_delete", '{"id": "m-1"}')
    later_result = tool_result(later, '{"ok":true,"id":"m-1"}')
    turns.keep_calls(ADA, "s1", ["call_c3", "call_m3"], [later], [later_result["content"]])
    c3 = client_call("call_c3", "get_weather", '{"city": "Rome"}')
    messages = follow_up(
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "And Rome?"},
        assistant(c3),
        answer("call_c3", "rain"),
    )
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert [call["id"] for call in restored[-3]["tool_calls"]] == ["call_c3", "call_m3"]
    assert restored[-2:] == [answer("call_c3", "rain"), later_result]
    assert [call["id"] for call in restored[2]["tool_calls"]] == ["call_m1", "call_c1", "call_m2", "call_c2"]


def test_the_limit_forgets_the_oldest_turns_first() -> None:
    turns = HiddenTurns(limit=2)
    for n in (1, 2, 3):
        hidden = Call(f"call_m{n}", "memory_search", "{}")
        turns.keep_calls(ADA, "s1", [f"call_m{n}", f"call_c{n}"], [hidden], ["{}"])

    def restores(n: int) -> bool:
        messages = [*HEAD, assistant(client_call(f"call_c{n}")), answer(f"call_c{n}")]
        return restore(turns, ADA, "s1", messages) is not None

    assert not restores(1)
    assert restores(2) and restores(3)


def test_an_upstream_reusing_call_ids_never_splices_a_turn_into_another_session() -> None:
    """Some local servers number calls call_0, call_1... in every turn: the session scopes a kept turn."""
    turns = HiddenTurns()
    store = Call("call_0", "memory_store", '{"text":"x"}')
    turns.keep_calls(ADA, "s1", ["call_0", "call_1"], [store], ['{"ok":true}'], [("call_1", "get_time")])
    other_session = [*HEAD, assistant(C_ZERO_ONE), tool_result_message("call_1", "12:00")]
    assert restore(turns, ADA, "s2", other_session) is None
    assert restore(turns, ADA, "s1", other_session) is not None


def test_a_message_with_other_calls_under_a_kept_id_is_left_as_the_client_sent_it() -> None:
    turns = HiddenTurns()
    store = Call("call_0", "memory_store", '{"text":"x"}')
    turns.keep_calls(ADA, "s1", ["call_0", "call_1"], [store], ['{"ok":true}'], [("call_1", "get_time")])
    renamed = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    assert restore(turns, ADA, "s1", [*HEAD, assistant(renamed), tool_result_message("call_1", "x")]) is None


C_ZERO_ONE = {"id": "call_1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}


def tool_result_message(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def restore(turns: HiddenTurns, owner: tuple[str, str], session: str, messages: list[dict[str, Any]]) -> Any:
    """What the chat dialect makes of a follow-up with what the tool loop kept."""
    kept = turns.kept(owner, session)
    return restore_messages(messages, kept) if kept is not None else None


def test_calls_and_results_whose_ids_are_not_strings_are_kept_where_the_client_put_them() -> None:
    """Not ours to judge (the upstream's 400), and never a 500: an unhashable id once failed the restore."""
    turns = HiddenTurns()
    keep_mixed_turn(turns)
    odd_call = {"id": ["x"], "type": "function", "function": {"name": "f", "arguments": "{}"}}
    odd_answer = {"role": "tool", "tool_call_id": {"a": 1}, "content": "?"}
    messages = [*HEAD, assistant(C1, C2, odd_call), answer("call_c1"), odd_answer, answer("call_c2", "12:00")]
    restored = restore(turns, ADA, "s1", messages)
    assert restored is not None
    assert restored[2]["tool_calls"] == [call_message(STORE), C1, call_message(SEARCH), C2, odd_call]
    assert restored[3:] == [STORE_RESULT, answer("call_c1"), SEARCH_RESULT, answer("call_c2", "12:00"), odd_answer]
