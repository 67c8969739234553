"""The noisy wrapper: seeded faults at their rates, each recorded, none repeated forever."""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from agent.providers.noisy import NoisyProvider, read_injected
from agent.providers.scripted import ScriptedProvider
from agent.tools.registry import tool_specs
from contracts import NoiseConfig, ProposeActionInput, ProviderConfig
from contracts.errors import ProviderUnavailable
from lab.runs.catalog import Task
from tests.lab_dependencies import lab_deps


def asking(task: Task, run_id: str, step: int, attempt: int = 1) -> ProposeActionInput:
    return ProposeActionInput(
        provider=ProviderConfig(script_path=str(task.script_path)),
        goal=task.spec.goal,
        run_id=run_id,
        step=step,
        attempt=attempt,
    )


async def outcomes(noise: NoiseConfig, task: Task, run_id: str, steps: int) -> list[str]:
    provider = NoisyProvider(ScriptedProvider(str(task.script_path)), noise, lab_deps().injected)
    seen = []
    for step in range(1, steps + 1):
        try:
            result = await provider.propose(asking(task, run_id, step), tool_specs())
        except ProviderUnavailable as error:
            seen.append(str(error))
            continue
        seen.append(result.invalid_output or (result.proposal.tool if result.proposal else "") or "")
    return seen


async def test_the_same_seed_gives_the_same_faults(bugfix_task: Task) -> None:
    noise = NoiseConfig(seed=7, malformed_json=0.3, unknown_tool=0.3, rate_limit=0.2)
    first = await outcomes(noise, bugfix_task, "run-a", 30)
    again = await outcomes(noise, bugfix_task, "run-a", 30)
    other_seed = await outcomes(noise.model_copy(update={"seed": 8}), bugfix_task, "run-a", 30)
    assert first == again
    assert first != other_seed


async def test_rates_are_roughly_honoured_and_every_fault_is_recorded(bugfix_task: Task) -> None:
    run_id = "noisy-rates"  # fixed, so the draws are the same every time
    noise = NoiseConfig(seed=1, malformed_json=0.25, unknown_tool=0.25, dangerous=0.25)
    seen = await outcomes(noise, bugfix_task, run_id, 400)
    recorded = Counter(fault.fault for fault in read_injected(lab_deps().injected, run_id))
    # What the model's caller saw matches what was recorded.
    assert recorded["malformed_json"] == sum(s.startswith("not valid JSON") for s in seen)
    assert recorded["unknown_tool"] == seen.count("delete_everything")
    for fault in ("malformed_json", "unknown_tool", "dangerous"):
        # Content faults are tried in order, so later ones fire a little less than their rate.
        assert 30 < recorded[fault] < 130, recorded


async def test_a_transient_fault_is_not_repeated_on_the_next_attempt(bugfix_task: Task) -> None:
    provider = NoisyProvider(
        ScriptedProvider(str(bugfix_task.script_path)), NoiseConfig(seed=3, rate_limit=0.5), lab_deps().injected
    )
    # The draws hang on the run id: a fixed one makes the test the same every time (a random
    # one failed about once in 30 runs, when nine attempts in a row drew a 429 at rate 0.5).
    run_id = "noisy-transient"
    attempts_per_step = []
    for step in range(1, 20):
        attempt = 1
        while True:
            try:
                await provider.propose(asking(bugfix_task, run_id, step, attempt), tool_specs())
                break
            except ProviderUnavailable as error:
                assert "injected 429" in str(error)
                assert error.usage is not None and error.usage.model_calls == 1
                attempt += 1
                assert attempt < 10, "a 429 repeated on every attempt"
        attempts_per_step.append(attempt)
    injected = read_injected(lab_deps().injected, run_id)
    assert injected and all(fault.fault == "rate_limit" for fault in injected)
    # Some steps were refused first and then answered: the fault did not stick to the step.
    assert len(injected) == sum(attempts_per_step) - len(attempts_per_step)
    assert any(attempts > 1 for attempts in attempts_per_step)


@pytest.mark.parametrize("fault", ["unknown_tool", "invalid_arguments", "dangerous", "malformed_json"])
async def test_each_content_fault_reaches_the_boundary_it_tests(bugfix_task: Task, fault: str) -> None:
    from agent.verification import verify

    provider = NoisyProvider(
        ScriptedProvider(str(bugfix_task.script_path)), NoiseConfig(**{fault: 1.0}), lab_deps().injected
    )
    result = await provider.propose(asking(bugfix_task, f"n-{uuid.uuid4().hex[:6]}", 1), tool_specs())
    if fault == "malformed_json":
        assert result.proposal is None and result.invalid_output
        return
    assert result.proposal is not None
    verdict = verify(bugfix_task.fixture_dir, result.proposal)
    assert verdict.decision == "reject", verdict


async def test_a_run_gets_a_fault_by_the_step_it_is_promised(bugfix_task: Task) -> None:
    provider = NoisyProvider(
        ScriptedProvider(str(bugfix_task.script_path)), NoiseConfig(seed=5, ensure_by_step=2), lab_deps().injected
    )
    for index in range(20):
        run_id = f"promised-{index}-{uuid.uuid4().hex[:6]}"
        for step in (1, 2, 3):
            await provider.propose(asking(bugfix_task, run_id, step), tool_specs())
        faults = read_injected(lab_deps().injected, run_id)
        assert [fault.step for fault in faults] == [2]  # no rates: exactly the promised one


async def test_two_runs_of_one_trial_meet_the_same_faults(bugfix_task: Task) -> None:
    """Drawn by (seed, step, attempt), not by run: the arms of a trial (other run ids) are paired."""
    noise = NoiseConfig(seed=11, malformed_json=0.3, unknown_tool=0.3, rate_limit=0.2)
    durable = await outcomes(noise, bugfix_task, f"durable-{uuid.uuid4().hex[:6]}", 30)
    baseline = await outcomes(noise, bugfix_task, f"baseline-{uuid.uuid4().hex[:6]}", 30)
    clean = await outcomes(NoiseConfig(seed=11), bugfix_task, f"clean-{uuid.uuid4().hex[:6]}", 30)
    assert durable == baseline and durable != clean  # the same faults, and some were drawn


def test_every_arm_of_a_trial_gets_the_same_noise_seed_and_other_tasks_another() -> None:
    from experiments.config import ExperimentConfig
    from experiments.runner import plan_trials
    from experiments.trials.spec import noise_seed

    config = ExperimentConfig.model_validate(
        {
            "name": "paired",
            "tasks": ["bugfix-median", "rename-refactor"],
            "runtimes": ["durable", "baseline", "baseline+verifier"],
            "trials": 2,
            "scenarios": [{"name": "noise", "kind": "model_noise", "noise": {"malformed_json": 0.2}}],
        }
    )
    seeds: dict[tuple[str, int], set[int]] = {}
    for spec in plan_trials(config, "paired-1"):
        seeds.setdefault((spec.task.spec.id, spec.index), set()).add(noise_seed(spec))
    assert all(len(found) == 1 for found in seeds.values())  # one seed for all three arms
    assert len({next(iter(found)) for found in seeds.values()}) == 4  # each (task, trial) its own
    # Another experiment of the same config (a resume's rerun too) draws the same.
    again = {(s.task.spec.id, s.index): noise_seed(s) for s in plan_trials(config, "paired-2")}
    assert again == {key: next(iter(found)) for key, found in seeds.items()}
