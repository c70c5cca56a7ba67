"""The admin pages in-process: users with their counts (and acting for any of them), keys created (shown once) and
revoked (its sign-ins end), forgetting a user after a preview, the store's health, global memories; the picker of
"Whose memory" for each kind of key and for open mode; the navigation's held count; and that nobody but an admin
reaches any of it, by navigation or by guessed URLs."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from proxy.config import load_settings
from proxy.memory.browse import Filters
from proxy.memory.caller import Identity
from proxy.memory.provenance import untrusted_by
from proxy.memory.store import GLOBAL
from proxy.services import Services, build_services

from .conftest import BrowserFor, new_key, upstream
from .pages import Browser, says

pytestmark = pytest.mark.anyio

ADA, GRACE = Identity("ada"), Identity("grace")
HELD = untrusted_by(["web_fetch"])
ADMIN_PAGES = ("/ui/keys", "/ui/health", "/ui/users/forget?user=grace")


async def signed_in(services: Services, browser_for: BrowserFor, user: str, kind: str = "personal") -> Browser:
    _, key = await new_key(services, user, kind)
    browser = browser_for(services)
    assert (await browser.sign_in(key)).status_code == 303
    return browser


async def some_of_everything(services: Services) -> None:
    await services.memory.add(ADA, {"text": "Ada's staging database is PostgreSQL 16"}, origin="api")
    await services.memory.add(GRACE, {"text": "Grace's launch review is on Friday"}, origin="api")
    await services.memory.add(Identity("grace", "infra"), {"text": "Grace runs the infra workspace"}, origin="api")
    await services.memory.add(GRACE, {"text": "Held for Grace"}, origin="tool", session="g1", provenance=HELD)


async def test_an_admin_sees_every_user_with_counts_and_acts_for_any_of_them(
    keyed: Services, browser_for: BrowserFor
) -> None:
    await some_of_everything(keyed)
    admin = await signed_in(keyed, browser_for, "root", "admin")
    page = (await admin.get("/ui/users")).text
    names = re.findall(r'<span class="text user-name">([^<]+)</span>', page)
    assert names == ["ada", "grace", "root"]  # every user with data or a key, by name
    grace = page[page.index('user-name">grace</span>') : page.index('user-name">root</span>')]
    assert "<td>2" in grace and 'class="badge warn">1</span>' in grace  # two memories, one held
    assert 'Act as <span class="text">grace</span> / <span class="text">infra</span>' in grace
    assert 'href="/ui/users/forget?user=grace"' in grace
    acted = await admin.post("/ui/acting", {"user": "grace", "workspace": "default"})
    assert acted.status_code == 303
    memories = (await admin.get("/ui/memories")).text
    assert "Grace&#39;s launch review is on Friday" in memories and "Ada" not in memories.split("<main")[1]
    review = (await admin.get("/ui/review")).text
    assert "Held for Grace" in review
    # the navigation counts everyone's held items for an admin; the queue is the one acted for
    await keyed.memory.add(ADA, {"text": "Held for Ada"}, origin="tool", session="a1", provenance=HELD)
    review = (await admin.get("/ui/review")).text
    assert 'aria-label="2 waiting">2</span>' in review and "1 waiting here" in review
    assert "Waiting for other users" in review and 'name="user" value="ada"' in review
    await admin.post("/ui/acting", {"user": "ada", "workspace": "default", "next": "/ui/review"})
    assert "Held for Ada" in (await admin.get("/ui/review")).text


async def test_a_personal_keys_navigation_counts_its_own_queue_only(keyed: Services, browser_for: BrowserFor) -> None:
    await some_of_everything(keyed)
    ada = await signed_in(keyed, browser_for, "ada")
    page = (await ada.get("/ui/memories")).text
    assert 'aria-label="0 waiting">0</span>' in page  # Grace's held memory is not Ada's to count
    assert 'href="/ui/users"' not in page and 'href="/ui/keys"' not in page


async def test_keys_are_created_shown_once_and_revoked_which_ends_their_sign_ins(
    keyed: Services, browser_for: BrowserFor
) -> None:
    admin = await signed_in(keyed, browser_for, "root", "admin")
    await admin.get("/ui/keys")
    made = await admin.post("/ui/keys", {"user": "carol", "kind": "personal"})
    assert made.status_code == 201 and "location" not in made.headers  # an answer, never a redirect with the key
    key = re.search(r'<code id="new-key" class="secret">(mp-[A-Za-z0-9_-]+)</code>', made.text)
    assert key is not None and "the only time it is shown" in made.text
    assert made.headers["cache-control"] == "no-store"
    key_id = re.search(r"id <code>(k-[0-9a-f]{12})</code>", made.text)
    assert key_id is not None
    listed = (await admin.get("/ui/keys")).text
    assert key_id.group(1) in listed and key.group(1) not in listed and "carol" in listed
    carol = browser_for(keyed)
    assert (await carol.sign_in(key.group(1))).status_code == 303
    assert (await carol.get("/ui/memories")).status_code == 200
    revoked = await admin.post(f"/ui/keys/{key_id.group(1)}/revoke")
    assert revoked.headers["location"] == f"/ui/keys?done=revoked&id={key_id.group(1)}"
    assert "Revoked key" in (await admin.get(revoked.headers["location"])).text
    after = await carol.get("/ui/memories")
    assert after.status_code == 303 and after.headers["location"] == "/ui/"  # the revoked key's sign-in ended
    bad = await admin.post("/ui/keys", {"user": "svc:sneaky", "kind": "personal"})
    assert bad.status_code == 400 and "may not start with" in bad.text
    assert (await admin.post("/ui/keys/k-000000000000/revoke")).status_code == 404


async def test_forgetting_a_user_shows_exactly_what_goes_then_leaves_nothing_of_theirs(
    keyed: Services, browser_for: BrowserFor
) -> None:
    await some_of_everything(keyed)
    before = await keyed.memory.forget_preview(GRACE)
    admin = await signed_in(keyed, browser_for, "root", "admin")
    preview = await admin.get("/ui/users/forget?user=grace")
    assert preview.status_code == 200
    counts = dict(re.findall(r'<tr data-kind="(\w+)"><td>[^<]+</td><td>([\d,]+)</td></tr>', preview.text))
    api = (await keyed.admin.forget_preview(Identity("root", admin=True), "grace")).counts
    assert counts == {kind: str(count) for kind, count in api.items()} and counts["memories"] == "3"
    assert before["memories"] == 2  # the default workspace's; the preview counts every workspace
    assert '<span class="text">default</span>, <span class="text">infra</span>' in preview.text
    assert ">Forget this user</button>" in preview.text
    assert (await keyed.memory.browse(GRACE, None, _any())).total == 1  # a preview deletes nothing
    refused = await admin.post("/ui/users/forget", {"user": "grace"})
    assert refused.status_code == 400  # not without the preview's confirmation
    done = await admin.post("/ui/users/forget", {"user": "grace", "confirm": "yes"})
    assert done.status_code == 200 and "Forgot <strong" in done.text and "<td>3</td>" in done.text
    users = await keyed.admin.users(Identity("root", admin=True, key_kind="admin"))
    assert "grace" not in [user.user for user in users]
    for who in (GRACE, Identity("grace", "infra")):
        assert (await keyed.memory.browse(who, None, _any())).total == 0
        assert (await keyed.memory.browse(who, None, _any(held=True))).total == 0
    assert (await admin.get("/ui/users/forget?user=grace")).status_code == 404  # nothing of theirs left
    assert "grace" not in (await admin.get("/ui/users")).text


async def test_the_health_page_shows_the_store_and_recent_problems(keyed: Services, browser_for: BrowserFor) -> None:
    await some_of_everything(keyed)
    logging.getLogger("proxy.test").warning("the upstream said <b>no</b> at %s", "noon")
    admin = await signed_in(keyed, browser_for, "root", "admin")
    page = (await admin.get("/ui/health")).text
    assert "<dt>Backend</dt><dd>files</dd>" in page and 'badge ok">current</span>' in page
    assert "<dt>Memories</dt><dd>1</dd>" in page  # held for review
    assert "the upstream said &lt;b&gt;no&lt;/b&gt; at noon" in page and "<code>proxy.test</code>" in page


async def test_an_admin_adds_global_memories_and_nobody_else_can(keyed: Services, browser_for: BrowserFor) -> None:
    admin = await signed_in(keyed, browser_for, "root", "admin")
    await admin.get("/ui/memories?scope=global")
    added = await admin.post("/ui/memories", {"text": "Company holidays are in the wiki", "scope": "global"})
    assert added.status_code == 303
    stored = [m.text for m in await keyed.memory.store.view(GLOBAL)]
    assert stored == ["Company holidays are in the wiki"]
    ada = await signed_in(keyed, browser_for, "ada")
    listed = (await ada.get("/ui/memories?scope=global")).text
    assert "Company holidays are in the wiki" in listed and 'value="global"' not in listed.split("<form")[2]
    refused = await ada.post("/ui/memories", {"text": "Planted globally", "scope": "global"})
    assert refused.status_code == 403
    assert [m.text for m in await keyed.memory.store.view(GLOBAL)] == ["Company holidays are in the wiki"]


@pytest.mark.parametrize("kind", ["personal", "service"])
async def test_nobody_but_an_admin_reaches_an_admin_page_by_navigation_or_guessed_urls(
    keyed: Services, browser_for: BrowserFor, kind: str
) -> None:
    await some_of_everything(keyed)
    key_id, _ = await new_key(keyed, "grace")
    browser = await signed_in(keyed, browser_for, "mallory", kind)
    home = (await browser.get("/ui/memories")).text
    assert 'href="/ui/keys"' not in home and 'href="/ui/health"' not in home
    for path in ADMIN_PAGES:
        response = await browser.get(path)
        assert response.status_code == 404 and not says(response.text, "4417") and key_id not in response.text, path
    for path, fields in [
        ("/ui/keys", {"user": "mallory", "kind": "admin"}),
        (f"/ui/keys/{key_id}/revoke", {}),
        ("/ui/users/forget", {"user": "grace", "confirm": "yes"}),
    ]:
        response = await browser.post(path, fields)
        assert response.status_code == 404, path
    assert [r.user for r in await keyed.admin.keys.list()].count("mallory") == 1  # no key made
    assert (await keyed.admin.keys.get(key_id)).active  # type: ignore[union-attr]
    assert (await keyed.memory.browse(GRACE, None, _any())).total == 1
    users = await browser.get("/ui/users")
    if kind == "personal":
        assert users.status_code == 404
    else:  # a service key sees its own user and its end users, nobody else
        assert users.status_code == 200 and not says(users.text, "grace") and not says(users.text, "ada")
        assert re.findall(r'<span class="text user-name">([^<]+)</span>', users.text) == ["mallory"]
    refused = await browser.post("/ui/acting", {"user": "grace", "workspace": "default"})
    if kind == "personal":
        assert refused.status_code == 400  # a personal key acts for its own user only
    else:  # a service's "grace" is its own end user, never the real one
        assert not says((await browser.get("/ui/memories")).text, "4417")


async def test_whose_memory_picks_among_the_users_each_key_may_see(keyed: Services, browser_for: BrowserFor) -> None:
    await some_of_everything(keyed)
    service_id, service_key = await new_key(keyed, "shop", "service")
    await keyed.memory.add(Identity(f"svc:{service_id}:bob"), {"text": "Bob likes tea"}, origin="api")
    picked = {}
    for name, browser in [
        ("admin", await signed_in(keyed, browser_for, "root", "admin")),
        ("grace", await signed_in(keyed, browser_for, "grace")),
    ]:
        page = (await browser.get("/ui/acting")).text
        picked[name] = (
            re.findall(r'<span class="text user-name">([^<]+)</span>', page),
            re.findall(r'name="workspace" value="([^"]+)">\s*<button', page),
        )
    shop = browser_for(keyed)
    await shop.sign_in(service_key)
    page = (await shop.get("/ui/acting")).text
    picked["shop"] = re.findall(r'<span class="text user-name">([^<]+)</span>', page), []
    assert picked["admin"][0] == ["ada", "grace", "root", "shop", f"svc:{service_id}:bob"]
    assert picked["grace"] == ([], ["default", "infra"])  # a personal key: its own user's workspaces only
    assert picked["shop"][0] == ["shop", "bob"]  # itself, and its end users by their own names
    assert (await shop.post("/ui/acting", {"user": "bob", "workspace": "default"})).status_code == 303
    assert "Bob likes tea" in (await shop.get("/ui/memories")).text


@pytest.fixture
async def open_with_admin_key(tmp_path: Path) -> AsyncIterator[Services]:
    overrides = {"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path),
                 "memory.admin_key": "open-sesame-admin"}  # fmt: skip
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(upstream))
    async with services:
        yield services


async def test_open_mode_lists_every_user_and_memory_admin_key_opens_the_admin_pages(
    open_with_admin_key: Services, browser_for: BrowserFor
) -> None:
    services = open_with_admin_key
    await some_of_everything(services)
    browser = browser_for(services)
    await browser.client.get("/ui/")
    page = (await browser.get("/ui/acting")).text
    assert re.findall(r'<span class="text user-name">([^<]+)</span>', page) == ["ada", "grace"]
    assert 'action="/ui/acting/admin"' in page
    for path in ADMIN_PAGES:
        assert (await browser.get(path)).status_code == 404, path
    wrong = await browser.post("/ui/acting/admin", {"admin_key": "guess"})
    assert wrong.status_code == 403 and (await browser.get("/ui/keys")).status_code == 404
    right = await browser.post("/ui/acting/admin", {"admin_key": "open-sesame-admin"})
    assert right.status_code == 303 and right.headers["location"] == "/ui/users?done=admin"
    for path in ADMIN_PAGES:
        assert (await browser.get(path)).status_code == 200, path
    stored = await services.console_sessions.get(_only_session(services))
    assert stored is not None and "open-sesame-admin" not in str(stored.to_json())  # only a keyed hash of it
    await browser.post("/ui/acting", {"user": "ada", "workspace": "default"})
    added = await browser.post("/ui/memories", {"text": "Everyone here uses UTC", "scope": "global"})
    assert added.status_code == 303  # global memories, as X-Memory-Admin-Key allows on the API
    other = browser_for(services)  # another sign-in on this machine is no admin
    await other.client.get("/ui/")
    assert (await other.get("/ui/keys")).status_code == 404


def _only_session(services: Services) -> str:
    folder = Path(services.settings.store.path) / "console"
    [found] = [path.stem for path in folder.rglob("*.json")]
    return found


def _any(*, held: bool = False) -> Filters:
    return Filters(held=held)
