"""What the file tools' argument models share: no unknown fields, and an optional line number
a small model can read."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


# An optional line number, shown to a model as a plain integer: a small model's prompt has no
# room for an Optional's `anyOf` and its null default. Fields a name explains go undescribed
# (every prompt lists every tool's schema).
OptionalLine = Annotated[
    Annotated[int, Field(ge=1)] | None, WithJsonSchema({"type": "integer"}), Field(json_schema_extra=_no_default)
]


class ToolArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
