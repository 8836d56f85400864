"""What `get_profile` returns besides its text: the profile's sections, line by line, for clients that read
structured content (most hand the model the text, which says the same)."""

from __future__ import annotations

from datetime import datetime, tzinfo

from pydantic import BaseModel, Field

from engrain.services.profile.sections import Item, Section
from engrain.services.wording.lines import when_text


class ProfileLine(BaseModel):
    id: str
    content: str
    when: str | None = Field(default=None, description="'said D · happened P', as the text's line shows it.")
    tags: list[str] = Field(description="The line's marks: its key ('home'), 'plan', 'habit', a trait's stage…")


class ProfileSection(BaseModel):
    title: str
    lines: list[ProfileLine]
    more: int = Field(default=0, description="Left out of this section: recall (or the named tool) finds them.")


class ProfileResult(BaseModel):
    at: datetime = Field(description="The user's now (their latest told time), or the moment travelled to.")
    sections: list[ProfileSection]

    @classmethod
    def of(cls, at: datetime, sections: list[Section], tz: tzinfo | None) -> ProfileResult:
        def line(item: Item) -> ProfileLine:
            return ProfileLine(id=str(item.id), content=item.content, when=when_text(item.shown, tz), tags=item.tags)

        return cls(
            at=at,
            sections=[ProfileSection(title=s.title, lines=[line(i) for i in s.items], more=s.more) for s in sections],
        )
