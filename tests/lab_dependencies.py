"""The Dependencies a test hands the core, as a worker hands its own to its activities: the
session's data directory (tests/conftest.py points AGENT_LAB_DATA at it), the rest from the
test's environment, and whatever the test changes."""

from __future__ import annotations

import dataclasses

from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment


def lab_deps(**changes: object) -> Dependencies:
    return dataclasses.replace(from_environment(), **changes)  # type: ignore[arg-type]
