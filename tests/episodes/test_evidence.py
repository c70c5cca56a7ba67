"""What a conversation shows of the tools that fed it (proxy.episodes.evidence): results need their call in sight."""

from typing import Any

from proxy.episodes.evidence import UNSEEN_CALL, tools_seen


def calls(*pairs: tuple[str, str]) -> dict[str, Any]:
    tool_calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}} for i, n in pairs]
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}


def result(call_id: str | None, **fields: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "x", **fields}


USER = {"role": "user", "content": "go"}


def test_calls_and_results_with_their_calls_name_only_the_tools() -> None:
    conversation = [USER, calls(("c1", "get_weather"), ("c2", "Read")), result("c1"), result("c2")]
    assert tools_seen(conversation) == {"get_weather", "Read"}


def test_a_result_whose_call_is_not_in_sight_is_unseen() -> None:
    assert tools_seen([USER, result("gone")]) == {UNSEEN_CALL}
    assert tools_seen([USER, result(None)]) == {UNSEEN_CALL}
    assert tools_seen([USER, result("gone", name="get_weather")]) == {UNSEEN_CALL, "get_weather"}


def test_a_call_after_its_result_does_not_vouch_for_it() -> None:
    assert UNSEEN_CALL in tools_seen([USER, result("c1"), calls(("c1", "get_weather"))])


def test_only_the_new_messages_are_read_but_their_calls_may_be_earlier() -> None:
    conversation = [USER, calls(("c1", "get_weather")), result("c1"), USER, result("gone")]
    assert tools_seen(conversation, start=2) == {UNSEEN_CALL}
    assert tools_seen(conversation[:3], start=2) == set()  # the call was looked at before: its result is in sight


def test_a_chained_requests_calls_made_upstream_vouch_for_their_results() -> None:
    assert tools_seen([result("call_up")], known=["call_up"]) == set()
    assert tools_seen([result("call_up")], known=["other"]) == {UNSEEN_CALL}


def test_a_legacy_function_result_needs_its_function_call() -> None:
    call = {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": "{}"}}
    answer = {"role": "function", "name": "lookup", "content": "x"}
    assert tools_seen([USER, call, answer]) == {"lookup"}
    assert tools_seen([USER, answer]) == {"lookup", UNSEEN_CALL}


def test_what_a_dialect_marked_as_outside_is_named() -> None:
    marked = {"role": "assistant", "content": None, "outside": ["item_reference", "web_fetch"]}
    assert tools_seen([USER, marked]) == {"item_reference", "web_fetch"}
