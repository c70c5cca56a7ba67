"""The review queue (held memories and episodes: approve, reject, in bulk) and the episodes page.

Held memories come from ``MemoryService.browse`` with ``held``, held episodes from ``EpisodeService.held``; approving
is ``MemoryService.approve`` / ``EpisodeService.approve`` and rejecting ``MemoryService.delete`` (a rejected memory
is deleted, as ``DELETE /memory/memories/{id}`` would) / ``EpisodeService.reject``: the same calls as the API's.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import MemoryNotFound
from ..memory.browse import Filters
from .context import EPISODE_ID, MEMORY_ID, Action, Console, back_to, hx
from .forms import Form
from .render import page
from .signin import Viewer

MAX_LISTED = 50  # held memories shown at once; the rest show as these are approved or rejected
MAX_BULK = 500


def review_routes(console: Console) -> list[Route]:
    memory, episodes = console.services.memory, console.services.episodes

    async def review(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        held = await memory.browse(viewer.identity, None, Filters(held=True), limit=MAX_LISTED)
        waiting = await episodes.held(viewer.identity)
        context = {
            **await console.base(request, viewer, "review", waiting=held.total + len(waiting)),
            "title": "Review",
            "memories": [item.memory for item in held.items],
            "more": held.total - len(held.items),
            "episodes": waiting,
        }
        return page("review.html", context)

    async def bulk(request: Request, viewer: Viewer, form: Form) -> Response:
        """Approve or reject every checked item; one that is gone meanwhile is skipped, the rest still done."""
        assert viewer.identity is not None
        action = form.get("action")
        ids = form.all("id")[:MAX_BULK]
        if action not in ("approve", "reject"):
            return console.redirect(request, "/ui/review")
        done = 0
        for ident in ids:
            try:
                if MEMORY_ID.fullmatch(ident):
                    if action == "approve":
                        await memory.approve(viewer.identity, ident)
                    else:
                        await memory.delete(viewer.identity, ident)
                elif EPISODE_ID.fullmatch(ident):
                    if action == "approve":
                        await episodes.approve(viewer.identity, ident)
                    else:
                        await episodes.reject(viewer.identity, ident)
                else:
                    continue
            except MemoryNotFound:
                continue
            done += 1
        return console.redirect(request, "/ui/review", done="bulk", ident=str(done))

    async def list_episodes(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        found, jobs = await episodes.of(viewer.identity)
        settings = console.services.settings
        context = {
            **await console.base(request, viewer, "episodes"),
            "title": "Episodes",
            "episodes": sorted(found, key=lambda e: (e.created_at, e.id), reverse=True),
            "jobs": jobs,
            "min_turns": settings.sessions.min_turns_for_extraction,
            "idle": _duration(settings.sessions.idle_timeout_s),
            "extraction": settings.extraction.enabled,
        }
        return page("episodes.html", context)

    def episode_action(approve: bool) -> Action:
        async def act(request: Request, viewer: Viewer, form: Form) -> Response:
            assert viewer.identity is not None
            episode_id = request.path_params["episode_id"]
            if not EPISODE_ID.fullmatch(episode_id):
                raise MemoryNotFound("There is no episode with that id here.", param="id")
            if approve:
                await episodes.approve(viewer.identity, episode_id)
            else:
                await episodes.reject(viewer.identity, episode_id)
            if hx(request) and request.headers.get("hx-target", "").startswith("item-"):
                return page("_removed.html", {"waiting": await console.waiting(viewer.identity)})
            done = "approved" if approve else "rejected"
            return console.redirect(request, back_to(form, "/ui/review"), done=done, ident=episode_id)

        return act

    return [
        Route("/review", console.view(review), methods=["GET"]),
        Route("/review", console.action(bulk), methods=["POST"]),
        Route("/episodes", console.view(list_episodes), methods=["GET"]),
        Route("/episodes/{episode_id}/approve", console.action(episode_action(True)), methods=["POST"]),
        Route("/episodes/{episode_id}/reject", console.action(episode_action(False)), methods=["POST"]),
    ]


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} hours"
    if seconds >= 60:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"
