"""Sessions (live ones, and one session's page: its episode, the memories it wrote, its conversation) and history
search, whose citations open a session at the turn they cite.

The calls are the API's: the session tracker's ``of`` and ``get`` (``GET /memory/sessions``), ``EpisodeService.end``
(``POST /memory/sessions/{id}/end``), ``HistoryService.search`` and ``HistoryService.session`` (``GET /memory/history``
with ``q``, or with ``session``), ``EpisodeService.episode`` and ``MemoryService.browse`` with a session filter. A
session id is whatever a client sent as ``X-Memory-Session``, so it is only ever shown escaped and put in a URL
percent-encoded; everything is looked up within the viewer's own user and workspace.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..memory.browse import Filters
from ..memory.episodes import episode_id
from ..memory.history_service import SEARCH_MAX
from .context import Console
from .forms import Form
from .render import page, path_part
from .signin import Viewer

MAX_SESSION_CHARS = 200  # as X-Memory-Session
SESSION_MEMORIES = 100


def session_routes(console: Console) -> list[Route]:
    services = console.services
    tracker, history = services.episodes.sessions, services.episodes.history

    async def list_sessions(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        context = {
            **await console.base(request, viewer, "sessions"),
            "title": "Sessions",
            "sessions": tracker.of(viewer.identity.user, viewer.identity.workspace),
            "idle": f"{services.settings.sessions.idle_timeout_s / 60:g} minutes",
        }
        return page("sessions.html", context)

    async def show_session(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        who = viewer.identity
        session_id = request.path_params["session_id"]
        if not 0 < len(session_id) <= MAX_SESSION_CHARS:
            return await console.not_found(request, viewer, "There is no session with that id here.")
        live = tracker.get(who.user, who.workspace, session_id)
        episode = await services.episodes.episode(who, episode_id(who.user, who.workspace, session_id))
        written = await services.memory.browse(who, None, Filters(session=session_id), limit=SESSION_MEMORIES)
        held = await services.memory.browse(who, None, Filters(session=session_id, held=True), limit=SESSION_MEMORIES)
        lines = await history.session(who, session_id) if history is not None else []
        memories = [item.memory for item in (*held.items, *written.items)]
        if live is None and episode is None and not memories and not lines:
            return await console.not_found(request, viewer, "There is no session with that id here.")
        sources: set[str] = set()
        if live is not None:
            sources.update(live.provenance.sources)
        for line in lines:
            sources.update(line.sources)
        untrusted = bool(sources) or any(line.untrusted for line in lines)
        context = {
            **await console.base(request, viewer, "sessions"),
            "title": "Session",
            "session_id": session_id,
            "live": live,
            "episode": episode,
            "memories": memories,
            "lines": lines,
            "untrusted": untrusted or (live is not None and live.provenance.untrusted),
            "sources": sorted(sources),
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
