"""Envelopes for activity inputs that are not already a contract of their own."""

from __future__ import annotations

from pydantic import BaseModel

from contracts.actions import ActionProposal
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition
from contracts.sandbox import SandboxReport


class PrepareWorkspaceInput(BaseModel):
    # The run's world (RunRequest.world_id): one workspace per world.
    world_id: str
    fixture_dir: str


class WorkspaceRef(BaseModel):
    path: str
    # The git commit holding the fixture: the first checkpoint.
    checkpoint: str
    # The sandbox this worker runs the agent's commands in (None in histories made before).
    sandbox: SandboxReport | None = None


class VerifyInput(BaseModel):
    workspace: str
    proposal: ActionProposal
    profile: PolicyProfile = PolicyProfile.DEVELOPER


class ExecuteToolInput(BaseModel):
    workspace: str
    proposal: ActionProposal
    # With the tool and its arguments, these make the call's idempotency key.
    run_id: str
    step: int
    # The world acted on (RunRequest.world_id); by default the run's own.
    world_id: str | None = None
    # The last checkpoint: a retry that finds an unfinished attempt of a workspace tool
    # restores it before acting again.
    checkpoint: str | None = None


class CheckPostconditionsInput(BaseModel):
    workspace: str
    postconditions: list[Postcondition]
    # The run's world, whose state in external services some postconditions read.
    world_id: str | None = None
