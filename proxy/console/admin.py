"""The admin pages: users with their counts (a service key sees its end users here too), keys (create, shown once;
revoke), forgetting a user after a preview, and the store's health. Global memories are the memories page's
``scope=global`` list, where an admin may add them.

Every call is :class:`~proxy.admin.service.AdminService`'s, as the API's ``/memory/keys``, ``/memory/users`` and
``/memory/health`` make them, with the viewer's identity (an admin key's, or open mode's person once they entered
``memory.admin_key``): the service checks the caller again, whatever the page. Anyone else gets the 404 of a page
that is not there. A new key is shown once, in the answer to the form that made it (a POST: never in a URL, never
cached, never logged); only its id is kept anywhere but the person's clipboard.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..admin.forgetting import KINDS
from ..errors import InvalidRequest
from ..memory.keys import KINDS as KEY_KINDS
from .context import KEY_ID, Console
from .forms import Form
from .render import page
from .signin import Viewer

KIND_NAMES = {  # what each kind of thing forgetting deletes, as a person reads it
    "memories": "memories (superseded wordings and versions with them; user-wide ones too)",
    "episodes": "episodes",
    "jobs": "extraction jobs not done yet",
    "history": "history lines",
    "sessions": "live sessions (never extracted)",
    "session_state": "shared session states (blocks and notes)",
    "kept_turns": "kept hidden turns",
    "details": "offloaded tool outputs",
}


def admin_routes(console: Console) -> list[Route]:
    admin = console.services.admin

    async def users(request: Request, viewer: Viewer) -> Response:
        if not viewer.admin and (viewer.key is None or viewer.key.kind != "service"):
            return await console.not_found(request, viewer, "There is no console page here.")
        assert viewer.manager is not None
        found = await admin.users(viewer.manager)
        context = {**await console.base(request, viewer, "admin"), "title": "Users", "users": found, "tab": "users"}
        return page("users.html", context)

    async def forget_preview(request: Request, viewer: Viewer) -> Response:
        assert viewer.manager is not None
        user = request.query_params.get("user", "")
        preview = await admin.forget_preview(viewer.manager, user)
        context = {**await console.base(request, viewer, "admin"), "title": "Forget a user", "tab": "users",
                   "forgetting": preview, "kinds": _kinds(preview.counts)}  # fmt: skip
        return page("forget.html", context)

    async def forget(request: Request, viewer: Viewer, form: Form) -> Response:
        assert viewer.manager is not None
        user = form.get("user")
        if form.get("confirm") != "yes":
            raise InvalidRequest("forgetting a user needs the preview page's confirmation", param="confirm")
        done = await admin.forget_user(viewer.manager, user)
        context = {**await console.base(request, viewer, "admin"), "title": "Forgotten", "tab": "users",
                   "forgetting": done, "kinds": _kinds(done.counts)}  # fmt: skip
        return page("forget.html", context)

    async def keys(request: Request, viewer: Viewer, *, error: str | None = None, form: Form | None = None) -> Response:
        assert viewer.manager is not None
        context = {
            **await console.base(request, viewer, "admin"),
            "title": "Keys",
            "tab": "keys",
            "keys": await admin.list_keys(viewer.manager),
            "kinds": KEY_KINDS,
            "error": error,
            "new_user": form.get("user") if form is not None else "",
            "new_kind": form.get("kind") if form is not None else "personal",
            "made": None,
        }
        return page("keys.html", context, status=400 if error else 200)

    async def list_keys(request: Request, viewer: Viewer) -> Response:
        return await keys(request, viewer)

    async def create_key(request: Request, viewer: Viewer, form: Form) -> Response:
        """The new key, once, in this answer (never a redirect: a URL would keep it in the history)."""
        assert viewer.manager is not None
        try:
            made = await admin.create_key(viewer.manager, form.get("user").strip(), form.get("kind") or "personal")
        except InvalidRequest as exc:
            return await keys(request, viewer, error=exc.message, form=form)
        context = {
            **await console.base(request, viewer, "admin"),
            "title": "Key created",
            "tab": "keys",
            "made": made,
        }
        return page("key_created.html", context, status=201)

    async def revoke_key(request: Request, viewer: Viewer, form: Form) -> Response:
        assert viewer.manager is not None
        key_id = request.path_params["key_id"]
        if not KEY_ID.fullmatch(key_id):
            return await console.not_found(request, viewer, "There is no key with that id.")
        await admin.revoke_key(viewer.manager, key_id)
        return console.redirect(request, "/ui/keys", done="revoked", ident=key_id)

    async def health(request: Request, viewer: Viewer) -> Response:
        assert viewer.manager is not None
        found = await admin.health(viewer.manager)
        context = {**await console.base(request, viewer, "admin"), "title": "Store health", "tab": "health",
                   "health": found, "report": found.to_json()}  # fmt: skip
        return page("health.html", context)

    return [
        Route("/users", console.view(users, needs_user=False), methods=["GET"]),
        Route("/users/forget", console.view(forget_preview, needs_user=False, admin=True), methods=["GET"]),
        Route("/users/forget", console.action(forget, needs_user=False, admin=True), methods=["POST"]),
        Route("/keys", console.view(list_keys, needs_user=False, admin=True), methods=["GET"]),
        Route("/keys", console.action(create_key, needs_user=False, admin=True), methods=["POST"]),
        Route("/keys/{key_id}/revoke", console.action(revoke_key, needs_user=False, admin=True), methods=["POST"]),
        Route("/health", console.view(health, needs_user=False, admin=True), methods=["GET"]),
    ]


def _kinds(counts: dict[str, int]) -> list[tuple[str, str, int]]:
    """Each kind forgetting deletes, in the API's order, with its name for a person and its count."""
    ordered = [kind for kind in KINDS if kind in counts] + [kind for kind in counts if kind not in KINDS]
    return [(kind, KIND_NAMES.get(kind, kind.replace("_", " ")), counts[kind]) for kind in ordered]
