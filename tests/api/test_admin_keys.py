"""``/memory/keys`` and who may act for whom, in-process: an admin manages keys (the key shown once, never listed),
acts for any user on the management API (never in chat), and sees every user; a service key sees its end users
only; a personal key itself only."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proxy.cli import main

from .admin_app import OPEN_ADMIN, App, as_user, error_code, running

pytestmark = pytest.mark.anyio

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
KEYS = (("root", "admin"), ("ada", "personal"), ("app-one", "service"), ("app-two", "service"))


def key_of(app: App, user: str, **more: str) -> dict[str, str]:
    return {"x-memproxy-key": app.keys[user], "authorization": "Bearer sk-provider", **more}


async def test_an_admin_creates_lists_and_revokes_keys_and_the_cli_sees_the_same_keys(tmp_path: Path) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        created = await app.client.post("/memory/keys", json={"user": "ada", "kind": "service"}, headers=OPEN_ADMIN)
        personal = await app.client.post("/memory/keys", json={"user": "bob"}, headers=OPEN_ADMIN)
        listed = await app.client.get("/memory/keys", headers=OPEN_ADMIN)
        key_id = created.json()["id"]
        revoked = await app.client.delete(f"/memory/keys/{key_id}", headers=OPEN_ADMIN)
        again = await app.client.delete(f"/memory/keys/{key_id}", headers=OPEN_ADMIN)
        unknown = await app.client.delete("/memory/keys/k-000000000000", headers=OPEN_ADMIN)
        after = (await app.client.get("/memory/keys", headers=OPEN_ADMIN)).json()["keys"]
    assert created.status_code == personal.status_code == 201
    made = created.json()
    assert made["ok"] is True and made["key"].startswith("mp-") and len(made["key"]) == 35
    assert (made["user"], made["kind"], made["active"], made["revoked"]) == ("ada", "service", True, None)
    assert personal.json()["kind"] == "personal"  # the default
    assert listed.status_code == 200 and listed.json()["count"] == 2
    assert [set(key) for key in listed.json()["keys"]] == [{"id", "user", "kind", "created", "revoked", "active"}] * 2
    assert made["key"] not in listed.text and personal.json()["key"] not in listed.text
    assert revoked.status_code == 200 and revoked.json()["active"] is False and revoked.json()["revoked"]
    assert again.status_code == 200 and again.json()["revoked"] == revoked.json()["revoked"]  # the first time stays
    assert unknown.status_code == 404 and error_code(unknown) == "key_not_found"
    assert [(key["id"], key["active"]) for key in after] == [(key_id, False), (personal.json()["id"], True)]
    shown = await asyncio.to_thread(CliRunner().invoke, main, ["keys", "list", "--data-dir", str(tmp_path)])
    assert shown.exit_code == 0 and key_id in shown.stdout and "revoked" in shown.stdout
    assert made["key"] not in shown.stdout


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "user"),
        ({"user": ""}, "user"),
        ({"user": 5}, "user"),
        ({"user": "svc:k-1:eve"}, "user"),  # a name memproxy derives itself
        ({"user": "key-abc"}, "user"),
        ({"user": "ada", "kind": "root"}, "kind"),
        ({"user": "ada", "kind": ["admin"]}, "kind"),
        ({"user": "ada", "scopes": ["all"]}, "scopes"),
        ([{"user": "ada"}], None),
        ("not json", None),
    ],
)
async def test_a_bad_new_key_is_a_400_that_names_the_field_and_creates_nothing(
    tmp_path: Path, body: Any, param: str | None
) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        if isinstance(body, str):
            response = await app.client.post("/memory/keys", content=body.encode(), headers=OPEN_ADMIN)
        else:
            response = await app.client.post("/memory/keys", json=body, headers=OPEN_ADMIN)
        listed = (await app.client.get("/memory/keys", headers=OPEN_ADMIN)).json()
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == param
    assert listed["count"] == 0


async def test_in_keys_mode_only_an_admin_key_manages_keys_and_its_changes_work_at_once(tmp_path: Path) -> None:
    overrides = {"store.path": str(tmp_path), "auth.mode": "keys"}
    async with running(overrides, KEYS) as app:
        refused = [await app.client.get("/memory/keys", headers=key_of(app, user)) for user in ("ada", "app-one")] + [
            await app.client.post("/memory/keys", json={"user": "eve"}, headers=key_of(app, "ada"))
        ]
        created = await app.client.post("/memory/keys", json={"user": "eve"}, headers=key_of(app, "root"))
        eve = {"x-memproxy-key": created.json()["key"]}
        works = await app.client.get("/memory/memories", headers=eve)
        revoked = await app.client.delete(f"/memory/keys/{created.json()['id']}", headers=key_of(app, "root"))
        gone = await app.client.get("/memory/memories", headers=eve)
        no_key = await app.client.get("/memory/keys", headers=OPEN_ADMIN)  # open mode's admin key means nothing here
    assert [response.status_code for response in refused] == [403, 403, 403]
    assert {error_code(response) for response in refused} == {"admin_key_required"}
    assert created.status_code == 201 and works.status_code == 200
    assert revoked.status_code == 200 and gone.status_code == 401 and error_code(gone) == "invalid_api_key"
    assert no_key.status_code == 401


async def test_an_admin_key_acts_for_any_user_on_the_management_api_but_never_in_chat(tmp_path: Path) -> None:
    overrides = {"store.path": str(tmp_path), "auth.mode": "keys"}
    async with running(overrides, KEYS) as app:
        as_ada = key_of(app, "root", **{"x-memory-user": "ada"})
        stored = await app.client.post("/memory/memories", json={"text": "Ada writes Go"}, headers=as_ada)
        ada_sees = (await app.client.get("/memory/memories", headers=key_of(app, "ada"))).json()
        admin_own = (await app.client.get("/memory/memories", headers=key_of(app, "root"))).json()
        chat = await app.client.post("/v1/chat/completions", json=CHAT, headers=as_ada)
        personal = await app.client.get("/memory/memories", headers=key_of(app, "ada", **{"x-memory-user": "root"}))
        personal_chat = await app.client.post(
            "/v1/chat/completions", json=CHAT, headers=key_of(app, "ada", **{"x-memory-user": "root"})
        )
    assert stored.status_code == 201 and [m["text"] for m in ada_sees["memories"]] == ["Ada writes Go"]
    assert admin_own["count"] == 0  # written for ada, not for the admin
    assert chat.status_code == 403 and error_code(chat) == "user_not_allowed"
    assert "management API" in chat.json()["error"]["message"]
    assert personal.status_code == personal_chat.status_code == 403


async def test_an_admin_key_reaches_a_services_end_user_by_their_stored_name(tmp_path: Path) -> None:
    overrides = {"store.path": str(tmp_path), "auth.mode": "keys"}
    async with running(overrides, KEYS) as app:
        grace = key_of(app, "app-one", **{"x-memory-user": "grace"})
        await app.client.post("/memory/memories", json={"text": "Grace likes tea"}, headers=grace)
        stored = f"svc:{app.key_ids['app-one']}:grace"
        seen = await app.client.get("/memory/memories", headers=key_of(app, "root", **{"x-memory-user": stored}))
    assert [m["text"] for m in seen.json()["memories"]] == ["Grace likes tea"]


async def test_users_are_listed_by_scope_admin_everyone_service_its_end_users_personal_itself(tmp_path: Path) -> None:
    overrides = {"store.path": str(tmp_path), "auth.mode": "keys"}
    async with running(overrides, KEYS) as app:
        for service, end_user in (("app-one", "grace"), ("app-one", "heidi"), ("app-two", "grace")):
            headers = key_of(app, service, **{"x-memory-user": end_user})
            response = await app.client.post("/memory/memories", json={"text": f"{end_user} uses {service}"},
                                             headers=headers)  # fmt: skip
            assert response.status_code == 201
        await app.client.post("/memory/memories", json={"text": "Ada writes Go"}, headers=key_of(app, "ada"))
        await app.client.post("/memory/memories", json={"text": "The app's own note"}, headers=key_of(app, "app-one"))
        seen = {
            user: (await app.client.get("/memory/users", headers=key_of(app, user))).json()
            for user in ("root", "app-one", "ada")
        }
        held = (await app.client.get("/memory/held", headers=key_of(app, "app-one"))).json()
    one, two = app.key_ids["app-one"], app.key_ids["app-two"]
    assert seen["root"]["scope"] == "all"
    assert [user["user"] for user in seen["root"]["users"]] == sorted(
        ["ada", "app-one", "app-two", "root", f"svc:{one}:grace", f"svc:{one}:heidi", f"svc:{two}:grace"]
    )
    service = seen["app-one"]
    assert service["scope"] == "service"
    assert [(user["user"], user["stored"]) for user in service["users"]] == [
        ("app-one", "app-one"),
        ("grace", f"svc:{one}:grace"),
        ("heidi", f"svc:{one}:heidi"),
    ]
    assert [user["counts"]["memories"] for user in service["users"]] == [1, 1, 1]
    assert service["users"][0]["counts"]["keys"] == 1
    assert [user["user"] for user in seen["ada"]["users"]] == ["ada"] and seen["ada"]["scope"] == "user"
    assert held == {"scope": "service", "memories": 0, "episodes": 0, "files": 0, "total": 0}


async def test_in_open_mode_the_admin_key_alone_will_do_and_a_wrong_one_is_a_403(tmp_path: Path) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        alone = await app.client.get("/memory/health", headers=OPEN_ADMIN)
        wrong = await app.client.get("/memory/health", headers={"x-memory-admin-key": "guess"})
        nothing = await app.client.get("/memory/users")
        named = await app.client.get("/memory/users", headers=as_user("ada") | OPEN_ADMIN)
    assert alone.status_code == 200 and wrong.status_code == 403
    assert nothing.status_code == 401 and error_code(nothing) == "missing_identity"
    assert named.status_code == 200 and named.json()["scope"] == "all"
