"""ingest_conversation: turn a conversation into memories.

With a model: it extracts facts, episodes and procedures (with dates, importance,
category, steps) and a short summary, which is stored as an episodic memory linked to
everything extracted. Without one: the user's own first-person statements are kept,
sentence by sentence. Either way each memory goes through `remember`, so enrichment,
dedup and validation are the same as for a client's own calls.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput
from engrain.providers.llm import Prompt
from engrain.reading import inputs, languages
from engrain.reading.enrich import procedure_steps
from engrain.reading.mood import sentences
from engrain.services.memories.extraction import ExtractedMemory, Extraction
from engrain.services.memories.results import IngestResult
from engrain.services.memories.writing import RememberRequest
from engrain.text.languages import ENGLISH, detect
from engrain.text.quoting import DATA_NOTICE, quoted

if TYPE_CHECKING:
    from engrain.services.memories.links import MemoryLinks
    from engrain.services.memories.writing import MemoryWriter
    from engrain.services.prompting.routes import Route
    from engrain.services.runtime import Runtime

MAX_MESSAGES = 500
MAX_TOTAL_CHARS = 200_000
MAX_EXTRACTED = 50
SUMMARY_RELATION = "summarizes"

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|we|we're|our)\b", re.IGNORECASE)
# Spoken openers and conjunctions that tie a sentence to the one before it.
_LEAD = re.compile(
    r"^(?:well|so|actually|oh|hey|hi|hello|yeah|yes|no|ok(?:ay)?|um+|uh+|and|but|also|plus)\b[,!.:]?\s*", re.IGNORECASE
)
_TRAILING_ELLIPSIS = re.compile(r"(?:\.{2,}|…)+$")
_FIRST_STEP = re.compile(r"^(?:.*\b)?first(?:ly)?\b", re.IGNORECASE)
_STEP = re.compile(r"^(?:then|next|after that|afterwards|finally|lastly)\b", re.IGNORECASE)

SYSTEM = (
    "You extract long-term memories about the user from a conversation for a memory system. Keep only "
    "what stays useful across sessions: facts about the user, preferences, events in their life, plans and "
    "how they do things. Skip small talk, questions and what the assistant said unless the user confirmed "
    "it. Write each memory as one self-contained sentence about the user, in the language the user wrote "
    "in (a Chinese conversation gives Chinese memories), keeping names as written. Answer with one JSON "
    "object only."
)


class Message(BaseModel):
    role: Literal["user", "assistant", "system"]
    content: str


# The host route: store the user's own statements and hand the calling model an extraction task
# (services/traits/host_tasks.py, which applies its answer).
HandOut = Callable[[str, list[Message], str | None], Awaitable[IngestResult]]


def validate_messages(messages: list[Message]) -> list[Message]:
    if not messages:
        raise InvalidInput("messages", "must not be empty")
    if len(messages) > MAX_MESSAGES:
        raise InvalidInput("messages", f"{len(messages)} messages; the limit is {MAX_MESSAGES}")
    total = 0
    for i, m in enumerate(messages):
        if "\x00" in m.content:
            raise InvalidInput(f"messages[{i}].content", "contains a NUL byte (\\x00), which cannot be stored")
        total += len(m.content)
    if total > MAX_TOTAL_CHARS:
        raise InvalidInput("messages", f"{total:,} characters in all; the limit is {MAX_TOTAL_CHARS:,}")
    return messages


def extraction_prompt(messages: list[Message], today: str) -> Prompt:
    transcript = "\n".join(f"{m.role}: {quoted(m.content)}" for m in messages if m.content.strip())
    user = (
        f"Today is {today}.\n\n{DATA_NOTICE}\n\nConversation, one message a line:\n{transcript}\n\n"
        "Answer as JSON:\n"
        '{"memories": [{"content": "...", "kind": "fact|episodic|procedural", "importance": 1-10, '
        '"category": "work|location|skill|preference|workflow|health|relationship|general", '
        '"event_time": "ISO date or null", "temporality": "current|historical|prospective", '
        '"procedure_steps": ["...", "..."] or null}],\n'
        ' "summary": "one or two sentences on what the conversation was about"}'
    )
    return Prompt(SYSTEM, user, max_tokens=3000)


def _clean(sentence: str) -> str:
    """A sentence as a memory of its own: no leading filler or conjunction ("oh and I'm allergic…"
    → "I'm allergic…"), no trailing ellipsis, a capital first letter."""
    previous = None
    while previous != sentence:
        previous, sentence = sentence, _LEAD.sub("", sentence.strip()).strip()
    sentence = _TRAILING_ELLIPSIS.sub("", sentence).strip()
    return sentence[:1].upper() + sentence[1:]


def _sequences(parts: list[str]) -> list[str]:
    """Sentences with runs of sequence steps ("First I…", "Then I…", "Finally I…") joined into one
    statement, so that enrichment reads them as one procedure."""
    out: list[str] = []
    for part in parts:
        if out and _STEP.match(part) and not _FIRST_STEP.match(part) and _FIRST_STEP.search(out[-1]):
            out[-1] = f"{out[-1].rstrip('.;')}, {part[:1].lower()}{part[1:]}"
        else:
            out.append(part)
    return out


def _is_statement(lang: str, sentence: str) -> bool:
    """A first-person statement of three words or more, not a question."""
    if lang != ENGLISH:
        return languages.is_statement(lang, sentence)
    return len(sentence.split()) >= 3 and not sentence.endswith("?") and bool(_FIRST_PERSON.search(sentence))


def rule_statements(messages: list[Message]) -> list[str]:
    """The user's own statements (first-person sentences, not questions, and procedures told step by
    step), cleaned, in order, without repeats."""
    out: list[str] = []
    for m in messages:
        if m.role != "user":
            continue
        whole = detect(m.content)
        for sentence in _sequences([_clean(s) for s in sentences(m.content)]):
            # People switch languages mid-message; a short sentence reads as English when unsure.
            lang = detect(sentence)
            lang = whole if lang == ENGLISH else lang
            if sentence not in out and (procedure_steps(sentence, lang) or _is_statement(lang, sentence)):
                out.append(sentence[: inputs.MAX_CONTENT_CHARS])
    return out


class ConversationIngest:
    def __init__(self, runtime: Runtime, memories: MemoryWriter, links: MemoryLinks) -> None:
        self.rt = runtime
        self.memories = memories
        self.links = links

    def prompt(self, messages: list[Message]) -> Prompt:
        now = self.rt.clock()
        local = now.astimezone(self.rt.settings.tz) if self.rt.settings.tz else now.astimezone()
        return extraction_prompt(messages, local.strftime("%Y-%m-%d (%A)"))

    def sampling_prompt(self, messages: list[Message]) -> Prompt | None:
        """The extraction prompt for the client's model; None for messages the body will refuse."""
        try:
            validate_messages(messages)
        except InvalidInput:
            return None
        return self.prompt(messages)

    async def ingest_conversation(
        self,
        user_id: str,
        messages: list[Message],
        session_id: str | None,
        route: Route,
        sampled: str | None,
        host: HandOut,
    ) -> IngestResult:
        """Extract on `route` (services/prompting): the direct provider is asked here, the client's
        `sampled` answer was asked by the tool's resolver, and on the host route `host` stores the user's own
        statements and hands the calling model a task. Whatever model fails, the rules keep the conversation."""
        validate_messages(messages)
        if route.kind == "host":
            return await host(user_id, messages, session_id)
        if route.kind == "sampling":
            if sampled is None:  # the client did not answer: nobody extracted
                return await self.ingest(user_id, messages, session_id, None, "none")
            route = route.sampled([(self.prompt(messages), sampled)])
        extracted = await route.answer(self.prompt(messages), Extraction.lenient)
        return await self.ingest(user_id, messages, session_id, extracted, route.name)

    async def ingest(
        self, user_id: str, messages: list[Message], session_id: str | None, extracted: Extraction | None, llm_name: str
    ) -> IngestResult:
        """Store what a model extracted, or, with `extracted` None, the user's own statements (rules)."""
        validate_messages(messages)
        if extracted is None:
            return await self.store(
                user_id,
                [ExtractedMemory(content=c) for c in rule_statements(messages)],
                None,
                session_id,
                "rules",
                llm_name,
            )
        return await self.store(user_id, extracted.memories, extracted.summary, session_id, "llm", llm_name)

    async def store(
        self,
        user_id: str,
        items: list[ExtractedMemory],
        summary: str | None,
        session_id: str | None,
        method: Literal["llm", "rules"],
        llm_name: str,
        session: AsyncSession | None = None,
    ) -> IngestResult:
        """Each item through `remember` (validation, enrichment, dedup), then the summary, linked to them,
        all in one transaction (the caller's `session`, or one of its own): a conversation is stored whole
        or not at all, whatever interrupts it."""
        async with (await self.rt.database()).transaction(session) as s:
            return await self._store(s, user_id, items, summary, session_id, method, llm_name)

    async def _store(
        self,
        session: AsyncSession,
        user_id: str,
        items: list[ExtractedMemory],
        summary: str | None,
        session_id: str | None,
        method: Literal["llm", "rules"],
        llm_name: str,
    ) -> IngestResult:
        source = inputs.text_field("session_id", session_id, 200) if session_id else None
        created: list[str] = []
        duplicates: list[str] = []
        for item in items[:MAX_EXTRACTED]:
            steps = [x.strip()[:500] for x in item.procedure_steps or [] if x.strip()][:30]
            request = RememberRequest(**item.model_dump(exclude={"procedure_steps"}))
            request.procedure_steps = steps if len(steps) >= 2 else None
            try:
                result = await self.memories.remember(user_id, request, source=source, session=session)
            except InvalidInput:
                if request.event_time is None:
                    raise
                request.event_time = None  # a date the model wrote in a form we cannot read: keep the memory
                result = await self.memories.remember(user_id, request, source=source, session=session)
            (duplicates if result.status == "duplicate" else created).append(result.id)
        summary_id = None
        if summary and summary.strip() and "\x00" not in summary:
            text = "Conversation summary: " + " ".join(summary.split())[:1000]
            request = RememberRequest(content=text, kind="episodic", event_time=self.rt.clock().isoformat())
            result = await self.memories.remember(user_id, request, source=source, session=session)
            summary_id = result.id
            for memory_id in dict.fromkeys([*created, *duplicates]):
                if memory_id != summary_id:
                    await self.links.link(
                        user_id, summary_id, memory_id, SUMMARY_RELATION, created_by="ingest", session=session
                    )
        return IngestResult(created=created, duplicates=duplicates, summary_id=summary_id, method=method, llm=llm_name)
