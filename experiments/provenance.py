"""What produced an experiment's figures: the code (commit, and whether the tree had changes
not committed), the versions that run it, the machine, the model file and the config. Recorded
in `results.json` when an experiment starts, and shown at the top of its report, so that a
figure can be traced to what made it and a result from older code is seen to be one."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path

from pydantic import BaseModel

from contracts.errors import StarterError
from experiments.config import ExperimentConfig, ProviderSpec
from lab.models.local_model import resolve_model
from settings import PROJECT_ROOT

UNKNOWN = "unknown"


class ModelFile(BaseModel):
    """A local model's weights and the server that ran them."""

    name: str
    sha256: str
    llama_cpp_python: str


class Provenance(BaseModel):
    commit: str
    # Files changed and not committed when the experiment started (a dirty tree): what ran is
    # not the commit alone. Empty for a clean tree.
    uncommitted: list[str]
    python: str
    temporalio: str
    temporal_cli: str
    cpu: str
    cores: int
    config_sha256: str
    model: ModelFile | None = None

    @property
    def dirty(self) -> bool:
        return bool(self.uncommitted)


def provenance(
    config: ExperimentConfig, provider: ProviderSpec | None = None, project: Path = PROJECT_ROOT
) -> Provenance:
    """`provider`: the one whose model made the figures, when not the config's own (forks made
    later with another model). Blocking (it runs git and the Temporal CLI, and may hash a model
    file): call it in a thread from async code."""
    return Provenance(
        commit=(git_output(project, "rev-parse", "HEAD") or UNKNOWN).strip(),
        uncommitted=[name for name in _uncommitted(project) if name != _cassette(config, project)],
        python=platform.python_version(),
        temporalio=_version("temporalio"),
        temporal_cli=_temporal_cli(),
        cpu=_cpu_model(),
        cores=os.cpu_count() or 0,
        config_sha256=config_digest(config),
        model=_model(provider or config.provider),
    )


def _cassette(config: ExperimentConfig, project: Path) -> str | None:
    """The config's cassette, as `git status` names it: what the experiment records (its model's
    answers, committed with its results), not code that ran; a part resumed while it was still
    to be committed is not on other code for it."""
    cassette = config.provider.cassette
    if cassette is None:
        return None
    path = Path(cassette)
    path = path if path.is_absolute() else project / path
    try:
        return path.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:  # outside the project: git does not see it
        return None


def config_digest(config: ExperimentConfig) -> str:
    """The config as it ran (defaults filled in), hashed: two runs of the same config agree."""
    return hashlib.sha256(config.model_dump_json().encode("utf-8")).hexdigest()


def git_output(project: Path, *args: str) -> str | None:
    """What `git ARGS` prints in `project`; None when it fails or there is no git."""
    try:
        done = subprocess.run(["git", *args], cwd=project, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _uncommitted(project: Path) -> list[str]:
    """Changed and untracked files, as `git status` names them; the lab's data directory and
    what git ignores are not code."""
    status = git_output(project, "status", "--porcelain", "--untracked-files=all")
    if status is None:
        return [f"{UNKNOWN}: not a git checkout"]
    # "XY path" a line: two status letters (either may be a space), a space, the path.
    return [line[3:] for line in status.splitlines() if line.strip()]


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return UNKNOWN


def _temporal_cli() -> str:
    # Here, not at the top: it loads Temporal's SDK, which commands that only read a report's
    # results must not wait for.
    from lab.processes.temporal_server import temporal_cli

    try:
        done = subprocess.run([str(temporal_cli()), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired, StarterError):
        return UNKNOWN
    return done.stdout.strip() or UNKNOWN


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or UNKNOWN


def _model(provider: ProviderSpec) -> ModelFile | None:
    """The local model's file, for a provider that runs one (a served model's weights are the
    server's, and not known here)."""
    if provider.kind != "local":
        return None
    model = resolve_model(provider.model)
    return ModelFile(name=model.name, sha256=model.sha256, llama_cpp_python=_version("llama_cpp_python"))


__all__ = ["ModelFile", "Provenance", "config_digest", "git_output", "provenance"]
