"""The serialized names of fields renamed in code: a field renamed in Python keeps its old name
in JSON, so what is already recorded (Temporal histories, continue-as-new inputs, ledgers,
cassettes) reads, and is written byte for byte, as before.

A model with such a field takes `model_config = WIRE_NAMES` and declares it with
`renamed("new", old="old")`: code constructs and reads it by its new name; JSON carries the old
one, and either name reads. (Not `Field(alias=...)`: type checkers would then want the old name
in constructors.)
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, ConfigDict, Field

WIRE_NAMES = ConfigDict(serialize_by_alias=True)


def renamed(new: str, *, old: str, **field: Any) -> Any:
    """A field named `new` in code and `old` in JSON (`field`: the rest of its Field arguments)."""
    return Field(validation_alias=AliasChoices(old, new), serialization_alias=old, **field)
