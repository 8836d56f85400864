"""bench/profile_picture.py (issue 42's done-when): the fifteen-fact person told through MCP as a calling
model tells it leaves ≥ 14 of 15 facts on the profile's fact lines and no replaced value unmarked; told with
no model at all, the rules keep a floor of what they measured (10 of 15)."""

from __future__ import annotations

import pytest

from bench.profile_picture import measure
from engrain.services.profile.sections import PROFILE_TOKENS

pytestmark = pytest.mark.anyio


async def test_the_profile_holds_the_persons_current_facts_and_no_stale_value():
    out = (await measure(("host", "rules")))["routes"]
    host, rules = out["host"], out["rules"]
    assert host["current"] >= 14 and host["stale_shown"] == [], host
    assert host["tokens"] <= PROFILE_TOKENS
    assert rules["current"] >= 10, rules
