"""Sessions (live and past, paged), one session's page (what it was given and why, what it said, its episode, the
memories it wrote) and history search, whose citations open a session at the turn they cite.

The calls are the API's: ``SessionRecords.page`` and ``get`` (``GET /memory/sessions``, ``GET
/memory/sessions/{id}``), ``EpisodeService.end`` (``POST /memory/sessions/{id}/end``), ``HistoryService.search``
(``GET /memory/history``) and ``MemoryService.browse`` with a session filter. A session id is whatever a client sent
as ``X-Memory-Session``, so it is only ever shown escaped and put in a URL percent-encoded; everything is looked up
within the viewer's own user and workspace.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..episodes.service import SessionNotFound
from ..memory.browse import Filters
from ..memory.history_service import SEARCH_MAX
from .context import Console
from .forms import Form
from .render import page, path_part
from .signin import Viewer

MAX_SESSION_CHARS = 200  # as X-Memory-Session
SESSION_MEMORIES = 100
PAGE_SIZE = 25
LISTS = {"": None, "live": True, "ended": False}  # ?show=


def session_routes(console: Console) -> list[Route]:
    services = console.services
    history = services.episodes.history

    async def list_sessions(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        show = request.query_params.get("show", "")
        show = show if show in LISTS else ""
        before = request.query_params.get("before") or None
        found = await services.session_records.page(viewer.identity, limit=PAGE_SIZE, before=before, live=LISTS[show])
        context = {
            **await console.base(request, viewer, "sessions"),
            "title": "Sessions",
            "sessions": found.items,
            "next": found.next,
            "show": show,
            "paged": before is not None,
            "idle": f"{services.settings.sessions.idle_timeout_s / 60:g} minutes",
            "history_enabled": history is not None and history.enabled,
        }
        return page("sessions.html", context)

    async def show_session(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        who = viewer.identity
        session_id = request.path_params["session_id"]
        if not 0 < len(session_id) <= MAX_SESSION_CHARS:
            return await console.not_found(request, viewer, "There is no session with that id here.")
        written = await services.memory.browse(who, None, Filters(session=session_id), limit=SESSION_MEMORIES)
        held = await services.memory.browse(who, None, Filters(session=session_id, held=True), limit=SESSION_MEMORIES)
        memories = [item.memory for item in (*held.items, *written.items)]
        try:
            record = await services.session_records.get(who, session_id)
        except SessionNotFound:
            if not memories:  # nothing of it left here but the memories it wrote: those are worth showing
                return await console.not_found(request, viewer, "There is no session with that id here.")
            record = None
        context = {
            **await console.base(request, viewer, "sessions"),
            "title": "Session",
            "session_id": session_id,
            "record": record,
            "memories": memories,
            "history_enabled": history is not None and history.enabled,
        }
        return page("session.html", context)

    async def end_session(request: Request, viewer: Viewer, form: Form) -> Response:
        assert viewer.identity is not None
        session_id = request.path_params["session_id"]
        await services.episodes.end(viewer.identity, session_id)
        return console.redirect(request, f"/ui/sessions/{path_part(session_id)}", done="ended")

    async def search_history(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        query = request.query_params.get("q", "").strip()[:500]
        enabled = history is not None and history.enabled
        found = []
        if history is not None and enabled and query:
            found = await history.search(viewer.identity, query, limit=SEARCH_MAX, person=True)
        context = {
            **await console.base(request, viewer, "history"),
            "title": "History",
            "query": query,
            "found": found,
            "enabled": enabled,
            "retention": f"{services.settings.history.retention_days:g}",
        }
        return page("history.html", context)

    return [
        Route("/sessions", console.view(list_sessions), methods=["GET"]),
        Route("/sessions/{session_id:path}/end", console.action(end_session), methods=["POST"]),
        Route("/sessions/{session_id:path}", console.view(show_session), methods=["GET"]),
        Route("/history", console.view(search_history), methods=["GET"]),
    ]
