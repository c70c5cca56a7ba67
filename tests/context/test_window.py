"""Which old turns leave the request, in steps, never splitting a tool call from its result (pure)."""

from proxy.context.clock import TurnClock
from proxy.context.window import buffer_line, overview, pair_safe, turn_starts, turns_to_drop


def conversation(turns: int, *, tools: bool = False) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": "Be brief."}]
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n} about the build"})
        if tools:
            messages.append(
                {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}", "function": {"name": "bash"}}]}
            )
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"})
        messages.append({"role": "assistant", "content": f"answer {n}"})
    return messages


def test_nothing_is_dropped_until_the_window_plus_a_step() -> None:
    assert [turns_to_drop(n, 20) for n in (1, 20, 24)] == [0, 0, 0]
    assert [turns_to_drop(n, 20) for n in (25, 29, 30, 34, 35, 60)] == [5, 5, 10, 10, 15, 40]


def test_between_two_trims_the_same_turns_are_dropped() -> None:
    drops = [turns_to_drop(n, 8) for n in range(10, 20)]
    assert drops == [2, 2, 4, 4, 6, 6, 8, 8, 10, 10]  # a step of 2: it moves every other turn, never back


def test_turns_start_at_user_messages_and_a_cut_keeps_tool_pairs_whole() -> None:
    messages = conversation(6, tools=True)
    starts = turn_starts(messages, list(range(len(messages))))
    assert starts == [1, 5, 9, 13, 17, 21]
    cut = starts[pair_safe(messages, starts, 3)]
    kept = messages[cut:]
    calls = {c["id"] for m in kept for c in m.get("tool_calls") or ()}
    assert all(m["tool_call_id"] in calls for m in kept if m["role"] == "tool")


def test_a_cut_that_would_orphan_a_result_drops_fewer_turns() -> None:
    messages = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "function": {"name": "bash"}}]},
        {"role": "user", "content": "an interjection"},  # a client that put a user message between call and result
        {"role": "tool", "tool_call_id": "x", "content": "ok"},
        {"role": "user", "content": "three"},
    ]
    starts = turn_starts(messages, list(range(len(messages))))
    assert pair_safe(messages, starts, 2) == 2
    assert pair_safe(messages, starts, 1) == 0


def test_a_user_turn_holding_tool_results_continues_its_step() -> None:
    # Anthropic's user turn [tool_result, text] viewed as a tool message then a user message at the same place
    messages = [{"role": "user", "content": "a"}, {"role": "assistant"}, {"role": "tool"}, {"role": "user"}]
    assert turn_starts(messages, [0, 1, 2, 2]) == [0]


def test_the_overview_is_one_buffer_line_per_turn_and_stable_between_trims() -> None:
    clock = TurnClock()
    users = [m for m in conversation(30) if m["role"] == "user"]
    first = clock.times(("ada", "w", "s"), users[:25], now=1_700_000_000.0)
    later = clock.times(("ada", "w", "s"), users, now=1_700_000_600.0)
    assert later[:25] == first and later[25] == 1_700_000_600.0
    lines = [buffer_line(t, "user", m["content"]) for t, m in zip(later[:5], users, strict=False)]
    assert lines[0] == "22:13 user: question 0 about the build"
    text = overview(lines)
    assert text == overview(lines) and text.count("\n") == 6 and 'source "history"' in text


def test_long_first_words_are_cut() -> None:
    line = buffer_line(0, "user", "word " * 50)
    assert line.startswith("00:00 user: word word") and line.endswith("…") and len(line) < 120


def test_odd_shapes_a_client_sends_are_skipped_never_a_crash() -> None:
    odd = [
        {"role": "user", "content": {"not": "text"}},
        {"role": "assistant", "tool_calls": 5},
        {"role": "assistant", "tool_calls": ["x", {"id": [1]}]},
        {"role": "tool", "tool_call_id": {"x": 1}, "content": "y"},
    ] * 10
    starts = turn_starts(odd, list(range(len(odd))))
    assert pair_safe(odd, starts, turns_to_drop(len(starts), 4)) == 6
    assert TurnClock().times(("a", "w", "s"), [odd[i] for i in starts], 1.0) == [1.0] * 10
