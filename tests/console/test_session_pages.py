"""Sessions in the console, in-process: live and past ones listed and paged, and a session's page with its block and
notes exactly as sent and, for each entry, why recall chose it (pinned, its score and the words it matched, or one of
the newest), through a real chat request of the app."""

from __future__ import annotations

import re
import time

import pytest

from proxy.memory.caller import Identity
from proxy.memory.history import HistoryLine
from proxy.memory.store import Owner
from proxy.services import Services

from .conftest import BrowserFor, new_key
from .pages import Browser

pytestmark = pytest.mark.anyio

ADA = Identity("ada")


async def signed_in(services: Services, browser_for: BrowserFor) -> tuple[Browser, str]:
    _, key = await new_key(services, "ada")
    browser = browser_for(services)
    assert (await browser.sign_in(key)).status_code == 303
    return browser, key


async def chat(browser: Browser, key: str, session: str, *said: str) -> None:
    """A session's requests through the app, as an agent sends them (each one the conversation so far)."""
    messages: list[dict[str, str]] = [{"role": "system", "content": "You are helpful."}]
    for text in said:
        messages.append({"role": "user", "content": text})
        response = await browser.client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": messages},
            headers={"x-memproxy-key": key, "authorization": "Bearer sk-provider", "x-memory-session": session},
        )
        assert response.status_code == 200, response.text
        messages.append({"role": "assistant", "content": "ok"})


async def test_a_sessions_page_shows_the_block_and_notes_as_sent_and_why_each_entry_was_chosen(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, key = await signed_in(keyed, browser_for)
    pinned = await keyed.memory.add(ADA, {"text": "Ada writes Go at work", "scope": "user", "pinned": True},
                                    origin="api")  # fmt: skip
    relevant = await keyed.memory.add(ADA, {"text": "The staging database is PostgreSQL 16"}, origin="api")
    await chat(browser, key, "chat-1", "Which staging database do we run?")
    later = await keyed.memory.add(ADA, {"text": "The billing queue runs on RabbitMQ"}, origin="api")  # stored since
    await chat(browser, key, "chat-1", "Which staging database do we run?", "And what does the billing queue use?")
    page = await browser.get("/ui/sessions/chat-1")
    assert page.status_code == 200
    html = page.text
    block = re.search(r'<pre class="block text">(.*?)</pre>', html, re.S)
    assert block is not None and "[Memories]" in block.group(1)
    assert f"({pinned.memory.id}, fact) Ada writes Go at work" in block.group(1)  # the block, as the model read it
    assert f"({relevant.memory.id}, fact) The staging database is PostgreSQL 16" in block.group(1)
    rows = re.findall(r'<tr>\s*<td><a class="id" href="/ui/memories/(m-\d+)">.*?</tr>', html, re.S)
    assert rows[:2] == [pinned.memory.id, relevant.memory.id]
    why = {ident: row for ident, row in re.findall(r'href="/ui/memories/(m-\d+)">(.*?)</tr>', html, re.S)}
    assert '>pinned</span> <span class="muted">opens every block' in why[pinned.memory.id]
    assert re.search(r"score \d+\.\d\d", why[relevant.memory.id])
    assert "<mark>stage</mark>" in why[relevant.memory.id] or "<mark>staging</mark>" in why[relevant.memory.id]
    # the memory stored since the block was chosen came in a note before the second question, with its reason
    assert later.memory.id not in block.group(1)
    note = re.search(r"<h3>Note before message (\d+)</h3>.*?<pre class=\"block text\">(.*?)</pre>", html, re.S)
    assert note is not None and note.group(1) == "4" and f"({later.memory.id}, fact)" in note.group(2)
    assert "matched <mark>bill</mark>, <mark>queue</mark>" in why[later.memory.id]  # the query's stemmed terms
    assert 'id="turn-1"' in html and 'id="turn-2"' in html and "Which staging database do we run?" in html
    api = (await browser.client.get("/memory/sessions/chat-1", headers={"x-memproxy-key": key})).json()
    assert api["block"]["text"] in html.replace("&#39;", "'").replace("&#34;", '"').replace("&amp;", "&")


async def test_a_long_memory_the_block_cut_short_is_shown_and_served_as_an_excerpt_with_its_whole_text_a_click_away(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, key = await signed_in(keyed, browser_for)
    crops = ["tomato", "cucumber", "pepper", "lettuce", "carrot", "onion", "garlic", "bean", "pea", "kale"]
    stored = []
    for crop in crops:  # each its own words first (no two alike enough to merge), the part asked about last
        notes = " ".join(f"{crop[:4]}{n}x" for n in range(40))
        text = f"Notes on the {crop} bed: {notes}. My {crop} harvest in the garden was the best yet."
        stored.append(await keyed.memory.add(ADA, {"text": text}, origin="api"))
    await chat(browser, key, "garden", "What did I say about the garden harvest?")
    api = (await browser.client.get("/memory/sessions/garden", headers={"x-memproxy-key": key})).json()
    entries = api["block"]["entries"]
    assert len(entries) == 10 and all(e["excerpt"] is True and e["text"].startswith("…") for e in entries)
    assert sum(len(e["text"]) for e in entries) <= 2000  # the default budget: ten long memories fit as excerpts
    assert {e["id"] for e in entries} == {m.memory.id for m in stored}
    html = (await browser.get("/ui/sessions/garden")).text
    rows = re.findall(r'href="/ui/memories/(m-\d+)">.*?<span class="text">(.*?)</span>(.*?)</td>', html, re.S)
    assert len(rows) == 10 and all(">excerpt</span>" in badge for _, _, badge in rows)
    first = next(m.memory for m in stored if m.memory.id == rows[0][0])
    assert first.text[:40] not in rows[0][1] and first.text[:40] in (await browser.get(f"/ui/memories/{first.id}")).text


async def test_sessions_live_and_past_are_listed_most_recent_first_and_paged(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser, key = await signed_in(keyed, browser_for)
    history = keyed.episodes.history
    assert history is not None
    now = time.time()
    await history.store.append(
        Owner("ada", "default"),
        [HistoryLine(f"past-{n:02}", 1, "user", now - 3600 + n, f"question {n}") for n in range(30)],
    )
    await chat(browser, key, "live-one", "Hello there")
    first = (await browser.get("/ui/sessions")).text
    listed = re.findall(r'<td><a class="text" href="/ui/sessions/([^"]+)">', first)
    assert len(listed) == 25 and listed[0] == "live-one" and listed[1] == "past-29"
    assert first.count(">live</span>") == 1 and ">End session</button>" in first
    older = re.search(r'href="(/ui/sessions\?before=[A-Za-z0-9_-]+)">Older</a>', first)
    assert older is not None
    second = (await browser.get(older.group(1))).text
    rest = re.findall(r'<td><a class="text" href="/ui/sessions/([^"]+)">', second)
    assert rest == [f"past-{n:02}" for n in range(5, -1, -1)] and ">Older</a>" not in second
    live = (await browser.get("/ui/sessions?show=live")).text
    assert re.findall(r'<td><a class="text" href="/ui/sessions/([^"]+)">', live) == ["live-one"]
    ended = (await browser.get("/ui/sessions?show=ended")).text
    assert "live-one" not in ended and "past-29" in ended
    past = (await browser.get("/ui/sessions/past-03")).text
    assert "question 3" in past and ">ended</span>" in past and "Not known here" in past
    assert (await browser.get("/ui/sessions?before=not-a-cursor")).status_code == 400
