"""A hostile corpus in every place the console shows text: the pages' HTML holds none of it unescaped, and no tag or
attribute that could run, load or restyle anything. The browser test renders the same corpus for real."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from urllib.parse import quote

import pytest

from proxy.memory.caller import Identity
from proxy.memory.episodes import Episode, episode_id
from proxy.memory.history import HistoryLine
from proxy.memory.provenance import Provenance
from proxy.memory.records import MemoryDraft
from proxy.memory.revisions import Revision
from proxy.memory.store import Owner
from proxy.memory.versions import Actor
from proxy.services import Services

from .conftest import BrowserFor, new_key
from .hostile import HOSTILE, PLANTED
from .pages import inert

pytestmark = pytest.mark.anyio


async def plant(services: Services, user: str, session: str = "hostile-session") -> list[str]:
    """The corpus as memories (held and not, with hostile tags and sessions), episodes and history lines of ``user``;
    returns the memory ids. Written to the stores directly where the write path's scanner would refuse a string
    (invisible characters): a store may hold what an older version or another tool wrote."""
    owner = Owner(user, "default")
    ids = []
    for n, text in enumerate(HOSTILE):
        held = Provenance(True, (text[:40],)) if n % 2 else Provenance()
        draft = MemoryDraft(text[:500], tags=(text[:50], "ok"), session=HOSTILE[(n + 3) % len(HOSTILE)][:200],
                            origin="tool", provenance=held)  # fmt: skip
        ids.append((await services.memory.store.add(owner, draft, max_total=1000)).id)
    assert services.memory.episodes is not None
    for n, text in enumerate(HOSTILE[:6]):
        named = f"{session}-{n}{text[:30]}"
        provenance = Provenance(bool(n % 2), (text[:30],))
        episode = Episode(episode_id(user, "default", named), named, user, "default", 3, time.time(), text,
                          HOSTILE[n : n + 4], provenance)  # fmt: skip
        await services.memory.episodes.put(owner, episode)
    history = services.episodes.history
    assert history is not None
    await history.store.append(
        owner, [HistoryLine(session, n + 1, "user", time.time(), f"alert {text}") for n, text in enumerate(HOSTILE)]
    )
    return ids


async def test_every_page_renders_the_corpus_inert(keyed: Services, browser_for: BrowserFor) -> None:
    hostile_user = '"><svg onload=alert(2)>'  # a key's user name is any printable text
    _, key = await new_key(keyed, hostile_user)
    ids = await plant(keyed, hostile_user)
    browser = browser_for(keyed)
    assert (await browser.sign_in(key)).status_code == 303
    paths = [
        "/ui/memories",
        "/ui/memories?held=true",
        "/ui/memories?q=alert+script",
        "/ui/memories?q=" + quote(HOSTILE[0]),
        "/ui/memories?tag=" + quote(HOSTILE[1][:50]),
        "/ui/review",
        "/ui/episodes",
        "/ui/sessions",
        "/ui/sessions/hostile-session",
        "/ui/sessions/" + quote(HOSTILE[3][:200], safe=""),
        "/ui/history?q=alert",
        "/ui/acting",
        *(f"/ui/memories/{memory_id}" for memory_id in ids),
    ]
    for path in paths:
        response = await browser.get(path)
        assert response.status_code in (200, 404), path
        html = response.text
        assert inert(html) == [], path
        for planted in PLANTED:
            assert planted not in html, (path, planted)
    review = (await browser.get("/ui/review")).text
    assert "&lt;script&gt;alert(&#39;memory&#39;)&lt;/script&gt;" in review  # shown, as text
    assert 'title="RIGHT-TO-LEFT OVERRIDE">U+202E</span>' in review  # invisible characters made visible
    assert "hidden characters" in review
    assert "{{7*7}} {% raw %}${7*7}#{7*7}" in review  # template syntax shown as written, never evaluated


async def test_versions_evidence_blocks_users_and_health_render_the_corpus_inert(
    keyed: Services, browser_for: BrowserFor
) -> None:
    """The pages round two added: a memory's versions (hostile actors, a deleted one), the review's evidence excerpts,
    a session's block as sent, the users list and the picker with hostile user names, the health page's errors."""
    hostile_user = HOSTILE[1]
    _, key = await new_key(keyed, hostile_user)
    ids = await plant(keyed, hostile_user)
    owner, who = Owner(hostile_user, "default"), Identity(hostile_user, "default")
    for n, memory_id in enumerate(ids[:8]):
        actor = (Actor.model(HOSTILE[n][:200]), Actor.extraction(HOSTILE[n][:40], HOSTILE[n + 1][:200]),
                 Actor("person", key_id=HOSTILE[n][:30], via=HOSTILE[n][:30]))[n % 3]  # fmt: skip
        await keyed.memory.store.revise(
            owner, [Revision(memory_id, "edited", actor, lambda m: replace(m, tags=("x",)))]
        )
    await keyed.memory.store.delete(owner, [ids[9]], actor=Actor("import", via=HOSTILE[4][:50]))
    history = keyed.episodes.history
    assert history is not None
    for n, text in enumerate(HOSTILE):  # each held memory's session called its hostile "tool", which said the corpus
        if n % 2:
            session, tool = HOSTILE[(n + 3) % len(HOSTILE)][:200], text[:40]
            await history.store.append(owner, [
                HistoryLine(session, 1, "user", time.time(), f"read {text}"),
                HistoryLine(session, 1, "assistant", time.time(), f"called {tool}({text})", True, (tool,)),
                HistoryLine(session, 1, "tool", time.time(), f"{tool}: {text}", True, (tool,)),
            ])  # fmt: skip
    for text in HOSTILE[:10]:  # users named with the corpus, each with something stored
        await keyed.memory.store.add(Owner(text[:200], text[:100]), MemoryDraft("plain"), max_total=10)
        logging.getLogger("proxy.hostile").warning("upstream said %s", text)
    chat = {"model": "m", "messages": [{"role": "user", "content": "alert script onerror javascript svg"}]}
    browser = browser_for(keyed)
    assert (await browser.sign_in(key)).status_code == 303
    asked = await browser.client.post("/v1/chat/completions", json=chat, headers={
        "x-memproxy-key": key, "authorization": "Bearer sk-x", "x-memory-session": HOSTILE[2]})  # fmt: skip
    assert asked.status_code == 200 and asked.headers.get("x-memproxy-injected")
    admin = browser_for(keyed)
    _, admin_key = await new_key(keyed, "root", "admin")
    assert (await admin.sign_in(admin_key)).status_code == 303
    pages = [
        (browser, "/ui/sessions/" + quote(HOSTILE[2], safe="")),
        (browser, "/ui/sessions"),
        (browser, "/ui/review"),
        *((browser, f"/ui/review/{e.id}/facts") for e in await _episodes(keyed, who)),
        (browser, f"/ui/memories/{ids[9]}"),
        *((browser, f"/ui/memories/{memory_id}") for memory_id in ids[:8]),
        (admin, "/ui/users"),
        (admin, "/ui/acting"),
        (admin, "/ui/keys"),
        (admin, "/ui/health"),
        (admin, "/ui/users/forget?user=" + quote(HOSTILE[0])),
    ]
    for client, path in pages:
        response = await client.get(path)
        assert response.status_code == 200, path
        html = response.text
        assert inert(html) == [], path
        for planted in PLANTED:
            assert planted not in html, (path, planted)
    session = (await browser.get("/ui/sessions/" + quote(HOSTILE[2], safe=""))).text
    assert '<pre class="block text">' in session and "&lt;script&gt;alert(&#39;memory&#39;)&lt;/script&gt;" in session
    review = (await browser.get("/ui/review")).text
    assert 'class="line tool tool-line"' in review and "&lt;img src=x onerror=" in review  # evidence, as text
    health = (await admin.get("/ui/health")).text
    assert "upstream said &lt;script&gt;alert(&#39;memory&#39;)&lt;/script&gt;" in health
    assert (await keyed.memory.versions(who, ids[9]))[0].change == "deleted"


async def test_hostile_names_in_open_mode_stay_text(opened: Services, browser_for: BrowserFor) -> None:
    browser = browser_for(opened)
    await browser.client.get("/ui/")
    await browser.get("/ui/acting")
    for name in ('"><svg onload=alert(1)>', "</title><script>alert(8)</script>", "{{7*7}}"):
        assert (await browser.post("/ui/acting", {"user": name, "workspace": name})).status_code == 303
        await plant(opened, name)
        for path in ("/ui/memories", "/ui/review", "/ui/acting", "/ui/history?q=alert"):
            html = (await browser.get(path)).text
            assert inert(html) == [] and all(planted not in html for planted in PLANTED), (name, path)
    assert (await browser.post("/ui/acting", {"user": "bidi\u202eevil", "workspace": "w"})).status_code == 400
    assert Identity  # the identity rules refuse what the API refuses: a name that is not printable


def test_the_inertness_check_catches_what_an_unescaped_render_would_plant() -> None:
    """The check is not vacuous: each way a page could carry the corpus's payload is reported."""
    assert inert('<p>fine</p><a href="/ui/memories/m-1">ok</a><script src="/ui/static/console.js"></script>') == []
    planted = [
        '<img src=x onerror="alert(1)">',
        "<svg onload=alert(2)>",
        '<a href="javascript:alert(4)">x</a>',
        "<style>body{}</style>",
        '<div style="position:fixed">',
        "<script>alert(1)</script>",
        '<a href="//evil.example">x</a>',
        '<meta http-equiv="refresh" content="0">',
        "<base href=//x/>",
    ]
    for html in planted:
        assert inert(html), html


async def _episodes(services: Services, who: Identity) -> list[Episode]:
    assert services.memory.episodes is not None
    return list(await services.memory.episodes.view(Owner(who.user, who.workspace)))
