"""ingest_conversation: turn a conversation into memories.

With a model: it extracts facts, episodes and procedures (with dates, importance,
category, steps) and a short summary, which is stored as an episodic memory linked to
everything extracted. Without one: the user's own first-person statements are kept,
sentence by sentence. Either way each memory goes through `remember`, so enrichment,
dedup and validation are the same as for a client's own calls.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, ClassVar, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput
from engrain.providers.llm import Prompt
from engrain.reading import inputs, languages
from engrain.reading.enrich import procedure_steps
from engrain.reading.frames import TASK_VERBS
from engrain.reading.mood import sentences
from engrain.reading.projects import Scope
from engrain.reading.redaction import redact
from engrain.reading.slots import slot_of
from engrain.services.memories.extraction import ExtractedMemory, Extraction
from engrain.services.memories.redacting import merged
from engrain.services.memories.requests import RememberRequest
from engrain.services.memories.results import IngestResult, RememberResult, Unsettled
from engrain.services.prompting.task_states import TaskState, task_state
from engrain.storage import memories as repo
from engrain.storage.profile import SUMMARY_PREFIX
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
    r"^(?:well|so|actually|oh|hey|hi|hello|yeah|yes|no|ok(?:ay)?|um+|uh+|hmm+|and|but|also|plus)\b[,!.:]?\s*",
    re.IGNORECASE,
)
# Replies to the other speaker, not statements about the user: agreement, sympathy, praise, a guess about
# them, small talk about how one is ("I totally agree, Melanie.", "I bet they bring lots of joy.").
_REPLY = re.compile(
    r"^I(?:'m|\s+am)\s+(?:so\s+|really\s+|very\s+|just\s+)?(?:glad|happy|sorry|proud|thrilled|excited)"
    r"(?!\s+(?:of|with|about|that)\s+(?:my|our)\b)(?!\s+to\s+(?:announce|share|say\s+that\s+I))"
    r"|^I(?:'m|\s+am)\s+(?:doing\s+)?(?:good|great|fine|well|ok|okay|alright)\b(?!\s+at\b)"
    r"|^I\s+(?:totally\s+|completely\s+|really\s+|so\s+|fully\s+|also\s+|just\s+)*(?:agree|bet|guess|"
    r"hear\s+you|feel\s+you|know\s+(?:what\s+you\s+mean|right|that\s+feeling)|get\s+(?:it|that|you)|"
    r"understand|can\s+(?:imagine|tell|see\s+(?:that|why|how))|can't\s+imagine|hope\s+(?:you|so|it|that\s+you)|"
    r"wish\s+you|(?:love|like)\s+(?:that|this|it|how\s+you)\b|think\s+(?:so|that's|it's|you)|admire|appreciate)"
    r"|^(?:thanks|thank\s+you)\b|,\s*[A-Z][a-z]+[.!]*$"
    # About the exchange itself ("That's not what I asked", "I'm not sure about that").
    r"|\bnot\s+(?:what|how)\s+I\s+(?:asked|meant|wanted)\b|^I(?:'m|\s+am)\s+not\s+sure\s+(?:about\s+)?(?:that|this|it)\b",
)
# A request to the assistant, in the imperative ("Explain quantum entanglement like I'm five", "Give me a
# plan", "Interesting, tell me more"): what the user asks for, not what they are (issue 43: chat exports).
_REQUEST = re.compile(rf"^(?:\w+,\s*)?(?:please\s+)?(?:{TASK_VERBS})\b", re.IGNORECASE)
_ADDRESSED = re.compile(r"\b(?:you|your|yours|you're|you've|you'll|you'd)\b", re.IGNORECASE)
_MINE = re.compile(r"\b(?:my|mine|our|ours)\b", re.IGNORECASE)
_FILLERS = re.compile(r"\byou\s+know\b,?|\byou\s+see\b,?", re.IGNORECASE)
_TRAILING_ELLIPSIS = re.compile(r"(?:\.{2,}|…)+$")
_FIRST_STEP = re.compile(r"^(?:.*\b)?first(?:ly)?\b", re.IGNORECASE)
_STEP = re.compile(r"^(?:then|next|after that|afterwards|finally|lastly)\b", re.IGNORECASE)

SYSTEM = (
    "You extract long-term memories about the user from a conversation for a memory system. Keep only "
    "what stays useful across sessions: facts about the user, preferences, events in their life, plans and "
    "how they do things. Skip small talk, questions and what the assistant said unless the user confirmed "
    "it. Write each memory as one self-contained sentence in the user's own voice, the first person ('I moved "
    "to Lisbon in June 2023', 'My sister Anna lives in Dublin'), in the language the user wrote in (a Chinese "
    "conversation gives Chinese memories), keeping names as written. Answer with one JSON object only."
)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt key ("saidat") is refused with its name, never dropped

    role: Literal["user", "assistant", "system"]
    content: str
    said_at: str | None = Field(
        default=None, description="When it was written (ISO); default: the conversation's said_at, else now."
    )


class IngestRequest(BaseModel):
    """One conversation to ingest. `said_at`: when it took place, for the messages without their own time."""

    messages: list[Message]
    session_id: str | None = None
    said_at: str | None = None


class QueuedPiece(BaseModel):
    """A piece of the user's imported history (services/memories/import_queue.py), by conversation and number."""

    source: str
    piece: int


@task_state
class ExtractTask(TaskState):
    """An extraction handed to the calling model: what its answer replaces and when its messages were told."""

    KIND: ClassVar[str] = "ingest"
    TOOL: ClassVar[str] = "ingest_conversation"
    WHAT: ClassVar[str] = "extract what this conversation says about the user, for their long-term memory."
    session_id: str | None = None
    provisional: list[uuid.UUID] = Field(default_factory=list[uuid.UUID])  # statements stored meanwhile
    said_at: datetime | None = None  # when the conversation ended (tasks stored before it was kept: none)
    told: list[datetime] = Field(default_factory=list[datetime])  # each message's told time, by number from 1
    queued: QueuedPiece | None = None  # the piece of imported history it reads, shown whole in the task


@dataclass(frozen=True)
class Conversation:
    """A checked request with each message's told time resolved (`told[i]` for `messages[i]`). `dated`:
    some time was given, so the model is shown the times and relative dates count from them."""

    request: IngestRequest
    told: list[datetime]
    dated: bool
    redacted: dict[str, int] | None = None  # secrets replaced in the messages before anything read them

    @property
    def messages(self) -> list[Message]:
        return self.request.messages

    @property
    def latest(self) -> datetime:
        """When the conversation ended: what its summary and undated extractions are told at."""
        return max(self.told)


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


def extraction_prompt(conversation: Conversation, tz: tzinfo | None) -> Prompt:
    """The conversation, each message with its time when times were given, and the answer's shape. Relative
    dates are the model's to resolve against the time of the message that says them."""

    def stamp(told: datetime) -> str:
        return (told.astimezone(tz) if tz else told.astimezone()).strftime("%Y-%m-%d %H:%M")

    lines = [
        (f"[{stamp(told)}] " if conversation.dated else "") + f"{m.role}: {quoted(m.content)}"
        for m, told in zip(conversation.messages, conversation.told, strict=True)
        if m.content.strip()
    ]
    latest = conversation.latest.astimezone(tz) if tz else conversation.latest.astimezone()
    when = (
        f"The conversation ended on {latest.strftime('%Y-%m-%d (%A)')}; each message shows when it was written. "
        "Read relative dates (yesterday, next Friday) against the time of the message that says them."
        if conversation.dated
        else f"Today is {latest.strftime('%Y-%m-%d (%A)')}."
    )
    said_at = ' "said_at": "the time of the message it comes from, as shown",' if conversation.dated else ""
    transcript = "\n".join(lines)
    user = f"{when}\n\n{DATA_NOTICE}\n\nConversation, one message a line:\n{transcript}\n\n{_answer_shape(said_at)}"
    return Prompt(SYSTEM, user, max_tokens=3000)


def _answer_shape(origin: str) -> str:
    """The JSON an extraction answers with; `origin` names the field that says which message an item is from."""
    return (
        "Answer as JSON:\n"
        '{"memories": [{"content": "...", "kind": "fact|episodic|procedural", "importance": 1-10, '
        '"category": "work|location|skill|preference|workflow|health|relationship|general", '
        '"event_time": "when it happened, only as precise as the words: 2023-05-07, 2023-05 (a month), 2023-W18 '
        '(a week), 2023 (a year), 2023-05-06..2023-05-07 (a span), or null", '
        f'"temporality": "current|historical|prospective",{origin} '
        '"key": "whose · what, when it states the one current value of something (user · phone, user · gym, '
        'Mei · due date), else null", "procedure_steps": ["...", "..."] or null}],\n'
        ' "summary": "one or two sentences on what the conversation was about"}'
    )


def _spans(numbers: list[int]) -> str:
    """1, 2, 3, 5, 7, 8 → "1–3, 5, 7–8"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def extraction_task_prompt(conversation: Conversation, tz: tzinfo | None) -> Prompt:
    """The extraction task for the calling model (the host route). It has just sent the conversation, so the
    task refers to its messages by number instead of echoing them: the model reads a few hundred characters,
    not the transcript again, and each memory names the message it comes from, which gives its told time."""

    def stamp(told: datetime) -> str:
        return (told.astimezone(tz) if tz else told.astimezone()).strftime("%Y-%m-%d %H:%M")

    n = len(conversation.messages)
    users = [i + 1 for i, m in enumerate(conversation.messages) if m.role == "user" and m.content.strip()]
    latest = conversation.latest.astimezone(tz) if tz else conversation.latest.astimezone()
    lines = [
        f"The conversation is the {n} message{'' if n == 1 else 's'} you sent to ingest_conversation, numbered "
        f"1–{n} in the order sent; the user's are {_spans(users) or 'none'}. Extract from your copy of it."
    ]
    if conversation.dated:
        times: list[tuple[str, list[int]]] = []
        for i, told in enumerate(conversation.told):
            if times and times[-1][0] == stamp(told):
                times[-1][1].append(i + 1)
            else:
                times.append((stamp(told), [i + 1]))
        lines.append(
            "When each was written: "
            + "; ".join(f"{_spans(numbers)}: {at}" for at, numbers in times)
            + ". Read relative dates (yesterday, next Friday) against the time of the message that says them."
        )
    else:
        lines.append(f"Today is {latest.strftime('%Y-%m-%d (%A)')}.")
    origin = ' "message": the number of the message it comes from,'
    return Prompt(SYSTEM, "\n".join(lines) + "\n\n" + _answer_shape(origin), max_tokens=3000)


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
    """A first-person statement of three words or more about the user: not a question, not a reply to the
    other speaker (a statement that fills a slot is about the user whoever it is said to)."""
    if lang != ENGLISH:
        statement = languages.is_statement(lang, sentence)
        return statement and (slot_of(sentence, lang) is not None or not languages.is_reply(lang, sentence))
    if len(sentence.split()) < 3 or sentence.endswith("?") or _REQUEST.match(sentence):
        return False
    if slot_of(sentence) is not None:  # also where chat leaves the "I" out ("switched gyms to The Gym Group")
        return True
    if not _FIRST_PERSON.search(sentence):
        return False
    plain = _FILLERS.sub("", sentence)
    return not _REPLY.search(plain) and not (_ADDRESSED.search(plain) and not _MINE.search(plain))


def rule_statements(messages: list[Message]) -> list[tuple[str, int]]:
    """The user's own statements (first-person sentences, not questions, and procedures told step by
    step), cleaned, in order, without repeats, each with the index of its message."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    for i, m in enumerate(messages):
        if m.role != "user":
            continue
        whole = detect(m.content)
        for sentence in _sequences([_clean(s) for s in sentences(m.content)]):
            # People switch languages mid-message; a short sentence reads as English when unsure, so it takes
            # the message's language — a sentence of four words or more is read in its own.
            lang = detect(sentence)
            lang = whole if lang == ENGLISH and len(sentence.split()) < 4 else lang
            if sentence not in seen and (procedure_steps(sentence, lang) or _is_statement(lang, sentence)):
                seen.add(sentence)
                out.append((sentence[: inputs.MAX_CONTENT_CHARS], i))
    return out


def assistant_replies(conversation: Conversation) -> list[RememberRequest]:
    """What the assistant said, each message kept whole (to the longest memory) as a reply told at its time:
    found when the user asks what was recommended or written (reading/speakers.py), never the user's own."""
    return [
        RememberRequest(
            content=m.content.strip()[: inputs.MAX_CONTENT_CHARS], role="assistant", said_at=told.isoformat()
        )
        for m, told in zip(conversation.messages, conversation.told, strict=True)
        if m.role == "assistant" and m.content.strip()
    ]


class ConversationIngest:
    def __init__(self, runtime: Runtime, memories: MemoryWriter, links: MemoryLinks) -> None:
        self.rt = runtime
        self.memories = memories
        self.links = links

    def read(self, request: IngestRequest) -> Conversation:
        """Check the messages, replace the secrets in them (before any model or rule reads them), and resolve
        each one's told time: its own `said_at`, else the conversation's, else now (every one of them named in
        an error, and none in the future). CPU work that grows with the conversation: call it off the loop."""
        validate_messages(request.messages)
        request, redacted = self._redacted(request)
        now, tz = self.rt.clock(), self.rt.settings.tz
        session = inputs.said_at("said_at", request.said_at, now, tz) if request.said_at else now
        told = [
            inputs.said_at(f"messages[{i}].said_at", m.said_at, now, tz) if m.said_at else session
            for i, m in enumerate(request.messages)
        ]
        dated = request.said_at is not None or any(m.said_at for m in request.messages)
        return Conversation(request, told, dated, redacted)

    def _redacted(self, request: IngestRequest) -> tuple[IngestRequest, dict[str, int] | None]:
        mode = self.rt.settings.redact
        kinds: Counter[str] = Counter()
        messages: list[Message] = []
        for m in request.messages:
            done = redact(m.content, mode)
            kinds.update(done.kinds)
            messages.append(m.model_copy(update={"content": done.text}) if done.kinds else m)
        if not kinds:
            return request, None
        return request.model_copy(update={"messages": messages}), dict(sorted(kinds.items()))

    def prompt(self, conversation: Conversation) -> Prompt:
        return extraction_prompt(conversation, self.rt.settings.tz)

    def task_prompt(self, conversation: Conversation) -> Prompt:
        return extraction_task_prompt(conversation, self.rt.settings.tz)

    def sampling_prompt(self, request: IngestRequest) -> Prompt | None:
        """The extraction prompt for the client's model; None for a request the body will refuse."""
        try:
            return self.prompt(self.read(request))
        except InvalidInput:
            return None

    async def ingest_conversation(
        self, user_id: str, request: IngestRequest, route: Route, sampled: str | None
    ) -> IngestResult:
        """Extract on `route` (services/prompting): the direct provider is asked here, the client's `sampled`
        answer was asked by the tool's resolver (the host route, where the calling model answers in a later
        call, is services/traits/host_tasks.HostTasks.extract). Whatever model fails, the rules keep the
        conversation."""
        conversation = await anyio.to_thread.run_sync(self.read, request)
        prompt = self.prompt(conversation)
        if route.kind == "sampling":
            if sampled is None:  # the client did not answer: nobody extracted
                return await self.ingest(user_id, conversation, None, "none")
            route = route.sampled([(prompt, sampled)])
        extracted = await route.answer(prompt, Extraction.lenient)
        return await self.ingest(user_id, conversation, extracted, route.name)

    async def ingest(
        self, user_id: str, conversation: Conversation, extracted: Extraction | None, llm_name: str
    ) -> IngestResult:
        """Store what a model extracted, or, with `extracted` None, the user's own statements (rules), each
        told at the time of its message."""
        session_id = conversation.request.session_id
        replies = assistant_replies(conversation)
        if extracted is None:
            # Reading every message's sentences is CPU work that grows with the conversation: off the event loop.
            kept = await anyio.to_thread.run_sync(rule_statements, conversation.messages)
            statements = [ExtractedMemory(content=text, said_at=conversation.told[i].isoformat()) for text, i in kept]
            result = await self.store(
                user_id, statements, None, session_id, "rules", llm_name, conversation.latest, replies=replies
            )
        else:
            result = await self.store(
                user_id,
                extracted.memories,
                extracted.summary,
                session_id,
                "llm",
                llm_name,
                conversation.latest,
                replies=replies,
            )
        result.redacted = merged(conversation.redacted, result.redacted)
        return result

    async def store_in_place_of(
        self,
        s: AsyncSession,
        user_id: str,
        provisional: list[uuid.UUID],
        extraction: Extraction,
        session_id: str | None,
        llm_name: str,
        told: datetime,
        scope: Scope | None = None,
    ) -> IngestResult:
        """A model's extraction stored in the caller's transaction in place of the rules' statements kept until it
        came (`provisional`): those are erased, except the ones a reflection cited meanwhile — ended instead, so
        that the trait keeps what it rests on (an imported conversation may wait weeks for its extraction while
        reflections go on). `scope`: each item's namespace (a coding session's project: reading/projects.py)."""
        if provisional:
            now = self.rt.clock()
            reason = repo.REPLACED_BY_EXTRACTION
            uncited = await repo.retire_uncited(s, user_id, provisional, now, reason)
            await repo.reinstate_superseded(s, user_id, uncited, now)  # the user's older words are not the rules'
            await repo.erase_ids(s, user_id, uncited, now, reason)
        return await self.store(
            user_id, extraction.memories, extraction.summary, session_id, "llm", llm_name, told, s, scope=scope
        )

    async def store(
        self,
        user_id: str,
        items: list[ExtractedMemory],
        summary: str | None,
        session_id: str | None,
        method: Literal["llm", "rules"],
        llm_name: str,
        told: datetime,
        session: AsyncSession | None = None,
        replies: list[RememberRequest] | None = None,
        scope: Scope | None = None,
    ) -> IngestResult:
        """Each item through `remember` (validation, enrichment, dedup), then the summary, linked to them, and
        the assistant's `replies`, all in one transaction (the caller's `session`, or one of its own): a
        conversation is stored whole or not at all, whatever interrupts it. `told`: when the conversation ended,
        the told time of the summary and of items that name none."""
        async with (await self.rt.database()).transaction(session) as s:
            source = inputs.text_field("session_id", session_id, 200) if session_id else None
            created: list[str] = []
            duplicates: list[str] = []
            redacted: list[dict[str, int] | None] = []
            unsettled: list[Unsettled] = []
            for item in items[:MAX_EXTRACTED]:
                steps = [x.strip()[:500] for x in item.procedure_steps or [] if x.strip()][:30]
                request = RememberRequest(**item.model_dump(exclude={"procedure_steps", "message"}))
                # `"event_time": null` written out: the model read the text and found no date; it wins.
                request.undated = "event_time" in item.model_fields_set and item.event_time is None
                request.procedure_steps = steps if len(steps) >= 2 else None
                request.said_at = request.said_at or told.isoformat()
                request.namespace = scope(request.content) if scope is not None else None
                result = await self._remember_leniently(user_id, request, source, s, told)
                # A merge into a memory told before created nothing: the rules' statements an extraction later
                # erases (`provisional`) must never include the user's earlier memory.
                (created if result.status == "created" else duplicates).append(result.id)
                redacted.append(result.redacted)
                if result.may_replace is not None:  # the rules could not settle it: the calling model may
                    words = result.content or request.content
                    unsettled.append(Unsettled(id=result.id, content=words, may_replace=result.may_replace))
            summary_id = None
            if summary and summary.strip() and "\x00" not in summary:
                text = SUMMARY_PREFIX + " ".join(summary.split())[:1000]
                # Dated by its sources: the conversation's end, never the moment it was digested.
                request = RememberRequest(
                    content=text,
                    kind="episodic",
                    event_time=told.isoformat(),
                    said_at=told.isoformat(),
                    retold=True,
                    namespace=scope(text) if scope is not None else None,
                )
                result = await self.memories.remember(user_id, request, source=source, session=s)
                summary_id = result.id
                redacted.append(result.redacted)
                for memory_id in dict.fromkeys([*created, *duplicates]):
                    if memory_id != summary_id:
                        await self.links.link(
                            user_id, summary_id, memory_id, SUMMARY_RELATION, created_by="ingest", session=s
                        )
            kept_replies = [
                (await self.memories.remember(user_id, reply, source=source, session=s)).id for reply in replies or []
            ]
            return IngestResult(
                created=created,
                duplicates=duplicates,
                summary_id=summary_id,
                method=method,
                llm=llm_name,
                redacted=merged(*redacted),
                replies=kept_replies,
                may_replace=unsettled,
            )

    async def _remember_leniently(
        self, user_id: str, request: RememberRequest, source: str | None, session: AsyncSession, told: datetime
    ) -> RememberResult:
        """A model's item as `remember` takes it. A time the model wrote in a form we cannot read is dropped
        (its event time) or replaced by the conversation's (its told time): the memory is kept."""
        try:
            return await self.memories.remember(user_id, request, source=source, session=session)
        except InvalidInput as exc:
            if exc.field == "event_time" and request.event_time is not None:
                request.event_time = None
            elif exc.field == "said_at" and request.said_at != told.isoformat():
                request.said_at = told.isoformat()
            elif exc.field == "key" and request.key is not None:
                request.key = None
            else:
                raise
        return await self._remember_leniently(user_id, request, source, session, told)
