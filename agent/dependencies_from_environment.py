"""A worker's Dependencies, from its environment: the one core module that reads it (an
import-linter contract keeps `settings` out of the rest of `agent`).

AGENT_LAB_DATA        the data directory (default: `data/` in the checkout)
AGENT_LAB_OPS_URL     the operations service
AGENT_LAB_SANDBOX     the sandbox backend (default `auto`)
AGENT_LAB_FAULT_PLAN  a fault plan to act out
AGENT_LAB_DOCKER_IMAGE  the Docker sandbox's image
*KEY                  API keys, by the name a provider's config gives (`api_key_env`)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import settings
from agent.dependencies import Dependencies
from agent.faults import FAULT_PLAN_ENV


def from_environment(env: Mapping[str, str] = os.environ) -> Dependencies:
    # Through settings, so the data directory and the service URL mean the same here as in
    # every other command that reads them.
    fault_plan = env.get(FAULT_PLAN_ENV)
    return Dependencies(
        data_dir=settings.data_dir(env),
        ops_url=settings.ops_url(env),
        sandbox=env.get("AGENT_LAB_SANDBOX") or "auto",
        fault_plan=Path(fault_plan) if fault_plan else None,
        # Only what names a key: the object is handed around, the environment holds more.
        api_keys=MappingProxyType({name: value for name, value in env.items() if name.endswith("KEY") and value}),
        docker_image=env.get("AGENT_LAB_DOCKER_IMAGE") or None,
    )
