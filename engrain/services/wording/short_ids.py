"""Memory ids as a model gives them back: a whole UUID, or the short prefix the texts show.

The texts a model reads show each memory's first characters (`reading.inputs.short_id`), not its whole
UUID: over a third of a recall's text was ids. Every tool and resource that takes an id accepts such a
prefix and resolves it here among the caller's own memories; one that starts two ids is refused with
both shown longer, so the model can give more of it.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.storage import memories as repo


async def resolve(session: AsyncSession, user_id: str, field: str, value: object) -> uuid.UUID:
    """The id of the user's memory that `value` names (a whole id is returned as it is: whether it exists
    is the caller's check, as for any id)."""
    ref = inputs.memory_ref(field, value)
    if isinstance(ref, uuid.UUID):
        return ref
    found = await repo.ids_with_prefix(session, user_id, ref)
    if not found:
        raise NotFound(field, value)
    if len(found) > 1:
        longer = " and ".join(str(f)[:13] for f in found)
        raise InvalidInput(field, f"{value!r} starts more than one memory id ({longer}…): give more of it")
    return found[0]
