"""The memories pages: the list (search, filters, pages), one memory (its versions; edit, pin, approve, reject,
delete, restore) and adding one.

Every read and write goes through :class:`~proxy.memory.service.MemoryService`, as the management API's do: the
list is ``browse`` (what ``GET /memory/memories`` answers), a memory's page is ``inspect`` and ``versions``
(``GET /memory/memories/{id}`` and ``.../versions``), the actions are ``add``, ``edit``, ``approve``, ``reject``,
``delete`` and ``restore``, each by the person through the console with the signed-in key
(``Actor.person(..., via="console")``). Every form that changes a memory carries the version its page showed and
hands it on as ``If-Match`` does (``expect``): a memory that changed since is never overwritten, the person gets a
page saying so with its text as it is now. Ids from the URL are checked (``m-<n>``) before anything is looked up,
and a memory is only ever looked up among the owners the viewer may read: another user's id is a 404 like a made-up
one.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import InvalidRequest, MemoryNotFound, MemoryRejected, PinRefused, VersionMismatch
from ..memory.browse import Filters
from ..memory.caller import Identity
from ..memory.provenance import ORIGINS
from ..memory.records import CATEGORIES, SCOPES
from ..memory.service import Inspected
from ..memory.versions import Actor, Version
from .context import MEMORY_ID, Console, back_to, hx
from .forms import Form
from .render import page
from .signin import Viewer

PAGE_SIZE = 25
MAX_OFFSET = 1_000_000
CARRIED = ("q", "scope", "category", "origin", "pinned", "held", "tag", "session")  # what a page link keeps


def memory_routes(console: Console) -> list[Route]:
    memory = console.services.memory

    async def list_memories(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        params = request.query_params
        query = params.get("q", "").strip()[:500]
        filters = _filters(params)
        offset = _offset(params.get("offset"))
        await memory.flush_uses()
        found = await memory.browse(viewer.identity, query or None, filters, offset=offset, limit=PAGE_SIZE)
        context = {
            "page": found,
            "query": query,
            "filters": filters,
            "carried": [(name, params[name]) for name in CARRIED if params.get(name)],
        }
        if hx(request) and request.headers.get("hx-target") == "results":  # the address bar: only what is set
            shown = urlencode([(name, params[name]) for name in (*CARRIED, "offset") if params.get(name)])
            url = "/ui/memories" + ("?" + shown if shown else "")
            return page("_memory_results.html", context, headers={"HX-Push-Url": url})
        return page("memories.html", {**await console.base(request, viewer, "memories"), **_choices(), **context,
                                      "title": "Memories", "add_error": None, "add_text": ""})  # fmt: skip

    async def add_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        assert viewer.identity is not None
        fields: dict[str, Any] = {
            "text": form.get("text"),
            "scope": form.get("scope") or "workspace",
            "category": form.get("category") or "fact",
            "tags": _tags(form.get("tags")),
            "pinned": form.get("pinned") == "true",
        }
        try:
            stored = await memory.add(viewer.identity, fields, origin="api", actor=_actor(viewer))
        except (MemoryRejected, PinRefused) as exc:  # the form again, with what was typed and why it was refused
            empty = await memory.browse(viewer.identity, None, Filters(), limit=PAGE_SIZE)
            context = {"page": empty, "query": "", "filters": Filters(), "carried": []}
            return page(
                "memories.html",
                {
                    **await console.base(request, viewer, "memories"),
                    **_choices(),
                    **context,
                    "title": "Memories",
                    "add_error": exc.message,
                    "add_text": form.get("text"),
                },  # fmt: skip
                status=exc.status,
            )
        return console.redirect(request, f"/ui/memories/{stored.memory.id}", done="added", ident=stored.memory.id)

    async def show_memory(request: Request, viewer: Viewer) -> Response:
        memory_id = request.path_params["memory_id"]
        if not MEMORY_ID.fullmatch(memory_id):
            return await console.not_found(request, viewer, "There is no memory with that id here.")
        assert viewer.identity is not None
        await memory.flush_uses()
        try:
            found = await memory.inspect(viewer.identity, memory_id)
        except MemoryNotFound:  # deleted (its history says so, while it can be restored), or none of the viewer's
            versions = await memory.versions(viewer.identity, memory_id)
            return await _deleted(request, viewer, memory_id, versions)
        return await _detail(request, viewer, found, await memory.versions(viewer.identity, memory_id))

    async def _detail(
        request: Request,
        viewer: Viewer,
        found: Inspected,
        versions: list[Version],
        *,
        error: str | None = None,
        form: Form | None = None,
    ) -> Response:
        assert viewer.identity is not None
        m = found.memory
        context = {
            **await console.base(request, viewer, "memories"),
            **_choices(),
            "title": f"Memory {m.id}",
            "memory": m,
            "supersedes": found.supersedes,
            "versions": versions,
            "editable": m.scope != "global" or viewer.identity.admin,
            "edit_error": error,
            "edit_text": form.get("text") if form is not None else m.text,
            "edit_tags": form.get("tags") if form is not None else ", ".join(m.tags),
        }
        return page("memory.html", context, status=200 if error is None else 400)

    async def _deleted(request: Request, viewer: Viewer, memory_id: str, versions: list[Version]) -> Response:
        assert viewer.identity is not None
        last = versions[0]
        context = {
            **await console.base(request, viewer, "memories"),
            "title": f"Memory {memory_id} (deleted)",
            "memory_id": memory_id,
            "last": last,
            "versions": versions,
        }
        return page("memory_deleted.html", context)

    async def changed(request: Request, viewer: Viewer, memory_id: str, exc: VersionMismatch, form: Form) -> Response:
        """A form made from a version that is no longer current: nothing was written; the memory as it is now, and
        what the person typed (so an edit is not lost)."""
        assert viewer.identity is not None
        current = None
        with contextlib.suppress(MemoryNotFound):  # deleted meanwhile: its versions say so
            current = (await memory.inspect(viewer.identity, memory_id)).memory
        versions = await memory.versions(viewer.identity, memory_id)
        context = {
            **await console.base(request, viewer, "memories"),
            "title": "Changed meanwhile",
            "memory_id": memory_id,
            "current": current,
            "newest": versions[0] if versions else None,
            "seen": _version_of(form),
            "typed": form.get("text") if form.get("text") else None,
        }
        return page("memory_changed.html", context, status=exc.status)

    async def edit_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        identity, memory_id = _target(request, viewer)
        fields = {"text": form.get("text"), "tags": list(_tags(form.get("tags")))}
        if form.get("category"):
            fields["category"] = form.get("category")
        try:
            edited = await memory.edit(identity, memory_id, fields, actor=_actor(viewer), expect=_expect(form))
        except VersionMismatch as exc:
            return await changed(request, viewer, memory_id, exc, form)
        except (MemoryRejected, PinRefused) as exc:
            found = await memory.inspect(identity, memory_id)
            versions = await memory.versions(identity, memory_id)
            return await _detail(request, viewer, found, versions, error=exc.message, form=form)
        if form.get("then") == "approve" and edited.held:
            await memory.approve(identity, memory_id, actor=_actor(viewer))
            return console.redirect(request, f"/ui/memories/{memory_id}", done="approved", ident=memory_id)
        return console.redirect(request, f"/ui/memories/{memory_id}", done="saved", ident=memory_id)

    def pinning(pinned: bool) -> Any:
        async def pin(request: Request, viewer: Viewer, form: Form) -> Response:
            identity, memory_id = _target(request, viewer)
            try:
                await memory.edit(identity, memory_id, {"pinned": pinned}, actor=_actor(viewer), expect=_expect(form))
            except VersionMismatch as exc:
                return await changed(request, viewer, memory_id, exc, form)
            done = "pinned" if pinned else "unpinned"
            return console.redirect(request, back_to(form, f"/ui/memories/{memory_id}"), done=done, ident=memory_id)

        return pin

    async def approve_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        identity, memory_id = _target(request, viewer)
        await memory.approve(identity, memory_id, actor=_actor(viewer))
        if hx(request) and request.headers.get("hx-target", "").startswith("item-"):
            return await removed(request, viewer)
        return console.redirect(request, back_to(form, "/ui/review"), done="approved", ident=memory_id)

    async def reject_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        """A held memory turned down (the review's reject: one that is not held is refused, never deleted here)."""
        identity, memory_id = _target(request, viewer)
        rejected = await memory.reject(identity, memory_id, actor=_actor(viewer))
        if hx(request) and request.headers.get("hx-target", "").startswith("item-"):
            return await removed(request, viewer)
        where = back_to(form, "/ui/review")
        return console.redirect(request, where, done="rejected", ident=memory_id, version=rejected.version + 1)

    async def delete_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        identity, memory_id = _target(request, viewer)
        try:
            deleted = await memory.delete(identity, memory_id, actor=_actor(viewer), expect=_expect(form))
        except VersionMismatch as exc:
            return await changed(request, viewer, memory_id, exc, form)
        where = back_to(form, "/ui/memories")  # the tombstone is the version after the one deleted: Undo restores it
        return console.redirect(request, where, done="deleted", ident=memory_id, version=deleted.version + 1)

    async def restore_memory(request: Request, viewer: Viewer, form: Form) -> Response:
        identity, memory_id = _target(request, viewer)
        await memory.versions(identity, memory_id)  # another user's (or no) memory: a 404 before the form is judged
        chosen = _number(form.get("restore"), "restore")
        try:
            await memory.restore(identity, memory_id, chosen, actor=_actor(viewer), expect=_expect(form))
        except VersionMismatch as exc:
            return await changed(request, viewer, memory_id, exc, form)
        return console.redirect(request, f"/ui/memories/{memory_id}", done="restored", ident=memory_id)

    async def removed(request: Request, viewer: Viewer) -> Response:
        """An item the review queue's htmx took away: nothing in its place, and the navigation's count anew."""
        return page("_removed.html", {"waiting": await console.waiting(viewer)})

    return [
        Route("/memories", console.view(list_memories), methods=["GET"]),
        Route("/memories", console.action(add_memory), methods=["POST"]),
        Route("/memories/{memory_id}", console.view(show_memory), methods=["GET"]),
        Route("/memories/{memory_id}/edit", console.action(edit_memory), methods=["POST"]),
        Route("/memories/{memory_id}/pin", console.action(pinning(True)), methods=["POST"]),
        Route("/memories/{memory_id}/unpin", console.action(pinning(False)), methods=["POST"]),
        Route("/memories/{memory_id}/approve", console.action(approve_memory), methods=["POST"]),
        Route("/memories/{memory_id}/reject", console.action(reject_memory), methods=["POST"]),
        Route("/memories/{memory_id}/delete", console.action(delete_memory), methods=["POST"]),
        Route("/memories/{memory_id}/restore", console.action(restore_memory), methods=["POST"]),
    ]


def _actor(viewer: Viewer) -> Actor:
    """Who a console write names: the person, through the console, with the key they signed in with."""
    return Actor.person(viewer.identity, via="console")


def _target(request: Request, viewer: Viewer) -> tuple[Identity, str]:
    """The viewer's identity and the memory id of the URL, checked: a malformed id is a 404 like an unknown one."""
    assert viewer.identity is not None
    memory_id = request.path_params["memory_id"]
    if not MEMORY_ID.fullmatch(memory_id):
        raise MemoryNotFound("There is no memory with that id here.", param="id")
    return viewer.identity, memory_id


def _expect(form: Form) -> frozenset[int]:
    """The version the form was made from (its ``version`` field), as ``If-Match`` names it. A form without one (an
    older page, a hand-made post) expects none: once the memory is found (a 404 first, like any guessed id), it is
    refused as changed rather than allowed to overwrite whatever is there now."""
    seen = _version_of(form)
    return frozenset() if seen is None else frozenset({seen})


def _version_of(form: Form) -> int | None:
    value = form.get("version")
    return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else None


def _number(value: str, name: str) -> int:
    if not (value.isascii() and value.isdigit() and 0 < len(value) < 10) or int(value) < 1:
        raise InvalidRequest("This form names no version to restore: reload the page and try again.", param=name)
    return int(value)


def _filters(params: Any) -> Filters:
    """The list's filters; a value the API would refuse (an unknown scope) is ignored here rather than an error."""
    scope, origin, category = params.get("scope") or None, params.get("origin") or None, params.get("category") or None
    pinned = params.get("pinned")
    return Filters(
        tag=params.get("tag") or None,
        category=category if category in CATEGORIES else None,
        origin=origin if origin in ORIGINS else None,
        scope=scope if scope in SCOPES else None,
        pinned=True if pinned == "true" else False if pinned == "false" else None,
        session=params.get("session") or None,
        held=params.get("held") == "true",
    )


def _offset(value: str | None) -> int:
    if value is None or not value.isascii() or not value.isdigit():
        return 0
    return min(int(value), MAX_OFFSET)


def _tags(value: str) -> tuple[str, ...]:
    return tuple(tag.strip() for tag in value.split(",") if tag.strip())


def _choices() -> dict[str, Any]:
    return {"categories": CATEGORIES, "scopes": SCOPES, "origins": ORIGINS}
