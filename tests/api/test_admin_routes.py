"""The admin side of the management API in-process: users with their counts, what waits for review, forgetting a
user after a preview, store health (on both backends), and every refusal."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from proxy.episodes.jobs import new_job
from proxy.memory.backends.pg_schema import MIGRATIONS
from proxy.memory.store import Owner

from .admin_app import BOB, ODD, OPEN_ADMIN, App, add, as_user, error_code, fill, forget_path, running

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["files", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "files":
        return {"store.path": str(tmp_path)}
    return {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn"), "store.path": str(tmp_path)}


def entry(users: list[dict[str, Any]], name: str) -> dict[str, Any]:
    [found] = [user for user in users if user["user"] == name]
    return found


async def history_lines(app: App, user: str, workspace: str) -> int:
    assert app.services.episodes.history is not None
    await app.services.episodes.history.flush()
    return await app.services.episodes.history.store.count(Owner(user, workspace))


# -- users and their counts -----------------------------------------------------------------------------------------


async def test_an_admin_sees_every_user_with_their_workspaces_and_counts(store: dict[str, Any]) -> None:
    async with running(store) as app:
        await fill(app)
        lines = await history_lines(app, ODD, "default")
        response = await app.client.get("/memory/users", headers=OPEN_ADMIN)
        assert response.status_code == 200, response.text
        body = response.json()
    assert body["scope"] == "all" and body["count"] == 2 and [u["user"] for u in body["users"]] == [ODD, BOB]
    odd = entry(body["users"], ODD)
    assert odd["stored"] == ODD and lines > 0
    default, w2 = odd["workspaces"]
    assert default == {
        "workspace": "default",
        "counts": {"memories": 3, "held": 1, "pinned": 1, "superseded": 1, "episodes": 1, "held_episodes": 0,
                   "history": lines, "details": 1, "sessions": 1, "files": 0},
    }  # fmt: skip
    assert w2 == {
        "workspace": "w2",
        "counts": {"memories": 1, "held": 0, "pinned": 0, "superseded": 0, "episodes": 1, "held_episodes": 1,
                   "history": 0, "details": 0, "sessions": 0, "files": 0},
    }  # fmt: skip
    assert odd["user_wide"]["memories"] == 1
    assert odd["counts"] == {"memories": 5, "held": 1, "pinned": 1, "superseded": 1, "episodes": 2, "held_episodes": 1,
                             "history": lines, "details": 1, "sessions": 1, "files": 0, "keys": 0}  # fmt: skip
    bob = entry(body["users"], BOB)
    assert bob["counts"]["memories"] == 1 and bob["counts"]["held"] == 1 and bob["counts"]["sessions"] == 1


async def test_anyone_else_sees_only_themself(store: dict[str, Any]) -> None:
    async with running(store) as app:
        await fill(app)
        response = await app.client.get("/memory/users", headers=as_user(BOB))
    body = response.json()
    assert response.status_code == 200 and body["scope"] == "user"
    assert [user["user"] for user in body["users"]] == [BOB]


async def test_what_waits_for_review_is_counted_for_the_callers_scope(store: dict[str, Any]) -> None:
    async with running(store) as app:
        await fill(app)
        iban = {"text": "Pay rent to DE89370400440532013000"}  # a suspect text: held as a file proposal
        proposed = await app.client.put("/memory/files/rent.md", json=iban, headers=as_user(BOB))
        assert proposed.status_code == 202
        everyone = (await app.client.get("/memory/held", headers=OPEN_ADMIN)).json()
        odd = (await app.client.get("/memory/held", headers=as_user(ODD))).json()
        bob = (await app.client.get("/memory/held", headers=as_user(BOB))).json()
        nobody = (await app.client.get("/memory/held", headers=as_user("carol"))).json()
        waiting = (await app.client.get("/memory/memories?held=true", headers=as_user(BOB))).json()["memories"]
        [own] = [memory["id"] for memory in waiting if memory["scope"] == "workspace"]  # not the global one
        approved = await app.client.post(f"/memory/memories/{own}/approve", headers=as_user(BOB))
        assert approved.status_code == 200
        after = (await app.client.get("/memory/held", headers=OPEN_ADMIN)).json()
        proposal = proposed.json()["proposal"]["id"]
        settled = await app.client.post(f"/memory/file-proposals/{proposal}/approve", headers=as_user(BOB))
        assert settled.status_code == 200
        settled_count = (await app.client.get("/memory/held", headers=OPEN_ADMIN)).json()
    # ODD's, BOB's and a global one; BOB's file change
    assert everyone == {"scope": "all", "memories": 3, "episodes": 1, "files": 1, "total": 5}
    assert odd == {"scope": "user", "memories": 1, "episodes": 1, "files": 0, "total": 2}
    assert bob == {"scope": "user", "memories": 1, "episodes": 0, "files": 1, "total": 2}
    assert nobody == {"scope": "user", "memories": 0, "episodes": 0, "files": 0, "total": 0}
    assert after["memories"] == 2  # approved: no longer waiting
    assert settled_count["files"] == 0 and settled_count["total"] == 3


# -- forgetting a user ----------------------------------------------------------------------------------------------


async def test_the_preview_says_exactly_what_forgetting_a_user_then_deletes(store: dict[str, Any]) -> None:
    async with running(store) as app:
        await fill(app)
        lines = await history_lines(app, ODD, "default")
        preview = await app.client.get(forget_path(ODD), headers=OPEN_ADMIN)
        assert preview.status_code == 200, preview.text
        done = await app.client.post(forget_path(ODD), json={"confirm": True}, headers=OPEN_ADMIN)
        assert done.status_code == 200, done.text
        again = await app.client.get(forget_path(ODD), headers=OPEN_ADMIN)
        left = [
            (await app.client.get("/memory/memories", headers=as_user(ODD, workspace))).json()["count"]
            for workspace in ("default", "w2")
        ]
        listed = (await app.client.get("/memory/users", headers=OPEN_ADMIN)).json()["users"]
        episodes = (await app.client.get("/memory/episodes", headers=as_user(ODD, "w2"))).json()
        sessions = (await app.client.get("/memory/sessions", headers=as_user(ODD))).json()
        jobs = [job for job in await app.services.episodes.jobs.all() if job.user == ODD]
        bob = (await app.client.get("/memory/memories", headers=as_user(BOB))).json()
        shared = app.services.memory.sessions.shared
    previewed, forgotten = preview.json(), done.json()
    assert previewed["preview"] is True and forgotten["preview"] is False and forgotten["ok"] is True
    assert previewed["counts"] == forgotten["counts"] and previewed["total"] == forgotten["total"]
    assert previewed["user"] == forgotten["user"] == ODD and previewed["workspaces"] == ["default", "w2"]
    counts = forgotten["counts"]
    assert list(counts)[:8] == ["memories", "episodes", "jobs", "history", "sessions", "session_state", "kept_turns",
                                "details"]  # fmt: skip
    assert counts["memories"] == 7 and counts["episodes"] == 2 and counts["jobs"] == 1 and counts["sessions"] == 1
    assert counts["history"] == lines and counts["details"] == 1 and counts["kept_turns"] == 1
    assert (counts["session_state"] > 0) == shared  # PostgreSQL shares sessions' blocks; one process keeps its own
    assert again.status_code == 404 and error_code(again) == "user_not_found"
    assert left == [0, 0] and [u["user"] for u in listed] == [BOB]
    assert episodes["count"] == 0 and episodes["jobs"] == [] and sessions["count"] == 0 and jobs == []
    assert [m["text"] for m in bob["memories"]] == ["Bob deploys on Fridays"]


async def test_forgetting_a_user_needs_a_confirmation_and_an_admin_and_someone_to_forget(tmp_path: Path) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        await add(app, "ada", "default", "Ada writes Go")
        unconfirmed = await app.client.post(forget_path("ada"), json={}, headers=OPEN_ADMIN)
        not_admin = await app.client.post(forget_path("ada"), json={"confirm": True}, headers=as_user("ada"))
        not_admin_preview = await app.client.get(forget_path("ada"), headers=as_user("ada"))
        nobody = await app.client.get(forget_path("nobody"), headers=OPEN_ADMIN)
        empty = await app.client.get("/memory/users//forget", headers=OPEN_ADMIN)
        not_json = await app.client.post(forget_path("ada"), content=b"[1]", headers=OPEN_ADMIN)
        kept = (await app.client.get("/memory/memories", headers=as_user("ada"))).json()["count"]
    assert unconfirmed.status_code == 400 and error_code(unconfirmed) is None
    assert unconfirmed.json()["error"]["param"] == "confirm"
    assert not_admin.status_code == 403 and error_code(not_admin) == "admin_key_required"
    assert not_admin_preview.status_code == 403
    assert nobody.status_code == 404 and error_code(nobody) == "user_not_found"
    assert empty.status_code == 400 and not_json.status_code == 400
    assert kept == 1


# -- store health ---------------------------------------------------------------------------------------------------


async def test_store_health_shows_schema_queue_held_totals_and_recent_errors_redacted(store: dict[str, Any]) -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0" * 2
    async with running(store) as app:
        await fill(app)
        jobs = app.services.episodes.jobs
        for state, session in (("pending", "b2"), ("failed", "b3")):
            job = new_job(user=BOB, workspace="default", session_id=session, model=None, turns=3,
                          transcript="user: hi", untrusted=False, sources=(), now=time.time())  # fmt: skip
            await jobs.put(replace(job, state=state, next_at=time.time() + 3600))  # not due: queued, or given up
        extractor = app.services.episodes.extractor
        await extractor.started.wait()  # type: ignore[attr-defined]  # ODD's job is being run
        logging.getLogger("proxy.test").warning("the upstream refused the key %s", secret)
        response = await app.client.get("/memory/health", headers=OPEN_ADMIN)
    assert response.status_code == 200, response.text
    health = response.json()
    backend = store.get("store.backend", "files")
    assert health["backend"] == backend and health["schema"]["current"] is True
    assert health["schema"]["version"] == (MIGRATIONS[-1][0] if backend == "postgres" else "files-2")
    assert health["queue"] == {"queued": 1, "running": 1, "failed": 1}
    assert health["held"] == {"memories": 3, "episodes": 1, "files": 0, "total": 4}
    assert health["users"] == 2 and health["owners"] == 4 and health["unnamed_owners"] == []
    assert health["memories"] == {"live": 6, "held": 3, "pinned": 1, "superseded": 1} and health["episodes"] == 2
    newest = health["errors"][0]
    assert newest["logger"] == "proxy.test" and newest["level"] == "WARNING"
    assert secret not in response.text and "[redacted]" in newest["message"]


# -- refusals -------------------------------------------------------------------------------------------------------

ADMIN_ONLY = [
    ("GET", "/memory/keys", None),
    ("POST", "/memory/keys", {"user": "eve", "kind": "admin"}),
    ("DELETE", "/memory/keys/k-000000000000", None),
    ("GET", forget_path("bob"), None),
    ("POST", forget_path("bob"), {"confirm": True}),
    ("GET", "/memory/health", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ONLY)
async def test_a_caller_without_the_admin_key_gets_a_403_on_every_admin_route(
    tmp_path: Path, method: str, path: str, body: dict[str, Any] | None
) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        await add(app, BOB, "default", "Bob deploys on Fridays")
        plain = await app.client.request(method, path, json=body, headers=as_user("mallory"))
        wrong = await app.client.request(method, path, json=body, headers={"x-memory-admin-key": "guess"})
        keys = (await app.client.get("/memory/keys", headers=OPEN_ADMIN)).json()["count"]
        kept = (await app.client.get("/memory/memories", headers=as_user(BOB))).json()["count"]
    assert plain.status_code == wrong.status_code == 403
    assert error_code(plain) == error_code(wrong) == "admin_key_required"
    assert keys == 0 and kept == 1  # nothing changed


async def test_an_admin_route_with_another_method_is_a_405_naming_the_ones_it_takes(tmp_path: Path) -> None:
    async with running({"store.path": str(tmp_path)}) as app:
        response = await app.client.put("/memory/keys", headers=OPEN_ADMIN)
        forget = await app.client.delete(forget_path("bob"), headers=OPEN_ADMIN)
    assert response.status_code == 405 and response.headers["allow"] == "GET, HEAD, POST"
    assert forget.status_code == 405 and forget.headers["allow"] == "GET, HEAD, POST"
