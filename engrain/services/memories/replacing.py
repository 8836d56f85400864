"""A correction replaces a value, not a memory (issue 42).

"I live in Manchester with my partner Sam and our daughter Ada", then "We moved into our new house in
Bristol": the move replaces the home, not the partner and the daughter. Superseding the whole memory hid
them from recall and the profile. So where the old memory says more than its statement of the replaced key
(`reading/slots.says_more`), it stays live for the rest, loses the key and says what holds it now (recall
and the profile mark it "home replaced by …"); where it says nothing more ("I live in Berlin."), it is
superseded whole and kept as history, as before. Every route that replaces a memory comes here: a
correction said in passing, `remember(supersedes=…)`, a model's update in a reflection answer.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.duplicates import PARAPHRASE_THRESHOLD
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.slots import given_slot, says_more, single_valued, slot_of
from engrain.storage import memories as repo


async def replace(
    s: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, now: datetime, key: str | None = None
) -> None:
    """`new_id` replaces `old_id`: the value of `key` — where none is given, the key both hold — when the
    old memory says more than that value, else the whole memory (with its live near-paraphrases). A
    replacement that holds another key than the old memory (or none) replaces all of it: that is the
    caller's word on the whole memory."""
    old = await repo.get(s, user_id, old_id)
    held = key
    if held is None and old is not None and (own := MemoryMetadata.of(old.metadata_).slot) is not None:
        new = await repo.get(s, user_id, new_id)
        held = own if new is not None and own == MemoryMetadata.of(new.metadata_).slot else None
    if old is not None and held and single_valued(held) and says_more(old.content, old.lang, held):
        await repo.replace_value(s, user_id, old_id, new_id, held, now)
    else:
        await repo.supersede(s, user_id, old_id, new_id, now, PARAPHRASE_THRESHOLD)


async def give_key(s: AsyncSession, user_id: str, memory_id: uuid.UUID, key: str) -> None:
    """A model's key for a stored memory (a reflection's `keys`, an update's `key`): its value as
    `remember(key=…)` keeps it (`slots.given_slot`)."""
    memory = await repo.get(s, user_id, memory_id)
    if memory is not None:
        slot = given_slot(key, slot_of(memory.content, memory.lang), memory.content)
        await repo.set_slot(s, user_id, memory_id, key, slot.normalized)
