"""A user's quota holds however many clients write at once, and a user sees no other user's data in
any resource — engrain://status included."""

from __future__ import annotations

import json
import uuid

import anyio
import pytest

from tests.conftest import call, connect, scalar

pytestmark = pytest.mark.anyio


async def test_quota_holds_under_concurrent_clients(settings_factory):
    settings = settings_factory(max_memories_per_user=50)
    outcomes: list[str] = []
    async with (
        connect(settings) as (a, app),
        connect(settings) as (b, _),
        connect(settings) as (c, _),
        connect(settings) as (d, _),
    ):

        async def writer(client, name: str) -> None:
            for _ in range(30):
                note = f"Client {name} keeps note {uuid.uuid4().hex}"  # distinct facts: none merges
                result = await client.call_tool("remember", {"content": note})
                outcomes.append(
                    "quota"
                    if result.is_error and "quota" in result.content[0].text
                    else "error"
                    if result.is_error
                    else result.structured_content["status"]
                )

        async with anyio.create_task_group() as tg:
            for name, client in zip("abcd", (a, b, c, d), strict=True):
                tg.start_soon(writer, client, name)
        live = await scalar(
            app, "SELECT count(*) FROM memories WHERE user_id = :u AND valid_until IS NULL", u=settings.user
        )
    assert live == 50
    assert outcomes.count("created") == 50 and outcomes.count("quota") == 70 and "error" not in outcomes


async def test_status_shows_no_other_users_ids_or_counts(settings_factory):
    alice_settings = settings_factory(user="alice-status-probe", scheduler="on", scheduler_interval=3600)
    async with connect(alice_settings) as (alice, _):
        await call(alice, "remember", content="Alice keeps a private diary")
    # Alice's session ended: her digest ran and was recorded under her user id.
    async with connect(settings_factory(user="bob-status-probe")) as (bob, bob_app):
        assert await scalar(bob_app, "SELECT count(*) FROM job_runs WHERE user_id = 'alice-status-probe'") >= 1
        text = (await bob.read_resource("engrain://status")).contents[0].text
        status = json.loads(text)
        assert "alice-status-probe" not in text
        digest = status["scheduler"]["jobs"]["digest"]["last_any_run"]
        assert digest["status"] == "completed" and "user_id" not in digest
        assert all(not isinstance(v, int | list) for v in digest["stats"].values())
        operator = await bob_app.scheduler.status()  # `engrain status` on the machine sees everything
        assert operator["jobs"]["digest"]["last_any_run"]["user_id"] is not None
