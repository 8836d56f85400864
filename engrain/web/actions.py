"""The page's actions (POST forms, checked by signin.SignIn.form): review a trait, reword, pin, forget or link a
memory, through the services the tools use; each redirects back with a fixed notice (post/redirect/get), so a
reload never repeats it."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from engrain.web.rendering import Renderer
from engrain.web.services import PageServices
from engrain.web.sessions import Session


class Actions:
    def __init__(self, renderer: Renderer, services: PageServices) -> None:
        self.page = renderer
        self.s = services

    async def review(self, request: Request, session: Session, form: FormData) -> Response:
        trait_id = request.path_params["trait_id"]
        action = str(form.get("action", ""))
        content = str(form.get("content", "")) if action == "edit" else None
        result = await self.s.review.review(session.user, trait_id, action, content)
        done = {"endorse": "endorsed", "dismiss": "dismissed", "edit": "edited"}[result.action]
        return self.page.redirect(f"/traits/{result.id}", done)

    async def edit(self, request: Request, session: Session, form: FormData) -> Response:
        """A new wording supersedes the memory (its history keeps the old one)."""
        memory_id = request.path_params["memory_id"]
        result = await self.s.memories.reword(session.user, memory_id, str(form.get("content", "")))
        return self.page.redirect(f"/memories/{result.id}", "redacted" if result.redacted else "edited")

    async def pin(self, request: Request, session: Session, form: FormData) -> Response:
        pinned = form.get("pinned") == "1"
        result = await self.s.memories.pin(session.user, request.path_params["memory_id"], pinned)
        return self.page.redirect(f"/memories/{result.id}", "pinned" if pinned else "unpinned")

    async def forget(self, request: Request, session: Session, form: FormData) -> Response:
        reason = str(form.get("reason", "")) or None
        await self.s.memories.forget(session.user, request.path_params["memory_id"], reason)
        return self.page.redirect("/memories", "forgotten")

    async def link(self, request: Request, session: Session, form: FormData) -> Response:
        result = await self.s.links.link(
            session.user,
            str(form.get("source_id", "")).strip(),
            str(form.get("target_id", "")).strip(),
            str(form.get("relation", "")).strip() or "related",
        )
        return self.page.redirect(f"/memories/{result.source_id}", "linked" if result.status == "created" else "exists")
