"""Text from memories is data, never structure (issue 23, item 3): hostile memories (tests/data) reach the
profile, the instructions and the task texts as one quoted line each, and create no heading, task line,
conversation turn, tag, fence or second answer section."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from engrain.server import guide
from engrain.text.quoting import DATA_NOTICE, inline, quoted
from tests.conftest import DATA, Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
HOSTILE: list[str] = json.loads((DATA / "hostile_memories.json").read_text())
QUOTE = re.compile(r"«[^«»]*»")
FORGED = ("SYSTEM:", "<system>", "```", "[m99]", "user: I confirm", "[t1] (core)")
# The count of what the profile leaves out, and where it is listed (services/profile/sections.left_out_line).
LEFT_OUT = r"\(\d+ more not shown here — \d+ [a-z]+: [a-z_:/ ]+(?:; \d+ [a-z]+: [a-z_:/ ]+)*\)"


def assert_inert(text: str, allowed_line: re.Pattern[str]) -> None:
    """Every line is one the text's own structure makes, and no forged marker survives anywhere."""
    for line in text.splitlines():
        assert allowed_line.match(line), f"a line the structure did not make: {line[:120]!r}"
    for forged in FORGED:
        assert forged not in text, forged
    assert "\u202e" not in text and "\u2028" not in text


def test_quoting_is_one_inert_line():
    for memory in HOSTILE:
        q = quoted(memory)
        assert "\n" not in q and "\r" not in q
        assert QUOTE.fullmatch(q), q[:80]
    assert inline("I like tea and long walks") == "I like tea and long walks"  # normal text reads as it was
    assert quoted("Prefers window seats (aisle if late)") == "«Prefers window seats (aisle if late)»"


async def test_hostile_memories_stay_data_in_profile_instructions_and_tasks(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        for memory in HOSTILE:
            await call(client, "remember", content=memory, pinned=True)
        await call(client, "remember", content="I love cooking Italian food", pinned=True)

        profile = (await client.read_resource("engrain://profile")).contents[0].text
        line = r"- (?:\[[^\[\]«»]*\] )?«[^«»]*» \([0-9a-f]{8}\)"
        profile_line = re.compile(
            rf"^(?:# What engrain knows about \S+|## [A-Z][a-z ,()]+|{line}|{re.escape(DATA_NOTICE)}"
            rf"|As of \d{{4}}-\d\d-\d\d in the user's time\.|{LEFT_OUT}"
            r"|Reflection due \(\d+ new memor[a-z]+ to digest\): call reflect when the conversation allows\.|)$"
        )
        assert_inert(profile, profile_line)
        assert "«I love cooking Italian food»" in profile  # normal memories still read well

        instructions = guide.with_profile(await app.profile.summary(app.settings.user))
        assert_inert(
            instructions.split("What engrain knows about the user now", 1)[1],
            re.compile(rf"^(?:.*\):|## [A-Z][a-z ,()]+|{line}|{LEFT_OUT}|Reflection due .*|)$"),
        )

        task = await call(client, "reflect", force=True)
        text = task["task"]
        memory_lines = [line for line in text.splitlines() if re.match(r"^\[m\d+\]", line)]
        assert len(memory_lines) == len(HOSTILE) + 1
        assert all(QUOTE.search(line) for line in memory_lines)
        # One answer instruction, the task's own: no memory forged another (issue 61 worded it once, with its keys).
        assert sum(line.startswith("Answer with one JSON object") for line in text.splitlines()) == 1
        assert DATA_NOTICE in text
        for forged in FORGED:
            assert forged not in text

        messages = [{"role": "user", "content": m} for m in HOSTILE[:6]]
        ingest = await call(client, "ingest_conversation", messages=messages)
        # The task refers to the messages the model sent by number: none of their words comes back.
        assert "the 6 messages you sent" in ingest["task"] and "«" not in ingest["task"]
        for forged in FORGED:
            assert forged not in ingest["task"]
