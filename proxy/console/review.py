"""The review queue (held memories and episodes with the evidence that held them: approve, reject, edit, in bulk,
page by page; above them, the memory file changes held as proposals, each with its diff) and the episodes page.

The queue is ``ReviewQueue.page`` (``GET /memory/review``): each item with the untrusted tools its session called and
the history excerpt around the first such call; for an episode, what approving would do with each fact
(``ReviewQueue.facts``, ``MemoryService.foresee``) comes just after, per episode, so that a queue of many episodes
shows at once (a dry run ranks every fact against every memory). Approving is ``MemoryService.approve`` /
``EpisodeService.approve``, rejecting ``MemoryService.reject`` (``POST /memory/memories/{id}/reject``: a held
memory's review, never a plain delete) / ``EpisodeService.reject``: the same calls as the API's, memory changes by
the person through the console.

An admin's navigation counts everyone's held items; their queue is the user and workspace they act for, so the page
also lists where else something waits (``AdminService.held_by_owner``), each a button that switches there.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import MemoryNotFound, NotHeld
from ..memory.caller import DEFAULT_WORKSPACE
from ..memory.census import Held
from ..memory.store import Owner
from ..memory.versions import Actor
from .context import EPISODE_ID, FILE_PROPOSAL_ID, MEMORY_ID, Action, Console, back_to, hx
from .files import proposed
from .forms import Form
from .render import page
from .signin import Viewer

PAGE_SIZE = 25
MAX_BULK = 500


def review_routes(console: Console) -> list[Route]:
    services = console.services
    memory, episodes = services.memory, services.episodes

    async def review(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        before = request.query_params.get("before") or None
        found = await services.review.page(viewer.identity, limit=PAGE_SIZE, before=before, foresee=False)
        own = await console.own_held(viewer.identity)
        changes = await proposed(console, viewer.identity) if before is None else []  # on the first page
        elsewhere = []
        if viewer.admin and viewer.manager is not None:  # where else something waits: by owner, as stored
            here = viewer.identity
            for owner, held in sorted((await services.admin.held_by_owner(viewer.manager)).items(), key=_named):
                mine = owner.user == here.user and owner.workspace in (here.workspace, None)
                if owner.user is None or mine:  # global ones are in this queue already, the user's own too
                    continue
                elsewhere.append((owner.user, owner.workspace or DEFAULT_WORKSPACE, held.total))
        context = {
            **await console.base(request, viewer, "review"),
            "title": "Review",
            "items": found.items,
            "proposals": changes,
            "next": found.next,
            "paged": before is not None,
            "own": own,
            "elsewhere": elsewhere,
        }
        return page("review.html", context)

    async def facts(request: Request, viewer: Viewer) -> Response:
        """What approving an episode would do with each fact: the queue asks for it after it shows (htmx), or a
        page of its own without JavaScript. Worked out per episode, so a long queue shows at once."""
        assert viewer.identity is not None
        episode_id = request.path_params["episode_id"]
        if not EPISODE_ID.fullmatch(episode_id):
            return await console.not_found(request, viewer, "There is no episode with that id here.")
        episode, outcomes = await services.review.facts(viewer.identity, episode_id)
        if hx(request):
            return page("_facts.html", {"facts": outcomes})
        context = {**await console.base(request, viewer, "review"), "title": "What approving would do",
                   "episode": episode, "facts": outcomes}  # fmt: skip
        return page("facts.html", context)

    async def bulk(request: Request, viewer: Viewer, form: Form) -> Response:
        """Approve or reject every checked item; one that is gone meanwhile (or no longer held) is skipped, the rest
        still done."""
        assert viewer.identity is not None
        action = form.get("action")
        ids = form.all("id")[:MAX_BULK]
        if action not in ("approve", "reject"):
            return console.redirect(request, "/ui/review")
        actor = Actor.person(viewer.identity, via="console")
        done = 0
        for ident in ids:
            try:
                if MEMORY_ID.fullmatch(ident):
                    if action == "approve":
                        await memory.approve(viewer.identity, ident, actor=actor)
                    else:
                        await memory.reject(viewer.identity, ident, actor=actor)
                elif EPISODE_ID.fullmatch(ident):
                    if action == "approve":
                        await episodes.approve(viewer.identity, ident)
                    else:
                        await episodes.reject(viewer.identity, ident)
                elif FILE_PROPOSAL_ID.fullmatch(ident):
                    if action == "approve":
                        await services.files.approve(viewer.identity, ident)
                    else:
                        await services.files.reject(viewer.identity, ident)
                else:
                    continue
            except (MemoryNotFound, NotHeld):
                continue
            done += 1
        return console.redirect(request, "/ui/review", done="bulk", ident=str(done))

    async def list_episodes(request: Request, viewer: Viewer) -> Response:
        assert viewer.identity is not None
        found, jobs = await episodes.of(viewer.identity)
        settings = services.settings
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
                return page("_removed.html", {"waiting": await console.waiting(viewer)})
            done = "approved" if approve else "rejected"
            return console.redirect(request, back_to(form, "/ui/review"), done=done, ident=episode_id)

        return act

    return [
        Route("/review", console.view(review), methods=["GET"]),
        Route("/review", console.action(bulk), methods=["POST"]),
        Route("/review/{episode_id}/facts", console.view(facts), methods=["GET"]),
        Route("/episodes", console.view(list_episodes), methods=["GET"]),
        Route("/episodes/{episode_id}/approve", console.action(episode_action(True)), methods=["POST"]),
        Route("/episodes/{episode_id}/reject", console.action(episode_action(False)), methods=["POST"]),
    ]


def _named(item: tuple[Owner, Held]) -> tuple[str, str]:
    owner = item[0]
    return owner.user or "", owner.workspace or ""


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} hours"
    if seconds >= 60:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"
