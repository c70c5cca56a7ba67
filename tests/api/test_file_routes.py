"""Memory files over the management API, in-process on both backends: a person reads, writes and deletes them,
approves or rejects what waits, finds passages; export, import, forget-all and forgetting a user take them along.
Every answer matches the OpenAPI document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from proxy.memory.caller import Identity
from proxy.memory.provenance import untrusted_by

from .admin_app import OPEN_ADMIN, App, as_user, error_code, forget_path, running
from .test_openapi import matches

pytestmark = pytest.mark.anyio
IBAN = "Pay rent to DE89370400440532013000"


@pytest.fixture(params=["files", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    if request.param == "files":
        return {"store.path": str(tmp_path)}
    return {"store.backend": "postgres", "store.dsn": request.getfixturevalue("pg_dsn"), "store.path": str(tmp_path)}


class Calls:
    """The app's client, each answer checked against the document."""

    def __init__(self, app: App, document: dict[str, Any]) -> None:
        self.app = app
        self.document = document

    async def __call__(
        self, method: str, template: str, path: str | None = None, user: str = "ada", **options: Any
    ) -> httpx.Response:
        headers = as_user(user) | options.pop("headers", {})
        response = await self.app.client.request(method.upper(), path or template, headers=headers, **options)
        matches(self.document, template, method, response)
        return response


async def calls(app: App) -> Calls:
    document = (await app.client.get("/memory/openapi.json")).json()
    return Calls(app, document)


async def test_a_person_writes_reads_lists_and_deletes_files(store: dict[str, Any]) -> None:
    async with running(store) as app:
        call = await calls(app)
        one = "/memory/files/{path}"
        created = await call("put", one, "/memory/files/notes.md", json={"text": "Ada likes tea\n"})
        assert created.status_code == 201 and created.json()["file"]["path"] == "/memories/notes.md"
        replaced = await call("put", one, "/memory/files/memories/../notes.md", json={"text": "Ada likes coffee\n"})
        assert replaced.status_code == 200 and replaced.json()["file"]["version"] == 2
        same = await call("put", one, "/memory/files/notes.md", json={"text": "Ada likes coffee\n"})
        assert same.status_code == 200 and same.json()["file"]["version"] == 2
        await call("put", one, "/memory/files/projects/alpha.md", json={"text": "# Alpha\nWritten in Rust.\n"})
        listed = (await call("get", "/memory/files")).json()
        assert [(f["path"], f["size"], f["lines"]) for f in listed["files"]] == [
            ("/memories/notes.md", 17, 1),
            ("/memories/projects/alpha.md", 25, 2),
        ]
        assert "text" not in listed["files"][0] and listed["held"] == 0
        read = (await call("get", one, "/memory/files/%2Fmemories%2Fnotes.md")).json()["file"]
        assert read["text"] == "Ada likes coffee\n" and read["origin"] == "api"
        found = (await call("get", "/memory/files", params={"q": "alpha rust"})).json()
        assert found["passages"] == [
            {"path": "/memories/projects/alpha.md", "line": 1, "text": "# Alpha\nWritten in Rust."}
        ]
        assert (await call("get", "/memory/files", user="bob")).json()["count"] == 0
        assert (await call("get", one, "/memory/files/notes.md", user="bob")).status_code == 404

        gone = await call("delete", one, "/memory/files/projects")
        assert gone.json() == {"ok": True, "deleted": ["/memories/projects/alpha.md"]}
        missing = await call("delete", one, "/memory/files/projects")
        assert missing.status_code == 404 and error_code(missing) == "file_not_found"
        for bad in ("..%2F..%2Fetc%2Fpasswd", "%2e%2e/x", ""):  # the client would tidy a bare ../ away
            refused = await call("put", one, f"/memory/files/{bad}", json={"text": "x"})
            assert refused.status_code == 400, bad
        secret = await call("put", one, "/memory/files/ops.md", json={"text": "the deploy password: hunter2hunter2"})
        assert secret.status_code == 400 and error_code(secret) == "memory_rejected"
        not_text = await call("put", one, "/memory/files/ops.md", json={"text": 5})
        assert not_text.status_code == 400
        assert [f["path"] for f in (await call("get", "/memory/files")).json()["files"]] == ["/memories/notes.md"]


async def test_what_waits_is_approved_or_rejected_by_its_owner_only(store: dict[str, Any]) -> None:
    async with running(store) as app:
        call = await calls(app)
        held = await call("put", "/memory/files/{path}", "/memory/files/rent.md", json={"text": IBAN})
        assert held.status_code == 202 and held.json()["held"] is True and "IBAN" in held.json()["reason"]
        files = app.services.files
        ada = Identity("ada")
        await files.run(ada, "s1", {"command": "create", "path": "/memories/a.md", "file_text": "x"})
        await files.run(ada, "s2", {"command": "delete", "path": "/memories/a.md"}, untrusted_by(["web_fetch"]))
        listed = (await call("get", "/memory/file-proposals")).json()
        by_path = {p["path"]: p for p in listed["proposals"]}
        assert by_path["/memories/rent.md"]["current"] is None and by_path["/memories/rent.md"]["text"] == IBAN
        assert by_path["/memories/a.md"]["text"] is None and by_path["/memories/a.md"]["current"] == "x"
        assert (await call("get", "/memory/files")).json()["held"] == 2

        rent, delete = by_path["/memories/rent.md"]["id"], by_path["/memories/a.md"]["id"]
        template = "/memory/file-proposals/{proposal_id}/approve"
        stranger = await call("post", template, f"/memory/file-proposals/{rent}/approve", user="bob")
        assert stranger.status_code == 404 and error_code(stranger) == "proposal_not_found"
        approved = await call("post", template, f"/memory/file-proposals/{rent}/approve")
        assert approved.json() == {"ok": True, "id": rent, "path": "/memories/rent.md", "deleted": False}
        reject = "/memory/file-proposals/{proposal_id}/reject"
        rejected = await call("post", reject, f"/memory/file-proposals/{delete}/reject")
        assert rejected.json() == {"ok": True, "id": delete, "deleted": True}
        again = await call("post", reject, f"/memory/file-proposals/{delete}/reject")
        assert again.status_code == 404
        paths = [f["path"] for f in (await call("get", "/memory/files")).json()["files"]]
        assert paths == ["/memories/a.md", "/memories/rent.md"]
        assert (await call("get", "/memory/file-proposals")).json() == {"count": 0, "proposals": []}


async def test_export_and_import_carry_the_files(store: dict[str, Any]) -> None:
    async with running(store) as app:
        call = await calls(app)
        await call("post", "/memory/memories", json={"text": "Ada writes Go"})
        await call("put", "/memory/files/{path}", "/memory/files/notes/go.md", json={"text": "Go 1.23\n"})
        exported = await call("get", "/memory/export")
        kinds = [orjson.loads(line).get("kind") for line in exported.content.splitlines()]
        assert kinds == [None, "file"]
        imported = await call("post", "/memory/import", content=exported.content, user="bob")
        report = imported.json()
        assert report["ok"] and len(report["imported"]) == 1
        assert report["files"] == {"imported": ["/memories/notes/go.md"], "unchanged": [], "held": [], "errors": []}
        twice = (await call("post", "/memory/import", content=exported.content, user="bob")).json()
        assert twice["files"]["unchanged"] == ["/memories/notes/go.md"] and twice["imported"] == []
        read = (await call("get", "/memory/files/{path}", "/memory/files/notes/go.md", user="bob")).json()
        assert read["file"]["text"] == "Go 1.23\n" and read["file"]["origin"] == "import"


async def test_forget_all_and_forgetting_a_user_take_the_files_along(store: dict[str, Any]) -> None:
    async with running(store) as app:
        call = await calls(app)
        await call("put", "/memory/files/{path}", "/memory/files/a.md", json={"text": "alpha"})
        await call("put", "/memory/files/{path}", "/memory/files/b.md", json={"text": IBAN})  # a proposal
        forgot = await call("post", "/memory/forget-all", json={"confirm": True})
        assert forgot.json()["files"] == 2
        assert (await call("get", "/memory/files")).json() == {"count": 0, "files": [], "held": 0}

        only_files = as_user("grace", "notes-only")  # a workspace that holds nothing but files
        await app.client.put("/memory/files/a.md", json={"text": "alpha"}, headers=only_files)
        await app.client.put("/memory/files/b.md", json={"text": IBAN}, headers=only_files)
        users = (await app.client.get("/memory/users", headers=OPEN_ADMIN)).json()["users"]
        [grace] = [u for u in users if u["user"] == "grace"]
        assert grace["workspaces"][0]["workspace"] == "notes-only" and grace["workspaces"][0]["counts"]["files"] == 2
        preview = (await app.client.get(forget_path("grace"), headers=OPEN_ADMIN)).json()
        assert preview["workspaces"] == ["notes-only"] and preview["counts"]["files"] == 2
        done = (await app.client.post(forget_path("grace"), json={"confirm": True}, headers=OPEN_ADMIN)).json()
        assert done["counts"] == preview["counts"]
        left = await app.client.get("/memory/files", headers=only_files)
        assert left.json()["count"] == 0 and left.json()["held"] == 0


async def test_a_bad_query_is_a_400_and_a_wrong_method_a_405(store: dict[str, Any]) -> None:
    async with running(store) as app:
        for limit in ("0", "x", "1000"):
            bad = await app.client.get("/memory/files", params={"q": "a", "limit": limit}, headers=as_user("ada"))
            assert bad.status_code == 400 and bad.json()["error"]["param"] == "limit"
        wrong = await app.client.post("/memory/files", headers=as_user("ada"))
        assert wrong.status_code == 405
        nobody = await app.client.get("/memory/files")
        assert nobody.status_code == 401


async def test_if_match_and_if_none_match_keep_a_stale_write_from_overwriting(store: dict[str, Any]) -> None:
    """Two people editing one file from what they read: the second, whose tag is stale, gets a 412 and the first's
    text stays; If-None-Match: * creates only where there is no file."""
    async with running(store) as app:
        call = await calls(app)
        one = "/memory/files/{path}"
        path = "/memory/files/notes.md"
        created = await call("put", one, path, json={"text": "tea\n"}, headers={"If-None-Match": "*"})
        assert created.status_code == 201 and created.headers["etag"] == '"file.v1"'
        again = await call("put", one, path, json={"text": "coffee\n"}, headers={"If-None-Match": "*"})
        assert again.status_code == 412 and error_code(again) == "version_mismatch"
        read = await call("get", one, path)
        tag = read.headers["etag"]
        first = await call("put", one, path, json={"text": "coffee\n"}, headers={"If-Match": tag})
        assert first.status_code == 200 and first.headers["etag"] == '"file.v2"'
        second = await call("put", one, path, json={"text": "juice\n"}, headers={"If-Match": tag})
        assert second.status_code == 412 and error_code(second) == "version_mismatch"
        stale_delete = await call("delete", one, path, headers={"If-Match": tag})
        assert stale_delete.status_code == 412
        assert (await call("get", one, path)).json()["file"]["text"] == "coffee\n"
        bad = await call("put", one, path, json={"text": "x\n"}, headers={"If-Match": "file.v2"})
        assert bad.status_code == 400 and error_code(bad) == "invalid_if_match"
        missing = await call("put", one, "/memory/files/other.md", json={"text": "x\n"}, headers={"If-Match": "*"})
        assert missing.status_code == 412
        gone = await call("delete", one, path, headers={"If-Match": first.headers["etag"]})
        assert gone.status_code == 200 and (await call("get", one, path)).status_code == 404
