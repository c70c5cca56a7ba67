"""Who may name which upstream object: the ids a request names (path and body), and the ring that knows owners."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from proxy.auth.object_refs import ObjectPath, Reference, object_path, references, request_references
from proxy.auth.objects import UpstreamObjects
from proxy.memory.backends.object_files import FilesObjects

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("/v1/responses/resp_1", ObjectPath("responses", "resp_1")),
        ("/v1/responses/resp_1/input_items", ObjectPath("responses", "resp_1")),
        ("/responses/resp_1/cancel", ObjectPath("responses", "resp_1")),
        ("/v1/conversations/conv_1/items/msg_2", ObjectPath("conversations", "conv_1")),
        ("/v1/files", ObjectPath("files", None)),
        ("/v1/files/file-1/content", ObjectPath("files", "file-1")),
        ("/v1/messages/batches", ObjectPath("messages/batches", None)),
        ("/v1/messages/batches/msgbatch_1/results", ObjectPath("messages/batches", "msgbatch_1")),
        ("/v1/chat/completions/chatcmpl-1", ObjectPath("chat/completions", "chatcmpl-1")),
        ("/v1/fine_tuning/jobs/ftjob-1/events", ObjectPath("fine_tuning/jobs", "ftjob-1")),
        ("/v1/vector_stores/vs_1/files/file-2", ObjectPath("vector_stores", "vs_1")),
    ],
)
def test_a_path_names_its_collection_and_object(path: str, named: ObjectPath) -> None:
    assert object_path(path) == named


@pytest.mark.parametrize("path", ["/v1/models", "/v1/models/gpt-4o", "/v1/embeddings", "/v1/messages/count_tokens"])
def test_paths_of_shared_things_name_no_object(path: str) -> None:
    assert object_path(path) is None


def test_every_object_a_model_request_names_is_found() -> None:
    payload = {
        "previous_response_id": "resp_1",
        "conversation": {"id": "conv_1"},
        "input": [
            {"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]},
            {"type": "function_call_output", "call_id": "c", "output": [{"type": "input_image", "file_id": "file-2"}]},
        ],
        "tools": [
            {"type": "file_search", "vector_store_ids": ["vs_1", "vs_2"]},
            {"type": "code_interpreter", "container": "cntr_1"},
            {"type": "code_interpreter", "container": {"type": "auto"}},
        ],
    }
    assert request_references(payload) == [
        Reference("previous_response_id", "resp_1"),
        Reference("conversation", "conv_1"),
        Reference("vector_store_ids", "vs_1"),
        Reference("vector_store_ids", "vs_2"),
        Reference("container", "cntr_1"),
        Reference("file_id", "file-1"),
        Reference("file_id", "file-2"),
    ]


def test_chat_and_anthropic_file_parts_are_found() -> None:
    chat = {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-c"}}]}]}
    document = {"type": "document", "source": {"type": "file", "file_id": "file_a"}}
    result = {"type": "tool_result", "tool_use_id": "t", "content": [document]}
    anthropic = {"messages": [{"role": "user", "content": [document, result]}]}
    assert request_references(chat) == [Reference("file_id", "file-c")]
    assert request_references(anthropic) == [Reference("file_id", "file_a"), Reference("file_id", "file_a")]


def test_a_key_spelt_with_an_escape_is_the_same_key_once_parsed() -> None:
    body = b'{"model": "m", "previous_resp\\u006fnse_id": "resp_1"}'
    assert request_references(orjson.loads(body)) == [Reference("previous_response_id", "resp_1")]


def test_a_pass_through_body_is_read_wherever_it_names_objects() -> None:
    batch = {"input_file_id": "file-in", "requests": [{"params": {"messages": [{"file_ids": ["file-x"]}]}}]}
    assert references(batch) == [Reference("input_file_id", "file-in"), Reference("file_ids", "file-x")]


def test_a_request_naming_nothing_names_nothing() -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}] * 1000}
    assert request_references(payload) == []


async def test_an_id_is_its_makers_alone_and_one_nobody_made_is_nobodys(tmp_path: Path) -> None:
    objects = UpstreamObjects(FilesObjects(tmp_path), ttl_s=3600, per_user=10, lookup_waits_s=())
    objects.bind("ada", ["resp_a", None])
    objects.bind("bob", ["resp_a", "resp_b"])  # an id bound before keeps its maker
    assert await objects.first_not_owned("ada", ["resp_a"]) is None
    assert await objects.first_not_owned("bob", ["resp_b", "resp_a"]) == "resp_a"
    assert await objects.first_not_owned("ada", ["resp_unknown"]) == "resp_unknown"
    await objects.aclose()


async def test_another_process_learns_the_maker_from_the_store(tmp_path: Path) -> None:
    here = UpstreamObjects(FilesObjects(tmp_path), ttl_s=3600, per_user=10, lookup_waits_s=())
    there = UpstreamObjects(FilesObjects(tmp_path), ttl_s=3600, per_user=10, lookup_waits_s=())
    here.bind("ada", ["resp_a"])
    await here.flush()
    assert await there.first_not_owned("bob", ["resp_a"]) == "resp_a"
    assert await there.first_not_owned("ada", ["resp_a"]) is None
    await here.aclose()
    await there.aclose()


async def test_a_lookup_waits_briefly_for_a_binding_another_process_is_writing(tmp_path: Path) -> None:
    here = UpstreamObjects(FilesObjects(tmp_path), ttl_s=3600, per_user=10)
    there = UpstreamObjects(FilesObjects(tmp_path), ttl_s=3600, per_user=10)
    here.bind("ada", ["resp_a"])  # not written yet
    here.start()  # the writer writes it in the background, while `there` looks
    assert await there.first_not_owned("ada", ["resp_a"]) is None
    await here.aclose()
    await there.aclose()


async def test_a_binding_past_its_time_is_nobodys(tmp_path: Path) -> None:
    now = [1000.0]
    objects = UpstreamObjects(FilesObjects(tmp_path), ttl_s=60, per_user=10, clock=lambda: now[0], lookup_waits_s=())
    objects.bind("ada", ["resp_a"])
    await objects.flush()
    now[0] += 61
    assert await objects.first_not_owned("ada", ["resp_a"]) == "resp_a"
    await asyncio.sleep(0)
    await objects.aclose()
