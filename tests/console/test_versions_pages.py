"""A memory's versions in the console, in-process: every change listed with who made it and how, Restore of an earlier
one (and of a deleted memory: undo), forms that carry the version they were made from and are refused when it is
stale (nothing overwritten), and the counts and links a memory's page shows."""

from __future__ import annotations

import re

import pytest

from proxy.memory.caller import Identity
from proxy.memory.store import Owner
from proxy.memory.versions import Actor
from proxy.services import Services

from .conftest import BrowserFor, new_key
from .pages import Browser

pytestmark = pytest.mark.anyio

ADA = Identity("ada")


async def signed_in(services: Services, browser_for: BrowserFor, user: str = "ada") -> tuple[Browser, str]:
    key_id, key = await new_key(services, user)
    browser = browser_for(services)
    assert (await browser.sign_in(key)).status_code == 303
    return browser, key_id


def versions_of(html: str) -> list[str]:
    """Each listed version's number and change, top to bottom: ``["v3 edited", ...]``."""
    found = re.findall(
        r'<li class="version[^"]*" id="v(\d+)">\s*<div class="who">\s*<span class="badge[^"]*">(\w+)', html
    )
    return [f"v{number} {change}" for number, change in found]


async def test_every_version_is_listed_newest_first_with_who_made_it_and_an_earlier_one_restores(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, key_id = await signed_in(keyed, browser_for)
    stored = await keyed.memory.add(ADA, {"text": "Deploys go out on Tuesdays"}, origin="api", actor=Actor.person(ADA))
    memory_id = stored.memory.id
    await keyed.memory.edit(ADA, memory_id, {"text": "Deploys go out on Wednesdays"}, actor=Actor.model("chat-7"))
    await keyed.memory.edit(ADA, memory_id, {"text": "Deploys go out on Thursdays"},
                            actor=Actor.extraction("e-0123456789abcdef", "chat-8"))  # fmt: skip
    page = (await browser.get(f"/ui/memories/{memory_id}")).text
    assert versions_of(page) == ["v3 edited", "v2 edited", "v1 created"]
    assert (
        'extraction of episode <code>e-0123456789abcdef</code> (session <a class="text" href="/ui/sessions/chat-8">'
        in page
    )
    assert 'the model in session <a class="text" href="/ui/sessions/chat-7">chat-7</a>' in page
    assert "a person via api" in page
    assert page.count(">Restore</button>") == 2  # the earlier versions; the current one needs none

    restored = await browser.post(f"/ui/memories/{memory_id}/restore", {"restore": "1", "version": "3"})
    assert restored.status_code == 303 and restored.headers["location"] == (
        f"/ui/memories/{memory_id}?done=restored&id={memory_id}"
    )
    memory = (await keyed.memory.inspect(ADA, memory_id)).memory
    assert (memory.text, memory.version, memory.change) == ("Deploys go out on Tuesdays", 4, "restored")
    assert memory.actor == Actor("person", key_id=key_id, via="console")  # every console write names its key
    page = (await browser.get(f"/ui/memories/{memory_id}?done=restored&id={memory_id}")).text
    assert versions_of(page)[0] == "v4 restored" and f"you via console (key <code>{key_id}</code>)" in page
    assert f"Restored {memory_id}" in page

    edited = await browser.post(f"/ui/memories/{memory_id}/edit", {"text": "Deploys go out on Fridays", "version": "4"})
    assert edited.status_code == 303
    pinned = await browser.post(f"/ui/memories/{memory_id}/pin", {"version": "5"})
    assert pinned.status_code == 303
    history = await keyed.memory.versions(ADA, memory_id)
    assert [(v.version, v.change, v.actor.via) for v in history[:2]] == [
        (6, "pinned", "console"),
        (5, "edited", "console"),
    ]


async def test_a_stale_form_is_refused_with_the_memory_as_it_is_now_and_overwrites_nothing(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, _ = await signed_in(keyed, browser_for)
    memory_id = (await keyed.memory.add(ADA, {"text": "The cache is Redis 6"}, origin="api")).memory.id
    page = (await browser.get(f"/ui/memories/{memory_id}")).text
    assert '<input type="hidden" name="version" value="1">' in page  # every form says which version it was made from
    await keyed.memory.edit(ADA, memory_id, {"text": "The cache is Redis 7"})  # meanwhile, elsewhere: v2
    for path, fields in [
        ("edit", {"text": "The cache is Memcached", "version": "1"}),
        ("pin", {"version": "1"}),
        ("delete", {"version": "1"}),
        ("restore", {"restore": "1", "version": "1"}),
        ("edit", {"text": "The cache is Memcached"}),  # a form that names no version is never taken as current
    ]:
        refused = await browser.post(f"/ui/memories/{memory_id}/{path}", fields)
        assert refused.status_code == 412, (path, fields)
        assert "This memory changed since you opened it" in refused.text
        assert "The cache is Redis 7" in refused.text  # what it is now
        assert "Nothing was saved" in refused.text
        if "text" in fields:
            assert "What you wrote" in refused.text and "The cache is Memcached" in refused.text
    memory = (await keyed.memory.inspect(ADA, memory_id)).memory
    assert (memory.text, memory.version, memory.pinned) == ("The cache is Redis 7", 2, False)
    assert len(await keyed.memory.versions(ADA, memory_id)) == 2


async def test_a_deleted_memory_says_so_and_restore_or_the_notices_undo_brings_it_back(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, key_id = await signed_in(keyed, browser_for)
    memory_id = (await keyed.memory.add(ADA, {"text": "Staging runs on k3s"}, origin="api")).memory.id
    deleted = await browser.post(f"/ui/memories/{memory_id}/delete", {"version": "1"})
    assert deleted.headers["location"] == f"/ui/memories?done=deleted&id={memory_id}&v=2"
    notice = (await browser.get(deleted.headers["location"])).text
    assert (
        f'action="/ui/memories/{memory_id}/restore"' in notice
        and '<input type="hidden" name="restore" value="2">' in notice
    )
    gone = (await browser.get(f"/ui/memories/{memory_id}")).text
    assert ">deleted</span>" in gone and "Staging runs on k3s" in gone
    assert f"This memory was deleted by you via console (key <code>{key_id}</code>)" in gone
    assert versions_of(gone) == ["v2 deleted", "v1 created"]
    undone = await browser.post(f"/ui/memories/{memory_id}/restore", {"restore": "2", "version": "2"})  # Undo
    assert undone.status_code == 303
    memory = (await keyed.memory.inspect(ADA, memory_id)).memory
    assert (memory.text, memory.version, memory.change) == ("Staging runs on k3s", 3, "restored")
    again = await browser.post(f"/ui/memories/{memory_id}/restore", {"restore": "2", "version": "2"})
    assert again.status_code == 412  # the undo, sent twice, changes nothing more
    assert (await browser.get("/ui/memories/m-424242")).status_code == 404  # never there: no page at all


async def test_a_memorys_page_shows_its_counts_and_what_it_superseded_and_what_superseded_it(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, _ = await signed_in(keyed, browser_for)
    old = await keyed.memory.add(ADA, {"text": "The billing service listens on port 8443"}, origin="api")
    new = await keyed.memory.add(ADA, {"text": "The billing service listens on port 8443 and 9443"}, origin="api")
    assert new.superseded is not None and new.superseded.id == old.memory.id
    await keyed.memory.store.count_injected(Owner("ada", "default"), {new.memory.id: (3, 1.7e9)})
    keyed.memory.count_uses(ADA, [new.memory])
    await keyed.memory.flush_uses()
    page = (await browser.get(f"/ui/memories/{new.memory.id}")).text
    assert "into 3 sessions, last" in page and "1 time, last" in page
    assert f'It superseded</dt><dd><a href="/ui/memories/{old.memory.id}">{old.memory.id}</a>' in page
    older = (await browser.get(f"/ui/memories/{old.memory.id}")).text
    assert f'Superseded by</dt><dd><a href="/ui/memories/{new.memory.id}">{new.memory.id}</a>' in older
    assert versions_of(older) == ["v2 superseded", "v1 created"]
    assert ">Restore</button>" in older  # restoring its first version makes it live again
