"""Each dialect applies the same context edits in its own shapes: placeholders in place, old turns out (pure)."""

from proxy.context.edits import ContextEdits
from proxy.context.window import turn_starts
from proxy.dialects.chat import CHAT
from proxy.dialects.messages import MESSAGES
from proxy.dialects.responses import RESPONSES


def test_no_edits_leave_the_body_as_it_came() -> None:
    payload = {"messages": [{"role": "user", "content": "hi"}]}
    assert CHAT.rewrite_context(payload, ContextEdits()) is payload
    assert RESPONSES.rewrite_context({"input": "hi"}, ContextEdits()) == {"input": "hi"}


def test_chat_keeps_instructions_and_puts_the_overview_after_them() -> None:
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "one"},
        {"role": "system", "content": "a note the client put mid-conversation"},
        {"role": "assistant", "content": "1"},
        {"role": "user", "content": "two"},
    ]
    rewritten = CHAT.rewrite_context({"messages": messages}, ContextEdits(cut=4, overview="OVERVIEW"))
    assert [m["content"] for m in rewritten["messages"]] == ["rules", messages[2]["content"], "OVERVIEW", "two"]
    assert messages[1]["content"] == "one"  # the client's body is never edited in place


def test_responses_drops_a_cut_turns_reasoning_and_calls_and_replaces_outputs_in_place() -> None:
    items = [
        {"type": "message", "role": "developer", "content": "rules"},
        {"role": "user", "content": "one"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "old"},
        {"role": "user", "content": "two"},
        {"type": "function_call", "call_id": "c2", "name": "bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "big"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "three"},
    ]
    view = RESPONSES.context_view({"input": items})
    starts = turn_starts(view.messages, view.positions)
    output = next(i for i, m in enumerate(view.messages) if m.get("content") == "big")
    edits = ContextEdits({output: "[MemoryRef: r-0]"}, cut=starts[1], overview="OVERVIEW")
    sent = RESPONSES.rewrite_context({"input": items}, edits)["input"]
    assert sent[0] == items[0] and sent[1] == {"type": "message", "role": "developer", "content": "OVERVIEW"}
    assert sent[2] == items[5] and sent[4]["output"] == "[MemoryRef: r-0]" and len(sent) == 7
    assert not any(item.get("type") == "reasoning" for item in sent)


def test_messages_replaces_a_tool_results_content_and_keeps_its_other_fields() -> None:
    payload = {
        "system": "rules",
        "messages": [
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "big", "is_error": False},
                    {"type": "text", "text": "and?"},
                ],
            },
        ],
    }
    view = MESSAGES.context_view(payload)
    index = next(i for i, m in enumerate(view.messages) if m["role"] == "tool")
    sent = MESSAGES.rewrite_context(payload, ContextEdits({index: "REF"}))
    assert sent["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "REF",
        "is_error": False,
    }
    assert sent["messages"][2]["content"][1] == {"type": "text", "text": "and?"} and sent["system"] == "rules"
