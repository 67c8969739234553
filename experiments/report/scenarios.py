"""A fault scenario told in a sentence, for the report's method."""

from __future__ import annotations

from experiments.config import FaultKind, FaultScenario


def describe_scenario(scenario: FaultScenario) -> str:
    where = f"at {scenario.point}" + (f" of step {scenario.step}" if scenario.step else "")
    where += f" in tool {scenario.tool}" if scenario.tool else ""
    match scenario.kind:
        case FaultKind.NONE:
            return "no fault injected"
        case FaultKind.KILL:
            return (
                f"SIGKILL of the process {where}; durable: the worker is replaced by another, "
                "baseline: its own process is run again on the same trial"
            )
        case FaultKind.SERVER_RESTART:
            return f"the Temporal server is stopped and started again once the run reaches step {scenario.after_step}"
        case FaultKind.MODEL_NOISE:
            noise = scenario.noise.model_dump(exclude_defaults=True) if scenario.noise else {}
            return "the noisy provider injects model faults, seeded: " + (
                ", ".join(f"{name} {value}" for name, value in noise.items()) or "no rate set"
            )
        case FaultKind.TOOL_ERROR:
            return f"the tool call fails transiently once, {where}"
        case FaultKind.TOOL_TIMEOUT:
            return f"the tool call times out once, {where}"
        case FaultKind.RANDOM_CRASH:
            return (
                "SIGKILL of the process that runs the agent at a (step, point) drawn uniformly from those the "
                "arm's fault-free trial of the same task and seed reached (model calls; before and after a "
                "change's effect); the draw is the trial's, the same for every arm"
            )
        case FaultKind.RANDOM_TIME_CRASH:
            return (
                "SIGKILL of the process that runs the agent at a moment drawn uniformly over the run time of the "
                "arm's fault-free trial of the same task and seed, wherever the run then is (durable: the worker "
                "holding it), placed on the crash run as long after its own model call the fault-free run had last "
                "started by then; the draw is the trial's, the same for every arm; a run that ends first is not crashed"
            )
    return str(scenario.kind)
