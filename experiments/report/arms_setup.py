"""The Method's sentence on what every arm's model was told and how often its calls were tried
(ExperimentConfig.show_acceptance, .retries): the two ways the arms may differ besides the
mechanism under test (METHOD.md, equal information and equal retry budgets)."""

from __future__ import annotations

from experiments.config import ExperimentConfig

_SHOWN = {
    True: "every arm's model was shown the task's acceptance checks and, after each step, which did not hold yet",
    False: (
        "no arm's model was shown the task's acceptance checks or their status after a step "
        "(the durable runtime still checked every finish)"
    ),
    None: (
        "what the model was shown differed by runtime (show_acceptance not set): the durable model was "
        "shown the task's acceptance checks and, after each step, which did not hold yet; the baseline's neither"
    ),
}
# The policies of workflows.activity_options and experiments.baseline_process, when no budget is set.
_OWN_RETRIES = (
    "retries differed by runtime (retries not set): durable model calls 5 attempts, tool calls retried for "
    "up to 40 minutes (reads: 5 attempts), backoff from 0.1 s x4; baseline 3 attempts of each, a fixed 0.5 s pause"
)


def information_and_retries(config: ExperimentConfig) -> str:
    shown = _SHOWN[config.show_acceptance]
    retries = _OWN_RETRIES if config.retries is None else f"every arm had {config.retries.describe()}"
    return f"- Information: {shown}. Retries: {retries}."


def frozen_agent(config: ExperimentConfig) -> list[str]:
    """The Method's line on the agent's freeze (experiments.freeze), for a study that has one."""
    if config.frozen_at is None:
        return []
    return [
        f"- Agent: frozen at commit `{config.frozen_at}` before the study's first trial (prompts, tools, "
        "sampler, budgets, both loops, tasks); every part of this experiment was checked to run that "
        "commit's agent code unchanged."
    ]
