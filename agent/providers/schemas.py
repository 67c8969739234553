"""JSON schemas of the answers a model may give, built from the contracts and the tool registry.

Two dialects of one shape:

    strict=True   OpenAI's strict structured outputs (`response_format` type `json_schema`): every
                  object lists all its properties as required and sets `additionalProperties:
                  false`; an optional field becomes nullable instead; only the documented keywords
                  stay (no `default`, `title`, `minLength`, `maxLength`; `pattern`, numeric bounds
                  and `minItems`/`maxItems` are supported). The root is an object, never `anyOf`.
    strict=False  llama.cpp's `json_object` with a schema, which it compiles into a grammar: the
                  same shapes, optional tool arguments left optional, and no length bounds (a
                  `maxLength` of 5000 unrolls into a grammar of 5000 rules).

A proposal is `{"action": ...}`, the action one of: a tool call per registered tool (its name a
constant, its arguments that tool's own schema), `finish`, or `give_up`. The wrapper is what
lets the strict dialect have an object at its root; both dialects use it so the model sees one
format, whatever the server.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, JsonValue

from contracts import ActionProposal, GoalInterpretation, Subtask, ToolSpec

Schema = dict[str, Any]

ANSWER_KEY = "action"
DRAFT_TASK_FIELDS = ("id", "title", "instructions", "depends_on")

_COMMON = {"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const"}
_KEPT = {
    True: _COMMON
    | {"description", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum"}
    | {"exclusiveMaximum", "minItems", "maxItems"},
    False: _COMMON | {"description", "pattern", "minItems", "maxItems"},
}
_STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}


def proposal_schema(tools: list[ToolSpec], *, strict: bool) -> Schema:
    thought = _field(ActionProposal, "thought", strict)
    # Each alternative opens with a key whose constant tells it apart from the others (the
    # tool's name, or the kind): OpenAI refuses `anyOf` objects whose first keys are identical.
    calls = [
        _object(
            {
                "tool": {"type": "string", "const": tool.name},
                "kind": {"type": "string", "const": "tool_call"},
                "thought": thought,
                "arguments": clean(tool.parameters, strict=strict),
            }
        )
        for tool in tools
    ]
    endings = [
        _object({"kind": {"type": "string", "const": kind}, "thought": thought}) for kind in ("finish", "give_up")
    ]
    return _object({ANSWER_KEY: {"anyOf": [*calls, *endings]}})


def plan_schema(*, strict: bool) -> Schema:
    """Tasks without postconditions: code attaches those, the model never decides them."""
    task = _object({name: _field(Subtask, name, strict) for name in DRAFT_TASK_FIELDS})
    return _object({"tasks": {"type": "array", "items": task, "minItems": 1}})


def goal_schema(*, strict: bool) -> Schema:
    fields = GoalInterpretation.model_fields
    return _object({name: _field(GoalInterpretation, name, strict) for name in fields})


def response_format(name: str, schema: Schema, *, strict: bool) -> dict[str, JsonValue]:
    if strict:
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    return {"type": "json_object", "schema": schema}


def clean(schema: Schema, *, strict: bool) -> Schema:
    """A schema in the dialect: refs inlined, unsupported keywords dropped, objects closed; in
    the strict dialect every property required, the optional ones nullable."""
    return _clean(schema, strict=strict, defs=schema.get("$defs", {}))


def drop_omitted(arguments: dict[str, JsonValue], parameters: Schema) -> dict[str, JsonValue]:
    """Tool arguments without the nulls the strict dialect makes a model write for optional
    fields it means to leave out, so the tool's own defaults apply."""
    required = set(parameters.get("required", []))
    return {key: value for key, value in arguments.items() if value is not None or key in required}


def _field(model: type[BaseModel], name: str, strict: bool) -> Schema:
    return clean(_model_schema(model)["properties"][name], strict=strict)


@functools.cache
def _model_schema(model: type[BaseModel]) -> Schema:
    return model.model_json_schema()  # built once per contract: it costs about 0.2 ms


def _object(properties: dict[str, Schema]) -> Schema:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _clean(schema: Schema, *, strict: bool, defs: dict[str, Schema], depth: int = 0) -> Schema:
    if depth > 32:
        raise ValueError("schema nests deeper than 32 levels (a recursive $ref?)")
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved = {**defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in schema.items() if k != "$ref"}}
        return _clean(resolved, strict=strict, defs=defs, depth=depth + 1)
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        merged = {**schema["allOf"][0], **{k: v for k, v in schema.items() if k != "allOf"}}
        return _clean(merged, strict=strict, defs=defs, depth=depth + 1)
    out: Schema = {}
    for key, value in schema.items():
        if key not in _KEPT[strict] or (key == "format" and value not in _STRICT_FORMATS):
            continue
        if key == "properties":
            out[key] = {name: _clean(sub, strict=strict, defs=defs, depth=depth + 1) for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = _clean(value, strict=strict, defs=defs, depth=depth + 1)
        elif key == "anyOf":
            out[key] = [_clean(sub, strict=strict, defs=defs, depth=depth + 1) for sub in value]
        else:
            out[key] = value
    if "properties" in out:
        out["type"] = "object"
        out["additionalProperties"] = False
        if strict:
            required = set(out.get("required", []))
            out["properties"] = {
                name: sub if name in required else _nullable(sub) for name, sub in out["properties"].items()
            }
            out["required"] = list(out["properties"])
    return out


def _nullable(schema: Schema) -> Schema:
    variants = schema.get("anyOf", [schema])
    if any(variant.get("type") == "null" for variant in variants):
        return schema
    described = {"description": schema["description"]} if "description" in schema else {}
    inner = {key: value for key, value in schema.items() if key != "description"}
    return {"anyOf": [inner, {"type": "null"}], **described}
