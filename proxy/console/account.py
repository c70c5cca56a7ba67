"""Signing in and out, and choosing whom to act for: the console's only pages without a memory on them.

Keys mode: ``GET /ui/`` without a sign-in is the sign-in page, one password field named ``key``; a valid memproxy
key starts a sign-in, a wrong one is a 401 page. The form carries a token of its own, matched against a cookie set
with it (double submit), and must come from this origin: no other site can sign a browser in. Open mode: the first
visit from this machine starts a sign-in without a key, and the person picks the user (and may enter
``memory.admin_key`` to use the admin pages).

"Whose memory" is a picker over the users the viewer may act for, by the management API's rule.
"""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..auth.identity import NO_USER
from ..auth.keys import RESERVED_USER_PREFIXES
from ..errors import ProxyError
from ..memory.caller import Identity
from .context import Console, back_to
from .forms import Form, read_form
from .render import page
from .security import cross_site, over_tls
from .signin import COOKIE, Viewer

SIGNIN_COOKIE = "memproxy_signin"
SIGNIN_TOKEN_TTL_S = 3600


def account_routes(console: Console) -> list[Route]:
    sign_ins = console.sign_ins

    async def home(request: Request) -> Response:
        viewer = await sign_ins.viewer(request.cookies.get(COOKIE))
        if viewer is not None:
            return console.redirect(request, "/ui/memories" if viewer.identity is not None else "/ui/acting")
        if sign_ins.keys_mode:
            return await sign_in_form(request)
        cookie, viewer = await sign_ins.open()
        return console.cookie(request, console.redirect(request, "/ui/acting"), cookie)

    async def sign_in_form(request: Request, *, wrong: bool = False) -> Response:
        token = secrets.token_urlsafe(24)
        context = {**await console.base(request, None, ""), "title": "Sign in", "signin": token, "wrong": wrong}
        response = page("sign_in.html", context, status=401 if wrong else 200)
        tls = over_tls(request.url.scheme, request.headers)
        response.set_cookie(
            SIGNIN_COOKIE, token, max_age=SIGNIN_TOKEN_TTL_S, path="/ui", secure=tls, httponly=True, samesite="strict"
        )
        return response

    async def sign_in_page(request: Request) -> Response:
        if not sign_ins.keys_mode:
            return console.redirect(request, "/ui/")
        if await sign_ins.viewer(request.cookies.get(COOKIE)) is not None:
            return console.redirect(request, "/ui/memories")
        return await sign_in_form(request)

    async def sign_in(request: Request) -> Response:
        if not sign_ins.keys_mode:
            return console.redirect(request, "/ui/")
        try:
            form = await read_form(request)
        except ProxyError:
            return await sign_in_form(request, wrong=True)
        expected = request.cookies.get(SIGNIN_COOKIE, "")
        if cross_site(request.headers) or not expected or not secrets.compare_digest(expected, form.get("signin")):
            context = await console.base(request, None, "")
            message = "This sign-in form did not come from this console (or it is too old). Reload it and try again."
            return page("error.html", {**context, "title": "Refused", "status": 403, "message": message}, status=403)
        started = await sign_ins.sign_in(form.get("key"))
        if started is None:
            return await sign_in_form(request, wrong=True)
        earlier = await sign_ins.viewer(request.cookies.get(COOKIE))
        if earlier is not None:  # signing in again (another key): the sign-in this browser had ends
            await sign_ins.sign_out(earlier)
        cookie, _ = started
        response = console.cookie(request, console.redirect(request, "/ui/memories"), cookie)
        response.delete_cookie(SIGNIN_COOKIE, path="/ui", httponly=True, samesite="strict")
        return response

    async def sign_out(request: Request, viewer: Viewer, form: Form) -> Response:
        await sign_ins.sign_out(viewer)
        return console.cookie(request, console.redirect(request, "/ui/", done="signed-out"), None)

    async def acting_page(request: Request, viewer: Viewer) -> Response:
        return await acting(request, viewer)

    async def acting(
        request: Request, viewer: Viewer, error: str | None = None, form: Form | None = None, *, status: int = 400
    ) -> Response:
        """The picker: the users the viewer may act for (``AdminService.users``: an admin key everyone, a service key
        its own user and its end users, open mode's person anyone on this machine's store), each workspace a button;
        a personal key picks among its own user's workspaces. A name not listed yet can be typed."""
        listing = viewer.manager
        if viewer.key is None and not viewer.admin:  # open mode: the person may name any user, so may see them all
            listing = Identity(NO_USER, viewer.session.workspace, admin=True)
        users = await console.services.admin.users(listing) if listing is not None else []
        if viewer.key is None:  # names memproxy derives (key-…, svc:…) cannot be picked in open mode
            users = [user for user in users if not user.user.startswith(RESERVED_USER_PREFIXES)]
        context = {
            **await console.base(request, viewer, ""),
            "title": "Whose memory",
            "error": error,
            "users": users,
            "session_user": form.get("user") if form is not None else viewer.session.user or "",
            "session_workspace": form.get("workspace") if form is not None else viewer.session.workspace,
            "admin_key_form": sign_ins.open_admin_key is not None and not viewer.admin,
        }
        return page("acting.html", context, status=status if error else 200)

    async def act(request: Request, viewer: Viewer, form: Form) -> Response:
        user = form.get("user") or None  # a key that may not choose gets its own user, or a 400 for another
        try:
            await sign_ins.act_for(viewer, user, form.get("workspace"))
        except ProxyError as exc:  # a name the API would refuse: the form again, saying why
            return await acting(request, viewer, exc.message, form, status=exc.status)
        return console.redirect(request, back_to(form, "/ui/memories"), done="switched")

    async def become_admin(request: Request, viewer: Viewer, form: Form) -> Response:
        """Open mode: ``memory.admin_key`` entered makes this sign-in an admin's (as X-Memory-Admin-Key does a call)."""
        if await sign_ins.elevate(viewer, form.get("admin_key")) is None:
            message = "That is not this memproxy's memory.admin_key. Nothing changed."
            return await acting(request, viewer, message, status=403)
        return console.redirect(request, "/ui/users", done="admin")

    return [
        Route("/", home, methods=["GET"]),
        Route("/sign-in", sign_in_page, methods=["GET"]),
        Route("/sign-in", sign_in, methods=["POST"]),
        Route("/sign-out", console.action(sign_out, needs_user=False), methods=["POST"]),
        Route("/acting", console.view(acting_page, needs_user=False), methods=["GET"]),
        Route("/acting", console.action(act, needs_user=False), methods=["POST"]),
        Route("/acting/admin", console.action(become_admin, needs_user=False), methods=["POST"]),
    ]
