"""Published output schemas are pydantic's, spelled plainly (server/schemas.py): no references, and no type
written as a list of types (clients that map schemas onto one `type` a field reject those), accepting and
rejecting exactly what pydantic's schemas do."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema.validators import validator_for
from mcp.server.mcpserver import MCPServer

from engrain.server import schemas
from engrain.server.app import create_server
from tests.conftest import call

pytestmark = pytest.mark.anyio


def valid(schema: dict[str, Any], document: Any) -> bool:
    return validator_for(schema)(schema).is_valid(document)


def no_type_list(node: Any) -> bool:
    if isinstance(node, list):
        return all(no_type_list(item) for item in node)
    if not isinstance(node, dict):
        return True
    return not isinstance(node.get("type"), list) and all(no_type_list(value) for value in node.values())


def spelled_plainly(node: Any) -> bool:
    if isinstance(node, list):
        return all(spelled_plainly(item) for item in node)
    if not isinstance(node, dict):
        return True
    if "$ref" in node or "$defs" in node:
        return False
    return no_type_list(node) and all(spelled_plainly(value) for value in node.values())


def variants(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A real result, then ways to break it: a required field gone, wrong types, null where none is allowed."""
    out = [document]
    hit = document["results"][0]
    for key, value in (("score", "high"), ("event_time", 5), ("stage", 1), ("links", None), ("importance", None)):
        broken = copy.deepcopy(document)
        broken["results"][0][key] = value
        out.append(broken)
    gone = copy.deepcopy(document)
    del gone["results"][0]["breakdown"]["vector"]
    out.append(gone)
    nulls = copy.deepcopy(document)
    nulls["results"][0] |= {k: None for k in ("event_time", "stage", "category", "linked_from", "relation")}
    out.append(nulls)
    assert hit is document["results"][0]
    return out


async def test_the_published_schemas_accept_and_reject_what_pydantics_do(session):
    client, app = session
    await call(client, "remember", content="Caroline went to a support group on 7 May 2023", event_time="2023-05-07")
    await call(client, "remember", content="Caroline plans to adopt a dog")
    found = await call(client, "recall", query="When did Caroline go to the support group?", limit=20, explain=True)
    assert found["results"]
    published = {t.name: t.output_schema for t in (await client.list_tools()).tools}
    # The SDK's own schemas, from MCPServer's list_tools on a second server of the same app.
    original = {t.name: t.output_schema for t in await MCPServer.list_tools(create_server(app))}
    assert set(published) == set(original)
    for name, schema in published.items():
        assert schema is not None and spelled_plainly(schema), name
        assert schema == schemas.plain(original[name] or {})
    for tool in (await client.list_tools()).tools:  # what a client lints: no list of types in any schema
        assert no_type_list(tool.input_schema), tool.name
    recall_original, recall_published = original["recall"], published["recall"]
    assert recall_original is not None and recall_published is not None
    verdicts = [(valid(recall_original, d), valid(recall_published, d)) for d in variants(found)]
    assert verdicts[0] == (True, True) and verdicts[-1] == (True, True)
    assert all(a == b for a, b in verdicts), verdicts
    assert [a for a, _ in verdicts[1:-1]] == [False] * 6


def test_a_recursive_model_is_refused_rather_than_written_inline():
    schema = {"$defs": {"Node": {"properties": {"next": {"$ref": "#/$defs/Node"}}}}, "$ref": "#/$defs/Node"}
    with pytest.raises(ValueError, match="Node"):
        schemas.plain(schema)
