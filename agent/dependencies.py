"""What the agent core uses besides a call's input, handed in as one object per process.

A worker builds it once from its environment (`agent.dependencies_from_environment`, the one
core module that reads it); the starter, the baseline and the experiment harness build it from
their own arguments. Nothing in the core reads the environment at call time, so a process that
drives the core for several data directories or services says which one on every call, and no
one steers the core by writing `os.environ` (a child process gets its environment at spawn).

Building it does no I/O: the stores under the data directory are made on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from agent.artifacts import ArtifactStore
from agent.effects.store import EffectStore
from agent.ledger.store import LedgerStore


@dataclass(frozen=True, eq=False)
class Dependencies:
    # Where runs keep their state: workspaces, checkpoints, the stores below.
    data_dir: Path
    # Base URL of the operations service the side-effecting tools call (None: not configured).
    ops_url: str | None = None
    # Which sandbox runs commands (agent.sandbox.selection.BACKENDS).
    sandbox: str = "auto"
    # A fault plan to act out (agent.faults), for the recovery experiments; None normally.
    fault_plan: Path | None = None
    # API keys by the name a provider's config gives for its key (ProviderConfig.api_key_env).
    api_keys: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    # The image commands run in under the Docker sandbox (None: its default).
    docker_image: str | None = None

    @cached_property
    def effects(self) -> EffectStore:
        """The effect store: opened (and made) on first use, then shared by the process."""
        return EffectStore(self.data_dir / "effects.sqlite")

    @cached_property
    def artifacts(self) -> ArtifactStore:
        return ArtifactStore(self.data_dir / "artifacts")

    @cached_property
    def ledgers(self) -> LedgerStore:
        return LedgerStore(self.data_dir / "ledgers")

    @property
    def workspaces(self) -> Path:
        return self.data_dir / "workspaces"

    @property
    def checkpoints(self) -> Path:
        """Where workspaces' checkpoint repositories live (agent.checkpoints)."""
        return self.data_dir / "checkpoints"

    @property
    def injected(self) -> Path:
        """Where a noisy provider logs the faults it injected (agent.providers.noisy)."""
        return self.data_dir / "injected"

    @property
    def attempts(self) -> Path:
        """What failed model-call attempts cost (activities.attempt_usage)."""
        return self.data_dir / "attempts.sqlite"

    def api_key(self, name: str) -> str | None:
        return self.api_keys.get(name) or None
