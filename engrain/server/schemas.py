"""Tool output schemas in the plainest equivalent form, because clients validate every result.

The MCP Python client checks each result's structuredContent against the tool's outputSchema with
`jsonschema`. Pydantic writes nested models as `$ref`s into `$defs`; jsonschema resolves every reference
for every hit, so the same constraints written with nested schemas inline are checked faster
(docs/performance.md). Nullable fields stay pydantic's `anyOf: [{type: X}, {type: null}]`: the shorter
`type: [X, "null"]` validated a little faster, but a type list is what clients that map tool schemas onto a
single-`type` dialect reject (MCP Inspector 2.12 warned 57 times on every `tools/list`).
The published schema means exactly what pydantic's does; only its spelling changes.
"""

from __future__ import annotations

from typing import Any, cast


def plain(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with `$ref`s to its own `$defs` written inline."""
    return _plain(schema, schema.get("$defs", {}), ())


def _plain(node: Any, defs: dict[str, Any], inlining: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_plain(item, defs, inlining) for item in cast(list[Any], node)]
    if not isinstance(node, dict):
        return node
    fields = cast(dict[str, Any], node)
    ref = fields.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in inlining:  # a recursive model cannot be written inline
            raise ValueError(f"output schema refers to {name} inside itself; it cannot be inlined")
        siblings = {k: v for k, v in fields.items() if k != "$ref"}
        return _plain(defs[name], defs, (*inlining, name)) | _plain(siblings, defs, inlining)
    return {key: _plain(value, defs, inlining) for key, value in fields.items() if key != "$defs"}
