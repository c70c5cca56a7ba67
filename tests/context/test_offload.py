"""Which tool results leave the request, and the placeholder in their place (pure)."""

from proxy.context.offload import describe, offloadable, placeholder, tool_text
from proxy.memory.details import detail_id
from proxy.memory.store import Owner

BIG = "line of build output\n" * 1000  # 21,000 characters


def call(call_id: str, name: str, arguments: str = "{}") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def step(call_id: str, name: str, output: str, arguments: str = "{}") -> list[dict]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [call(call_id, name, arguments)]},
        {"role": "tool", "tool_call_id": call_id, "content": output},
    ]


def test_an_earlier_turns_long_result_is_offloaded_with_its_call() -> None:
    messages = [{"role": "user", "content": "build it"}, *step("c1", "bash", BIG, '{"cmd": "make"}')]
    messages += step("c2", "bash", "short")
    found = offloadable(messages, 8000)
    assert [(o.index, o.tool, o.arguments, o.content) for o in found] == [(2, "bash", '{"cmd": "make"}', BIG)]


def test_the_newest_turns_results_always_go_whole() -> None:
    messages = [{"role": "user", "content": "build it"}, *step("c1", "bash", BIG)]
    assert offloadable(messages, 8000) == []
    parallel = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [call("a", "bash"), call("b", "bash")]},
        {"role": "tool", "tool_call_id": "a", "content": BIG},
        {"role": "tool", "tool_call_id": "b", "content": BIG},
    ]
    assert offloadable(parallel, 8000) == []


def test_short_results_and_the_proxys_own_tools_stay() -> None:
    messages = [*step("c1", "memory_retrieve", BIG), *step("c2", "bash", "ok"), {"role": "user", "content": "next"}]
    assert offloadable(messages, 8000, keep={"memory_retrieve"}) == []
    assert [o.index for o in offloadable(messages, 8000)] == [1]


def test_text_parts_count_and_images_stay() -> None:
    assert tool_text([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "a\nb"
    assert tool_text([{"type": "image_url", "image_url": {"url": "data:"}}]) is None


def test_the_same_output_yields_the_same_placeholder_byte_for_byte() -> None:
    ada = Owner("ada", "default")
    first = placeholder(detail_id(ada, BIG), describe("bash", '{"cmd":\n "make"}'), len(BIG))
    again = placeholder(detail_id(ada, BIG), describe("bash", '{"cmd":\n "make"}'), len(BIG))
    assert first == again
    assert first.startswith("[MemoryRef: r-")
    assert first.endswith('- bash {"cmd": "make"}] (21000 chars; memory_retrieve reads it)')
    assert detail_id(Owner("bob", "default"), BIG) != detail_id(ada, BIG)  # another user's id is another id


def test_a_description_is_one_short_line() -> None:
    line = describe("read_file", '{"path": "' + "a/" * 200 + '"}')
    assert "\n" not in line and len(line) <= 120 and line.endswith("…")
    assert describe("", "") == "tool output"
