"""bench/import_chats.py at a small size: the synthetic export's planted facts are recalled first with the
day they were said, and repeats across conversations are counted, not stored."""

from __future__ import annotations

import pytest

from bench.import_chats import run

pytestmark = pytest.mark.anyio


async def test_a_synthetic_history_comes_in_with_its_facts_and_days():
    out = await run(120, 10, "hash")
    assert out["messages"] == 120 * 10 * 2 and out["user_messages"] == 1200
    assert out["planted_found_first_with_their_day"] == "10/10"
    assert out["duplicates"] > 0 and 0 < out["memories_kept"] < out["user_messages"]
