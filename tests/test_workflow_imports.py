"""What workflow code may touch: contracts, the few pure helpers of the core it decides with,
Temporal's SDK. It calls activities by name and loads neither them nor the sandbox, the command
policy, git or a database (the import-linter contract in pyproject.toml says so for every
import; this checks what a fresh interpreter actually loads)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from temporalio import activity

from activities.registered import all_activities
from agent.tools.registry import READ_ONLY_TOOLS as REGISTRY_READ_ONLY
from agent.tools.registry import TOOLS
from contracts import RiskLevel
from contracts.activity_names import SCHEDULED
from contracts.tools import READ_ONLY_TOOLS, TOOL_FACTS
from tests.lab_dependencies import lab_deps

ROOT = Path(__file__).resolve().parent.parent
# The core's modules workflow code imports: each imports only contracts.
PURE_CORE = {
    "agent",
    "agent.budget",
    "agent.earlier_effects",
    "agent.executed_calls",
    "agent.feedback",
    "agent.step_log",
}

_LOADED = """
import json, sys
from pathlib import Path
import workflows.agent_run
root = Path.cwd().resolve()
mine = [
    name for name, module in sys.modules.items()
    if getattr(module, "__file__", None) and Path(module.__file__).resolve().is_relative_to(root)
    and ".venv" not in Path(module.__file__).parts
]
print(json.dumps({"project": sorted(mine), "all": sorted(sys.modules)}))
"""


def _loaded_by_importing_the_workflow() -> tuple[list[str], set[str]]:
    done = subprocess.run([sys.executable, "-c", _LOADED], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    return loaded["project"], set(loaded["all"])


def test_importing_the_workflow_loads_no_sandbox_policy_git_or_database() -> None:
    project, everything = _loaded_by_importing_the_workflow()
    assert not {"agent.sandbox", "agent.policy", "agent.execution", "git", "sqlite3", "activities"} & everything
    assert "settings" not in everything
    # Only the workflow package, the contracts and the pure part of the core (47 modules, where
    # importing the activities loaded 196).
    outside = [name for name in project if name.split(".")[0] not in ("workflows", "contracts")]
    assert set(outside) <= PURE_CORE, outside
    assert len(project) < 60


def test_the_tool_facts_agree_with_the_registry() -> None:
    """Workflow code decides on `contracts.tools`; the tools themselves are the registry's."""
    assert set(TOOL_FACTS) == set(TOOLS)
    assert READ_ONLY_TOOLS == REGISTRY_READ_ONLY
    for name, tool in TOOLS.items():
        facts = TOOL_FACTS[name]
        assert facts.risk == tool.risk, name
        assert facts.read_only == (tool.risk == RiskLevel.READ and not tool.uses_sandbox), name
        assert facts.external_effects == tool.external_effects, name
        assert facts.approval_rule == (tool.approval_rule is not None), name


def test_the_worker_registers_every_name_the_workflow_schedules() -> None:
    """The workflow names its activities (contracts.activity_names); a worker registers them."""
    registered = {activity._Definition.must_from_callable(fn).name for fn in all_activities(lab_deps())}
    assert registered >= SCHEDULED, SCHEDULED - registered
