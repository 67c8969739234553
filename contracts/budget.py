"""Limits a run may spend, and what it holds on the host's disk. Enforced by code (workflow or
loop), never by the model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from contracts.wire_names import WIRE_NAMES, renamed

MiB = 1024**2
GiB = 1024**3


class RunBudget(BaseModel):
    """Per run and per subtask of its plan. None: no limit of that kind. Wall time does not
    count the time a run waits for a person's approval. The per-subtask limits keep their old
    names (`max_steps_per_task`, ...) in JSON, and a task.yaml may still use them."""

    model_config = ConfigDict(extra="forbid", frozen=True, **WIRE_NAMES)

    max_steps: int = Field(default=30, gt=0)
    max_steps_per_subtask: int = renamed("max_steps_per_subtask", old="max_steps_per_task", default=12, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_tokens_per_subtask: int | None = renamed(
        "max_tokens_per_subtask", old="max_tokens_per_task", default=None, gt=0
    )
    max_cost_usd: float | None = Field(default=None, gt=0)
    max_cost_usd_per_subtask: float | None = renamed(
        "max_cost_usd_per_subtask", old="max_cost_usd_per_task", default=None, gt=0
    )
    max_wall_time_s: float | None = Field(default=None, gt=0)
    max_wall_time_s_per_subtask: float | None = renamed(
        "max_wall_time_s_per_subtask", old="max_wall_time_s_per_task", default=None, gt=0
    )
    # Host disk the run may hold (DiskUse: its workspace, its checkpoint repository, its
    # artifacts). Per run, not per command: a command's own disk quota is cut to what is left.
    max_disk_bytes: int | None = Field(default=GiB, gt=0)
    # A run with parallel subtasks: how often it may draft its plan again when a subtask runs
    # out of its budget or its work does not merge (plan v1, then up to this many more).
    max_plan_revisions: int = Field(default=1, ge=0)
    # How often the model may claim a subtask done while its checks find it not done before
    # the run ends (the durable runtime checks every claim; the baseline believes the first).
    # None here; a new run gets `lab.runs.run_request.REFUSED_CLAIMS` unless its task sets one,
    # so a run recorded before the limit replays as it ran.
    # Unset, it is left out of the JSON: a request recorded before it is written again byte for byte.
    max_refused_claims: int | None = Field(default=None, gt=0, exclude_if=lambda value: value is None)


class DiskUse(BaseModel):
    """What a run holds on the host's disk, in bytes allocated: its workspace and its checkpoint
    repository as last measured (after a step's checkpoint or rollback), and the artifacts its
    tool results refer to. The artifact store is content-addressed and shared by every run, so
    a run counts its own references: the sizes its results carry, known to workflow code
    without I/O (an output two results share counts twice, which errs on the safe side)."""

    model_config = ConfigDict(frozen=True)

    workspace_bytes: int = Field(default=0, ge=0)
    checkpoint_bytes: int = Field(default=0, ge=0)
    artifact_bytes: int = Field(default=0, ge=0)
    # Why the workspace could not be measured (agent.disk_use: past its deadline), or None: a
    # run whose use cannot be counted is over any budget.
    uncounted: str | None = None

    @property
    def total_bytes(self) -> int:
        return self.workspace_bytes + self.checkpoint_bytes + self.artifact_bytes

    def measured(self, on_disk: DiskUse) -> DiskUse:
        """The workspace and repository as `on_disk` measured them; the artifacts as counted."""
        return on_disk.model_copy(update={"artifact_bytes": self.artifact_bytes})

    def with_artifact(self, size_bytes: int) -> DiskUse:
        return self.model_copy(update={"artifact_bytes": self.artifact_bytes + size_bytes})

    def describe(self) -> str:
        if self.uncounted is not None:
            return self.uncounted
        return (
            f"{mib(self.total_bytes)}: workspace {mib(self.workspace_bytes)}, "
            f"checkpoints {mib(self.checkpoint_bytes)}, artifacts {mib(self.artifact_bytes)}"
        )


def mib(size_bytes: int) -> str:
    return f"{size_bytes / MiB:.1f} MiB"
