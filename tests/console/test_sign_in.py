"""Signing in to the console and what guards it: keys mode's sign-in, cookies, CSRF, cross-site posts, revocation,
sign-out, and open mode's loopback-only rule. In-process; the browser tests repeat the main paths for real."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from proxy.memory.caller import Identity
from proxy.memory.console_sessions import session_id
from proxy.services import Services

from .conftest import BrowserFor, new_key

pytestmark = pytest.mark.anyio

CSP_DIRECTIVES = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
}


def assert_guarded(headers: object, *, page: bool = True) -> None:
    csp = headers["content-security-policy"]  # type: ignore[index]
    assert {part.strip() for part in csp.split(";")} == CSP_DIRECTIVES
    assert "unsafe" not in csp
    assert headers["x-content-type-options"] == "nosniff"  # type: ignore[index]
    assert headers["referrer-policy"] == "no-referrer"  # type: ignore[index]
    if page:
        assert headers["cache-control"] == "no-store"  # type: ignore[index]


async def test_without_a_sign_in_the_console_is_a_sign_in_form_with_one_password_field(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser = browser_for(keyed)
    page = await browser.client.get("/ui/")
    assert page.status_code == 200
    assert page.text.count("<input") == 2  # the password field and the form's own token
    assert 'name="key" type="password"' in page.text and ">Sign in</button>" in page.text
    assert_guarded(page.headers)
    for path in ("/ui/memories", "/ui/review", "/ui/memories/m-1", "/ui/history?q=x", "/ui/nothing-here"):
        response = await browser.client.get(path)
        assert (response.status_code, response.headers["location"]) == (303, "/ui/"), path
        assert_guarded(response.headers)
    assert (await browser.client.get("/ui")).headers["location"] == "/ui/"


async def test_a_wrong_key_is_a_401_page_and_signs_nothing_in(keyed: Services, browser_for: BrowserFor) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    for wrong in ("mp-" + "x" * 32, "", key + "x", key.upper()):
        response = await browser.sign_in(wrong)
        assert response.status_code == 401 and "not a valid memproxy key" in response.text
        assert "memproxy_console" not in response.headers.get("set-cookie", "")
    assert (await browser.client.get("/ui/memories")).status_code == 303


async def test_a_valid_key_starts_a_sign_in_with_a_strict_cookie_and_the_store_keeps_neither_cookie_nor_key(
    keyed: Services, browser_for: BrowserFor, tmp_path: Path
) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    response = await browser.sign_in(key)
    assert (response.status_code, response.headers["location"]) == (303, "/ui/memories")
    cookie_line = next(v for v in response.headers.get_list("set-cookie") if v.startswith("memproxy_console="))
    attributes = {part.strip().lower() for part in cookie_line.split(";")[1:]}
    assert {"httponly", "path=/ui", "samesite=strict", f"max-age={12 * 3600}"} <= attributes
    assert "secure" not in attributes  # plain http here: a Secure cookie would never come back
    cookie = cookie_line.split(";")[0].split("=", 1)[1]
    page = await browser.get("/ui/memories")
    assert page.status_code == 200 and ">Sign out</button>" in page.text and ">ada</span>" in page.text
    stored = b"".join(p.read_bytes() for p in (tmp_path / "console").iterdir())
    assert session_id(cookie).encode() in stored
    assert cookie.encode() not in stored and key.encode() not in stored


async def test_behind_tls_the_cookie_is_secure(keyed: Services, browser_for: BrowserFor) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed, base="https://memproxy.example")
    page = await browser.client.get("/ui/")
    token = page.text.split('name="signin" value="')[1].split('"')[0]
    response = await browser.client.post(
        "/ui/sign-in",
        data={"key": key, "signin": token},
        headers={"origin": "https://memproxy.example", "sec-fetch-site": "same-origin"},
    )
    assert response.status_code == 303
    assert "secure" in response.headers["set-cookie"].lower()
    proxied = browser_for(keyed)  # plain http to memproxy, TLS at a proxy in front that says so
    page = await proxied.client.get("/ui/", headers={"x-forwarded-proto": "https"})
    assert "secure" in page.headers["set-cookie"].lower()


async def test_a_sign_in_post_from_another_site_or_without_its_form_token_is_refused(
    keyed: Services, browser_for: BrowserFor
) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    page = await browser.client.get("/ui/")
    token = page.text.split('name="signin" value="')[1].split('"')[0]
    for headers, fields in [
        ({"origin": "https://evil.example"}, {"key": key, "signin": token}),
        ({"sec-fetch-site": "cross-site"}, {"key": key, "signin": token}),
        ({"origin": "null", "sec-fetch-site": "cross-site"}, {"key": key, "signin": token}),
        ({}, {"key": key, "signin": "made-up"}),
        ({}, {"key": key}),
    ]:
        response = await browser.client.post("/ui/sign-in", data=fields, headers=headers)
        assert response.status_code == 403 and "memproxy_console" not in response.headers.get("set-cookie", "")


async def test_a_state_change_without_the_csrf_token_or_from_another_site_is_a_403_and_changes_nothing(
    keyed: Services, browser_for: BrowserFor
) -> None:
    _, key = await new_key(keyed, "ada")
    ada = Identity("ada")
    stored = await keyed.memory.add(ada, {"text": "The staging database is Postgres 16"}, origin="api")
    memory_id = stored.memory.id
    browser = browser_for(keyed)
    await browser.sign_in(key)
    other = browser_for(keyed)
    await other.sign_in(key)  # a second sign-in of the same key: its token is not this one's
    attempts = [
        ({}, False, {}),
        ({"csrf": "0" * 64}, False, {}),
        ({"csrf": other.csrf}, False, {}),
        ({}, True, {"origin": "https://evil.example", "sec-fetch-site": None}),  # a browser without Sec-Fetch-Site
        ({}, True, {"origin": "null", "sec-fetch-site": "cross-site"}),  # a sandboxed frame of another site
        ({}, True, {"sec-fetch-site": "cross-site"}),
        ({}, True, {"sec-fetch-site": "same-site"}),
    ]
    for fields, with_token, headers in attempts:
        for path, data in [
            (f"/ui/memories/{memory_id}/edit", {"text": "Changed by an attacker"}),
            (f"/ui/memories/{memory_id}/pin", {"version": "1"}),
            (f"/ui/memories/{memory_id}/delete", {"version": "1"}),
            (f"/ui/memories/{memory_id}/restore", {"version": "1", "restore": "1"}),
            ("/ui/memories", {"text": "Planted by an attacker"}),
            ("/ui/sign-out", {}),
        ]:
            response = await browser.post(path, {**data, **fields}, csrf=with_token, headers=headers)
            assert response.status_code == 403, (path, fields, headers)
            assert "Nothing was changed" in response.text
    memory = (await keyed.memory.inspect(ada, memory_id)).memory
    assert (memory.text, memory.pinned) == ("The staging database is Postgres 16", False)
    assert (await keyed.memory.browse(ada, None, _all())).total == 1
    assert (await browser.get("/ui/memories")).status_code == 200  # still signed in
    header = await browser.client.post(  # htmx sends the token as a header: that works
        f"/ui/memories/{memory_id}/pin",
        data={"version": str(memory.version)},
        headers={"x-csrf-token": browser.csrf, "hx-request": "true"},
    )
    assert header.status_code == 200 and header.headers["hx-location"].startswith(f"/ui/memories/{memory_id}")
    assert (await keyed.memory.inspect(ada, memory_id)).memory.pinned


async def test_sign_out_ends_the_sign_in_for_good(keyed: Services, browser_for: BrowserFor) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    await browser.sign_in(key)
    cookie = browser.client.cookies["memproxy_console"]
    response = await browser.post("/ui/sign-out")
    assert (response.status_code, response.headers["location"]) == (303, "/ui/?done=signed-out")
    assert (
        'memproxy_console=""' in response.headers["set-cookie"] or "max-age=0" in response.headers["set-cookie"].lower()
    )
    replay = browser_for(keyed)
    replay.client.cookies.set("memproxy_console", cookie, path="/ui")
    assert (await replay.client.get("/ui/memories")).status_code == 303  # the old cookie is dead on the server too


async def test_a_revoked_keys_sign_ins_end_on_its_next_request_and_expired_ones_too(
    keyed: Services, browser_for: BrowserFor
) -> None:
    key_id, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    await browser.sign_in(key)
    assert keyed.auth.keyring is not None
    await keyed.auth.keyring.store.revoke(key_id, time.time())
    await keyed.auth.keyring.refresh()  # what every process's poller does twice a second
    response = await browser.client.get("/ui/memories")
    assert (response.status_code, response.headers["location"]) == (303, "/ui/")
    htmx = await browser.client.get("/ui/memories?q=x", headers={"hx-request": "true"})
    assert htmx.headers["hx-redirect"] == "/ui/"  # an update in place turns into the sign-in page
    assert not list((keyed.console_sessions.directory).iterdir())  # type: ignore[attr-defined]

    _, second = await new_key(keyed, "ada")
    later = browser_for(keyed)
    await later.sign_in(second)
    [signed] = list(keyed.console_sessions.directory.iterdir())  # type: ignore[attr-defined]
    record = await keyed.console_sessions.get(signed.stem)
    assert record is not None
    await keyed.console_sessions.put(type(record)(**{**record.to_json(), "expires": time.time() - 1}))
    assert (await later.client.get("/ui/memories")).status_code == 303


async def test_a_personal_key_acts_for_its_own_user_only_a_service_key_for_its_end_users(
    keyed: Services, browser_for: BrowserFor
) -> None:
    _, personal = await new_key(keyed, "ada")
    service_id, service = await new_key(keyed, "support-bot", "service")
    await keyed.memory.add(Identity("grace"), {"text": "Grace's own memory"}, origin="api")
    end_user = Identity(f"svc:{service_id}:grace")
    await keyed.memory.add(end_user, {"text": "The bot's end user grace likes short answers"}, origin="api")
    ada = browser_for(keyed)
    await ada.sign_in(personal)
    refused = await ada.post("/ui/acting", {"user": "grace", "workspace": "default"})
    assert refused.status_code == 400 and "acts for its own user only" in refused.text  # and nothing changed
    assert "Grace's own memory" not in (await ada.get("/ui/memories")).text
    assert (await ada.post("/ui/acting", {"user": "ada", "workspace": "w2"})).status_code == 303  # its own: fine
    bot = browser_for(keyed)
    await bot.sign_in(service)
    assert (await bot.post("/ui/acting", {"user": "grace", "workspace": "default"})).status_code == 303
    page = await bot.get("/ui/memories")
    assert "likes short answers" in page.text and "Grace&#39;s own memory" not in page.text
    bad = await bot.post("/ui/acting", {"user": "x" * 201, "workspace": "default"})
    assert bad.status_code == 400 and "1-200 printable characters" in bad.text


async def test_open_mode_serves_this_machine_by_a_loopback_name_only(opened: Services, browser_for: BrowserFor) -> None:
    for base in ("http://127.0.0.1:8787", "http://localhost:9999", "http://[::1]:8787"):
        browser = browser_for(opened, base=base)
        first = await browser.client.get("/ui/")
        assert (first.status_code, first.headers["location"]) == (303, "/ui/acting"), base
        assert (await browser.get("/ui/acting")).status_code == 200
        assert (
            await browser.post("/ui/acting", {"user": "ada", "workspace": "default"}, headers={"origin": base})
        ).status_code == 303
        assert (await browser.get("/ui/memories")).status_code == 200
    for peer, base in [
        ("10.1.2.3", "http://127.0.0.1:8787"),  # another machine
        ("127.0.0.1", "http://evil.example:8787"),  # DNS rebinding: a stranger's name pointed at this machine
        ("127.0.0.1", "http://127.0.0.1.evil.example"),
    ]:
        refused = browser_for(opened, peer=peer, base=base)
        for path in ("/ui/", "/ui/memories", "/ui/static/console.css"):
            response = await refused.client.get(path)
            assert response.status_code == 403 and "this machine only" in response.text, (peer, base, path)
            assert_guarded(response.headers)


async def test_static_files_are_served_with_the_same_headers_and_revalidated(
    keyed: Services, browser_for: BrowserFor
) -> None:
    browser = browser_for(keyed)
    for path, kind in [
        ("/ui/static/console.css", "text/css"),
        ("/ui/static/console.js", "javascript"),
        ("/ui/static/vendor/htmx.min.js", "javascript"),
    ]:
        response = await browser.client.get(path)
        assert response.status_code == 200 and kind in response.headers["content-type"]
        assert_guarded(response.headers, page=False)
        assert response.headers["cache-control"] == "no-cache" and response.headers["etag"]
    htmx = (await browser.client.get("/ui/static/vendor/htmx.min.js")).text
    assert htmx.startswith("/*! htmx 2.0.") and "Zero-Clause BSD" in htmx


def _all() -> object:
    from proxy.memory.browse import Filters

    return Filters()


async def test_a_failing_store_is_a_503_page_not_a_500(keyed: Services, browser_for: BrowserFor) -> None:
    _, key = await new_key(keyed, "ada")
    browser = browser_for(keyed)
    await browser.sign_in(key)
    from proxy.errors import StoreUnavailable

    async def failing(ident: str) -> None:
        raise StoreUnavailable("the console session store failed: disk on fire")

    keyed.console_sessions.get = failing  # type: ignore[method-assign]
    for path in ("/ui/", "/ui/memories", "/ui/review", "/ui/nothing"):
        response = await browser.client.get(path)
        assert response.status_code == 503 and "disk on fire" in response.text, path
        assert_guarded(response.headers)
    assert (await browser.post("/ui/memories", {"text": "x"})).status_code == 503
    assert_guarded((await browser.client.get("/ui")).headers)


async def test_signing_in_again_ends_the_browsers_earlier_sign_in(keyed: Services, browser_for: BrowserFor) -> None:
    _, first = await new_key(keyed, "ada")
    _, second = await new_key(keyed, "grace")
    browser = browser_for(keyed)
    await browser.sign_in(first)
    earlier = browser.client.cookies["memproxy_console"]
    assert (await browser.client.get("/ui/sign-in")).headers["location"] == "/ui/memories"  # signed in already
    form = (await browser_for(keyed).client.get("/ui/")).text  # a sign-in form left open in another tab
    token = form.split('name="signin" value="')[1].split('"')[0]
    browser.client.cookies.set("memproxy_signin", token, path="/ui")
    assert (await browser.post("/ui/sign-in", {"key": second, "signin": token}, csrf=False)).status_code == 303
    assert await keyed.console_sessions.get(session_id(earlier)) is None
    assert ">grace</span>" in (await browser.get("/ui/memories")).text


async def test_with_the_console_off_ui_is_an_ordinary_path(tmp_path: Path, browser_for: BrowserFor) -> None:
    import httpx

    from proxy.config import load_settings
    from proxy.services import build_services

    from .conftest import upstream

    overrides = {"upstream.base_url": "http://upstream.test/v1", "store.path": str(tmp_path), "console.enabled": False}
    services = build_services(load_settings(overrides=overrides), transport=httpx.MockTransport(upstream))
    async with services:
        response = await browser_for(services).client.get("/ui/")
    assert response.status_code == 200 and response.json()["object"] == "chat.completion"  # the upstream answered
    assert "content-security-policy" not in response.headers
