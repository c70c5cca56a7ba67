"""What every console page shares: who is looking (and the checks before anything else runs), the navigation's
count, notices after an action, redirects, and errors rendered as pages.

A route is a ``Handler`` wrapped by :meth:`Console.view` (a GET) or :meth:`Console.action` (a POST): the wrapper finds
the viewer (no sign-in: the sign-in page; open mode: this machine only), refuses a POST without the sign-in's CSRF
token or from another site (403, nothing changed), keeps the admin pages from everyone else (a 404, as for a page
that is not there), and turns a service's :class:`ProxyError` into an error page with its status. Handlers only
call services and render.

The navigation's count is what waits for the viewer's review: an admin's is everyone's (the census's count, as
``GET /memory/held`` answers an admin), anyone else's what their own review queue holds
(:meth:`MemoryService.held_count` and :meth:`FileService.held_count`, as ``GET /memory/review`` counts it). Both
answer from counts kept current, in a millisecond or so, on every page.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import ProxyError
from ..memory.caller import Identity
from ..memory.census import Held
from ..services import Services
from .forms import MAX_FORM_BYTES, Form, read_form
from .render import page, secure
from .security import cross_site, csrf_valid, over_tls
from .signin import COOKIE, SignIns, Viewer

View = Callable[[Request, Viewer], Awaitable[Response]]
Action = Callable[[Request, Viewer, Form], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]

MEMORY_ID = re.compile(r"m-[0-9]{1,20}")
EPISODE_ID = re.compile(r"e-[0-9a-f]{16}")
KEY_ID = re.compile(r"k-[0-9a-f]{12}")
FILE_PROPOSAL_ID = re.compile(r"fp-[0-9a-f]{16}")
_NEXT = re.compile(r"/ui/[A-Za-z0-9/_.%~-]*")  # where an action may send the browser back to: the console only
# What an action did, said on the page it leads to (?done=CODE&id=ID): fixed texts, never anything a request wrote.
NOTICES = {
    "added": "Saved {id}.",
    "saved": "Saved {id}.",
    "approved": "Approved {id}: it may be injected and found by search from now on.",
    "rejected": "Rejected {id}.",
    "deleted": "Deleted {id}.",
    "restored": "Restored {id}: the version you chose is its text now, as a new version.",
    "pinned": "Pinned {id}: it opens every new session's block.",
    "unpinned": "Unpinned {id}.",
    "ended": "Ended the session; its episode is extracted in the background when it had enough turns.",
    "bulk": "Done: {id} items.",
    "file-created": "Created the file.",
    "file-saved": "Saved the file: the memory tool's next view of it reads this text.",
    "file-deleted": "Deleted the file.",
    "file-held": "Held for your approval: the scanner flagged the text. It is in the review queue, not in the file.",
    "file-approved": "Approved {id}: the file holds the proposed text now.",
    "file-rejected": "Rejected {id}: the file is as it was.",
    "switched": "Switched.",
    "revoked": "Revoked key {id}: it stops working, console sign-ins included, within a second.",
    "admin": "Signed in as an admin: the admin pages are in the navigation.",
    "signed-out": "Signed out.",
}


@dataclass(frozen=True, slots=True)
class Console:
    services: Services
    sign_ins: SignIns

    # -- wrapping routes ------------------------------------------------------------------------------------------

    def view(self, handler: View, *, needs_user: bool = True, admin: bool = False) -> Endpoint:
        """A GET page. ``admin``: an admin's only (anyone else gets the 404 of a page that is not there)."""

        async def endpoint(request: Request) -> Response:
            viewer = await self.sign_ins.viewer(request.cookies.get(COOKIE))
            if viewer is None:
                return self.signed_out(request)
            try:
                if admin and not viewer.admin:
                    return await self.not_found(request, viewer, "There is no console page here.")
                if needs_user and viewer.identity is None:
                    return self.redirect(request, "/ui/acting")
                return await handler(request, viewer)
            except ProxyError as exc:
                return await self.error(request, viewer, exc)

        return endpoint

    def action(
        self, handler: Action, *, needs_user: bool = True, admin: bool = False, max_bytes: int = MAX_FORM_BYTES
    ) -> Endpoint:
        """A POST: the form read (``max_bytes`` at most), its CSRF token and origin checked, before anything else."""

        async def endpoint(request: Request) -> Response:
            viewer = await self.sign_ins.viewer(request.cookies.get(COOKIE))
            if viewer is None:
                return self.signed_out(request)
            try:
                form = await read_form(request, max_bytes)
                if cross_site(request.headers) or not csrf_valid(viewer.cookie, _token(request, form)):
                    return await self.forbidden(request, viewer)
                if admin and not viewer.admin:
                    return await self.not_found(request, viewer, "There is no console page here.")
                if needs_user and viewer.identity is None:
                    return self.redirect(request, "/ui/acting")
                return await handler(request, viewer, form)
            except ProxyError as exc:
                return await self.error(request, viewer, exc)

        return endpoint

    # -- answers ------------------------------------------------------------------------------------------------

    def signed_out(self, request: Request) -> Response:
        """No sign-in (or one that ended): to the sign-in page; an htmx request makes the whole page go there."""
        if request.headers.get("hx-request"):
            return secure(Response(status_code=200, headers={"HX-Redirect": "/ui/"}))
        return self.redirect(request, "/ui/")

    def redirect(
        self,
        request: Request,
        url: str,
        *,
        done: str | None = None,
        ident: str | None = None,
        version: int | None = None,
    ) -> Response:
        """303 See Other (after a POST the browser GETs the page), or for htmx a full navigation there. ``version``:
        a deleted memory's last one, which the notice's ``Undo`` restores."""
        if done is not None:
            query = {"done": done, **({"id": ident} if ident else {}), **({"v": str(version)} if version else {})}
            url += "?" + urlencode(query)
        if request.headers.get("hx-request") and request.method == "POST":
            return secure(Response(status_code=200, headers={"HX-Location": url}))
        return secure(RedirectResponse(url, status_code=303))

    async def forbidden(self, request: Request, viewer: Viewer) -> Response:
        context = await self.base(request, viewer, "")
        message = "This form did not come from this console page (or the page is too old). Nothing was changed."
        return page("error.html", {**context, "title": "Refused", "status": 403, "message": message}, status=403)

    async def error(self, request: Request, viewer: Viewer, exc: ProxyError) -> Response:
        status = exc.status if 400 <= exc.status < 600 else 500
        context = await self.base(request, viewer, "")
        title = {404: "Not found", 403: "Not allowed", 409: "Not possible", 412: "Changed meanwhile",
                 503: "Store unavailable"}  # fmt: skip
        return page(
            "error.html",
            {**context, "title": title.get(status, "Not done"), "status": status, "message": exc.message},
            status=status,
        )

    async def not_found(self, request: Request, viewer: Viewer, what: str) -> Response:
        context = await self.base(request, viewer, "")
        return page("error.html", {**context, "title": "Not found", "status": 404, "message": what}, status=404)

    def cookie(self, request: Request, response: Response, cookie: str | None) -> Response:
        """Set (or with None, clear) the sign-in cookie: HttpOnly, SameSite=Strict, Path=/ui, Secure behind TLS."""
        tls = over_tls(request.url.scheme, request.headers)
        if cookie is None:
            response.delete_cookie(COOKIE, path="/ui", secure=tls, httponly=True, samesite="strict")
        else:
            ttl = int(self.sign_ins.ttl_s)
            response.set_cookie(COOKIE, cookie, max_age=ttl, path="/ui", secure=tls, httponly=True, samesite="strict")
        return response

    # -- what every page shows ---------------------------------------------------------------------------------------

    async def base(
        self, request: Request, viewer: Viewer | None, active: str, *, waiting: int | None = None
    ) -> dict[str, Any]:
        """The layout's context: who is looking, the navigation (with the review count: ``waiting`` when the page
        counted it already), the notice, the CSRF token."""
        identity = viewer.identity if viewer is not None else None
        if waiting is None:
            waiting = await self.waiting(viewer) if viewer is not None else 0
        return {
            "viewer": viewer,
            "identity": identity,
            "admin": viewer is not None and viewer.admin,
            "csrf": viewer.csrf if viewer is not None else "",
            "active": active,
            "waiting": waiting,
            "notice": _notice(request),
            "undo": _undo(request),
            "keys_mode": self.sign_ins.keys_mode,
            "title": "",
            "path": request.url.path,
        }

    async def waiting(self, viewer: Viewer) -> int:
        """The navigation's count: everyone's held memories, episodes and file proposals for an admin, else what the
        viewer's own review queue holds (0 before open mode's person picked a user)."""
        if viewer.admin and viewer.manager is not None:
            return (await self.services.admin.held(viewer.manager)).total
        if viewer.identity is None:
            return 0
        return (await self.own_held(viewer.identity)).total

    async def own_held(self, identity: Identity) -> Held:
        """What the identity's own review queue holds: its held memories and episodes and its file proposals."""
        held = await self.services.memory.held_count(identity)
        return replace(held, files=await self.services.files.held_count(identity))


def back_to(form: Form, default: str) -> str:
    """Where the form says to go after it is done, if that is a console page; else ``default``."""
    wanted = form.get("next")
    return wanted if _NEXT.fullmatch(wanted) and "//" not in wanted and ".." not in wanted else default


def hx(request: Request) -> bool:
    return bool(request.headers.get("hx-request"))


def _token(request: Request, form: Form) -> str | None:
    return request.headers.get("x-csrf-token") or form.get("csrf") or None


def _notice(request: Request) -> str | None:
    template = NOTICES.get(request.query_params.get("done", ""))
    if template is None:
        return None
    ident = request.query_params.get("id", "")
    valid = (
        MEMORY_ID.fullmatch(ident)
        or EPISODE_ID.fullmatch(ident)
        or KEY_ID.fullmatch(ident)
        or FILE_PROPOSAL_ID.fullmatch(ident)
        or (ident.isascii() and ident.isdigit() and len(ident) < 10)
    )
    return template.format(id=ident if valid else "it")


def _undo(request: Request) -> tuple[str, int] | None:
    """After a delete (or a reject): the memory and its last version, which the notice's ``Undo`` restores
    (checked: an id and a number, nothing else gets into the form)."""
    params = request.query_params
    ident, version = params.get("id", ""), params.get("v", "")
    if params.get("done") not in ("deleted", "rejected") or not MEMORY_ID.fullmatch(ident):
        return None
    if not (version.isascii() and version.isdigit() and 0 < len(version) < 10):
        return None
    return ident, int(version)
