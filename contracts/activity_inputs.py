"""Envelopes for activity inputs that are not already a contract of their own."""

from __future__ import annotations

from pydantic import BaseModel

from contracts.actions import ActionProposal
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition


class PrepareWorkspaceInput(BaseModel):
    run_id: str
    fixture_dir: str


class WorkspaceRef(BaseModel):
    path: str


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


class CheckPostconditionsInput(BaseModel):
    workspace: str
    postconditions: list[Postcondition]
