"""A study's agent, frozen (ExperimentConfig.frozen_at).

A confirmatory study fixes its agent before its first trial: what the model is told, the tools,
the sampler and budgets, both runtimes' loops, the tasks. Tuning any of them on the study's own
trials would make its figures a fit, not a measure, so a change after the freeze means a new
study. Here that is checked, not promised: an experiment whose config names the commit its agent
was frozen at starts, and resumes, only on a checkout whose agent code is that commit's,
committed or not. The harness (measures, report) may move on; the report names both commits.
"""

from __future__ import annotations

from pathlib import Path

from contracts.errors import ConfigError
from experiments.config import ExperimentConfig
from experiments.provenance import Provenance, git_output, provenance
from settings import PROJECT_ROOT

# What "the agent" is: the code and data a trial's behaviour comes from. The prompts and tools
# (agent), the durable runtime (workflows, activities, worker.py), the plain loop (baseline), the
# typed contracts and their budgets (contracts), the local model's server and sampler
# (lab/models), how a task becomes a run (lab/runs), and the tasks themselves.
FROZEN_PATHS = (
    "agent",
    "activities",
    "baseline",
    "contracts",
    "workflows",
    "worker.py",
    "lab/models",
    "lab/runs",
    "experiments/tasks",
)


def agent_changes(frozen_at: str, project: Path | None = None) -> list[str]:
    """The agent's files this checkout (the project's, by default) holds otherwise than commit
    `frozen_at` (changed, committed or not, and new); ConfigError when the commit is not this
    repository's."""
    project = project or PROJECT_ROOT
    commit = git_output(project, "rev-parse", "--verify", "--quiet", f"{frozen_at}^{{commit}}")
    if commit is None:
        raise ConfigError(f"frozen_at: {frozen_at} is no commit of the repository at {project}")
    changed = git_output(project, "diff", "--name-only", commit.strip(), "--", *FROZEN_PATHS) or ""
    new = git_output(project, "ls-files", "--others", "--exclude-standard", "--", *FROZEN_PATHS) or ""
    return sorted({*changed.split(), *new.split()})


def require_frozen_agent(frozen_at: str | None, project: Path | None = None) -> None:
    """ConfigError (one line, naming the files) when the agent is not the frozen one."""
    if frozen_at is None:
        return
    changed = agent_changes(frozen_at, project)
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise ConfigError(
            f"the agent changed since its freeze at {frozen_at} ({shown}): its trials would not be the "
            f"study's; check out {frozen_at}'s agent, or start a new study with a new frozen_at"
        )


def frozen_provenance(config: ExperimentConfig) -> Provenance:
    """What an experiment (or a part of it) runs, once its agent is shown to be the frozen one:
    blocking (git), for a thread."""
    require_frozen_agent(config.frozen_at)
    return provenance(config)
