"""Chat's restore as a pure function of kept turns: the same follow-ups as the tool loop's store makes today."""

from __future__ import annotations

from typing import Any

from proxy.dialects.base import Call, KeptTurn, call_message
from proxy.dialects.chat import CHAT, tool_result

ADA = ("ada", "repo")
STORE = Call("call_m1", "memory_store", '{"text": "User prefers tabs"}')
SEARCH = Call("call_m2", "memory_search", '{"query": "weather"}')
RESULTS = ('{"ok":true,"id":"m-1"}', '{"count":0,"memories":[]}')
KEPT = KeptTurn(("call_m1", "call_c1", "call_m2", "call_c2"), (STORE, SEARCH), RESULTS)


def client_call(call_id: str, name: str = "get_weather") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def answer(call_id: str, content: str = "sunny") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def assistant(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


HEAD = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather and time?"}]
C1, C2 = client_call("call_c1"), client_call("call_c2", "get_time")


def kept(call_id: str) -> KeptTurn | None:
    return KEPT if call_id in ("call_c1", "call_c2") else None


FOLLOW_UPS = {
    "both calls answered": [*HEAD, assistant(C1, C2), answer("call_c1"), answer("call_c2", "12:00")],
    "answers out of order": [*HEAD, assistant(C1, C2), answer("call_c2", "12:00"), answer("call_c1")],
    "one call dropped": [*HEAD, assistant(C2), answer("call_c2", "12:00")],
    "an extra client call": [
        *HEAD,
        assistant(C1, C2, client_call("call_x")),
        answer("call_c1"),
        answer("call_c2"),
        answer("call_x"),
    ],
    "a tail after the turn": [
        *HEAD,
        assistant(C1, C2, content="Checking."),
        answer("call_c1"),
        answer("call_c2"),
        {"role": "assistant", "content": "Sunny, noon."},
        {"role": "user", "content": "Thanks"},
    ],
    "sent whole": [
        *HEAD,
        assistant(call_message(STORE), C1, call_message(SEARCH), C2),
        answer("call_m1"),
        answer("call_c1"),
        answer("call_m2"),
        answer("call_c2"),
    ],
    "unknown calls": [*HEAD, assistant(client_call("call_y")), answer("call_y")],
    "no calls": HEAD,
}


def test_a_restored_turn_answers_every_call_in_the_models_order() -> None:
    restored = CHAT.restore({"model": "m", "messages": FOLLOW_UPS["both calls answered"]}, kept)
    assert restored is not None and restored["model"] == "m"
    turn = restored["messages"][2]
    assert turn["tool_calls"] == [call_message(STORE), C1, call_message(SEARCH), C2]
    assert restored["messages"][3:] == [
        tool_result(STORE, RESULTS[0]),
        answer("call_c1"),
        tool_result(SEARCH, RESULTS[1]),
        answer("call_c2", "12:00"),
    ]


def test_nothing_kept_leaves_the_request_alone() -> None:
    assert CHAT.restore({"messages": FOLLOW_UPS["both calls answered"]}, lambda call_id: None) is None
