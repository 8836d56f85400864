"""Tool output schemas in the plainest equivalent form, because clients validate every result.

The MCP Python client checks each result's structuredContent against the tool's outputSchema with
`jsonschema`. Pydantic writes nested models as `$ref`s into `$defs` and optional fields as
`anyOf: [{type: X}, {type: null}]`; jsonschema resolves every reference and builds a sub-validator
for every `anyOf` branch of every hit, a third of a 20-hit recall's check. The same constraints written
with nested schemas inline and `type: [X, "null"]` are checked faster (docs/performance.md).
The published schema means exactly what pydantic's does; only its spelling changes.
"""

from __future__ import annotations

from typing import Any, cast

NULL = {"type": "null"}
# Keywords that constrain only values of their own type (or only annotate): a null passes them, so
# `anyOf: [{type: X, <these>}, {type: null}]` says the same as `{type: [X, "null"], <these>}`. (`enum`
# and `const` are not among them: they would refuse the null.)
TYPE_SPECIFIC = frozenset(
    {
        "type",
        "format",
        "items",
        "properties",
        "required",
        "additionalProperties",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "title",
        "description",
    }
)


def plain(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with `$ref`s to its own `$defs` written inline and nullable types as type lists."""
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
    out: dict[str, Any] = {key: _plain(value, defs, inlining) for key, value in fields.items() if key != "$defs"}
    branches = out.get("anyOf")
    if isinstance(branches, list) and len(cast(list[Any], branches)) == 2 and NULL in branches:
        options = cast(list[dict[str, Any]], branches)
        other = options[1 - options.index(NULL)]
        if isinstance(other.get("type"), str) and set(other) <= TYPE_SPECIFIC and not set(other) & set(out) - {"anyOf"}:
            del out["anyOf"]
            out |= other | {"type": [other["type"], "null"]}
    return out
