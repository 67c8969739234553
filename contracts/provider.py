"""What goes to a model provider and what comes back, for both runtimes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.actions import ActionProposal


class Price(BaseModel):
    """USD per million tokens; a run's cost is computed from it, per attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_million: float = Field(default=0.0, ge=0)
    output_per_million: float = Field(default=0.0, ge=0)


class NoiseConfig(BaseModel):
    """Model faults injected by the noisy wrapper, each at its rate, seeded: the same seed,
    run and step give the same faults. Every injected fault is recorded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    malformed_json: float = Field(default=0.0, ge=0, le=1)
    unknown_tool: float = Field(default=0.0, ge=0, le=1)
    invalid_arguments: float = Field(default=0.0, ge=0, le=1)
    dangerous: float = Field(default=0.0, ge=0, le=1)
    rate_limit: float = Field(default=0.0, ge=0, le=1)
    timeout: float = Field(default=0.0, ge=0, le=1)
    latency_s: float = Field(default=0.0, ge=0)
    # If no fault has been injected into a run by this step, inject one there (a content
    # fault, chosen by the seed): an experiment's noisy trial never goes without a fault.
    ensure_by_step: int | None = Field(default=None, ge=1)


class ProviderConfig(BaseModel):
    """Which provider to use, and how. Never holds a secret: a worker reads the API key from
    its own environment, from the variable named by `api_key_env`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["scripted", "openai"] = "scripted"
    # scripted: the task's script file.
    script_path: str | None = None
    # openai (any OpenAI-compatible server, the local llama.cpp server included):
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    # How the server is told the answer's shape: OpenAI's strict JSON schema, or llama.cpp's
    # `json_object` with a schema (it refuses the strict form).
    structured_output: Literal["json_schema", "json_object"] = "json_schema"
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_output_tokens: int = Field(default=512, gt=0)
    # The model's context window, when it is small (a local model): a proposal's prompt is cut
    # to leave room for the answer, the oldest turns first. None: the prompt is sent whole.
    context_tokens: int | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=120.0, gt=0)
    price: Price = Field(default_factory=Price)
    # A local model file's sha256, recorded with every run that used it.
    model_sha256: str | None = None
    seed: int = 0
    # Wrappers: injected faults, and a cassette that records or replays answers.
    noise: NoiseConfig | None = None
    cassette: str | None = None
    # record: call the model, keep its answer; replay: answer only from the cassette (a request it
    # lacks is an error); replay_or_live: from the cassette where the request was recorded, from
    # the model (recorded too) where the run has diverged from the recording.
    cassette_mode: Literal["record", "replay", "replay_or_live"] = "replay"


class Turn(BaseModel):
    """One earlier step as the model sees it: its proposal and what came of it."""

    step: int
    # None when the model's answer was unusable; the feedback says what was wrong with it.
    proposal: ActionProposal | None
    outcome: Literal["committed", "rejected"]
    feedback: str
    # The step failed by a fault the lab injected (a tool timeout). Providers never show it to
    # a model; the scripted oracle proposes the step again, as a model would after a glitch.
    fault_injected: bool = False
