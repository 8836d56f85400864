"""The code-only passes a reflection cycle and the scheduler's `expiry` job both run, in one order: past plans
become history, trends reinforced enough inside their window become candidates, the others dissolve when the
window has passed (storage/traits.py holds each pass's statement)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage import traits as trait_repo

# (the count's name, the name its dry-run sample goes under, the pass)
PASSES = (
    ("expired_intentions", "intentions", trait_repo.expire_prospective),
    ("promoted", "trend_promotion", trait_repo.promote_trends),
    ("expired_trends", "trend_expiry", trait_repo.expire_trends),
)


async def run_passes(s: AsyncSession, user_id: str | None, now: datetime, *, samples: bool = False) -> dict[str, Any]:
    """Each pass over one user (None: every user) in the caller's transaction: how many rows each changed, and
    with `samples` what a dry run shows of them (`<name>_sample`)."""
    out: dict[str, Any] = {}
    for counted_as, sampled_as, step in PASSES:
        result = await step(s, user_id, now)
        out[counted_as] = result["changed"]
        if samples:
            out[f"{sampled_as}_sample"] = result["sample"]
    return out
