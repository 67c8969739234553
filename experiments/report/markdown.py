"""`report.md`: what was run (method, configuration), what came of it (tables, plots) and how far
to trust it (threats to validity)."""

from __future__ import annotations

from collections.abc import Sequence

import yaml

from experiments.config import CRASH_KINDS, FaultKind
from experiments.metrics import ArmMetrics, ExperimentResults, wilson_interval
from experiments.plots import PASS_HAT_PNG, SUCCESS_BY_FAULT_PNG, TOKENS_PNG, WALL_TIME_PNG
from experiments.report.arms_setup import frozen_agent, information_and_retries
from experiments.report.cells import ci, pass_hat, rate, seconds, success_cells, trial_count, when
from experiments.report.comparison_section import comparison_sections
from experiments.report.counterfactual import counterfactual_sections, forks_of_note
from experiments.report.crash_section import crash_sections
from experiments.report.document import RESULTS_JSON, TRIALS_JSONL, ResultsDocument
from experiments.report.invariants import invariants_section
from experiments.report.provenance_section import provenance_lines
from experiments.report.scenarios import describe_scenario
from experiments.report.spend_section import spend_sections
from experiments.trial_record import TrialRecord


def markdown_report(document: ResultsDocument, trials: Sequence[TrialRecord] = ()) -> str:
    """`trials`: the records, for the sections that list trial by trial (counterfactuals)."""
    config, results = document.config, document.results
    sections = [
        f"# Experiment `{config.name}`: {document.experiment_id}",
        config.description,
        *provenance_lines(document.provenance, document.parts),
        *(
            [f"**Stopped early**: {document.stopped_early}. The figures are over the trials recorded before."]
            if document.stopped_early
            else []
        ),
        *forks_of_note(document.forks_of),
        "## Method",
        _method(document),
        "## Configuration",
        "```yaml\n" + yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False).rstrip() + "\n```",
        *comparison_sections(results, _markdown_table),
        *spend_sections(results, _markdown_table),
        *crash_sections(results, _markdown_table),
        "## Results",
        "Every figure below is over valid trials only; invalid trials are listed apart. "
        "A trial succeeds when the task's postconditions hold on the real end state, no effect "
        "repeated and the lab had no infrastructure failure.",
        "### Reliability per runtime and scenario",
        _reliability_table([*results.arms, *results.runtimes], config.trials),
        "### Safety and cost per runtime and scenario",
        _cost_table([*results.arms, *results.runtimes]),
        "### Model calls per runtime",
        _model_call_table(results),
        "### What went wrong in failed trials",
        _failure_table(results),
        "### Per fault kind",
        _markdown_table(
            ["fault kind", "runtime", "scenarios", "successes/valid", "success", "95% CI"],
            [
                [*(str(r.fault_kind), r.runtime, ", ".join(r.scenarios)), *success_cells(r.success)]
                for r in results.fault_kinds
            ],
        ),
        "### Per task",
        _markdown_table(
            ["task", "scenario", "runtime", "successes/valid", "success", "95% CI", "invalid", "infra failures"],
            [
                [
                    *(t.task_id, t.scenario, t.runtime),
                    *success_cells(t.success),
                    *(str(t.invalid_trials), str(t.infrastructure_failures)),
                ]
                for t in results.tasks
            ],
        ),
        "### Invariants over the durable trials",
        invariants_section(results, _markdown_table),
        *counterfactual_sections(config.counterfactual, results, trials, _markdown_table),
        "### Invalid trials",
        _markdown_table(
            ["trial", "task", "scenario", "runtime", "index", "reason"],
            [
                [i.trial_id, i.task_id, i.scenario, i.runtime, str(i.trial_index), i.reason]
                for i in results.invalid_trials
            ],
        )
        if results.invalid_trials
        else "None: every configured fault fired.",
        "### Infrastructure failures (counted as failures)",
        _markdown_table(
            ["trial", "task", "scenario", "runtime", "index", "error"],
            [
                [f.trial_id, f.task_id, f.scenario, f.runtime, str(f.trial_index), f.error]
                for f in results.infrastructure_failures
            ],
        )
        if results.infrastructure_failures
        else "None.",
        "## Plots",
        f"![pass^k per runtime]({PASS_HAT_PNG})",
        f"![success rate per fault kind]({SUCCESS_BY_FAULT_PNG})",
        f"![wall time per trial]({WALL_TIME_PNG})",
        f"![tokens per trial, useful and wasted]({TOKENS_PNG})",
        "## Threats to validity",
        _threats(document),
        "## Provenance",
        f"Every figure in this report comes from `{TRIALS_JSONL}` (the raw record of every trial) and "
        f"`{RESULTS_JSON}` (the figures computed from it by `experiments.metrics`), next to this file.",
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _method(document: ResultsDocument) -> str:
    config = document.config
    provider = config.provider.kind + "".join(
        f", {name} {value}"
        for name, value in [("model", config.provider.model), ("base_url", config.provider.base_url)]
        if value
    )
    seeds = f"{config.seed}" if config.trials == 1 else f"{config.seed}..{config.seed + config.trials - 1}"
    facts = [
        f"- Run from {when(document.started)} to {when(document.finished)} "
        f"({(document.finished - document.started).total_seconds():.0f} s), concurrency {config.concurrency}.",
        f"- Tasks ({len(config.tasks)}): {', '.join(config.tasks)}.",
        f"- Runtimes: {', '.join(config.runtimes)}.",
        f"- Trials per task, runtime and scenario: k = {config.trials}.",
        f"- Provider: {provider}, the same for every runtime.",
        information_and_retries(config),
        *frozen_agent(config),
        f"- Seeds: trial i of every arm uses seed {config.seed} + i ({seeds}), so every runtime sees the same seeds.",
        "- Every (runtime, task, trial) gets a fresh workspace and a fresh fault injector; one postcondition "
        "checker judges both runtimes on the real end state.",
        "- A configured fault that never fired makes its trial invalid. An infrastructure failure counts as a failure.",
        "- pass^k is the tau-bench estimator: the mean over tasks of C(c, k) / C(n, k), c successes in n valid "
        "trials, given only where every task has the same n (otherwise: n differs per task). Over all "
        "scenarios, each (task, scenario) counts as one task.",
        "- The success rate pools an arm's valid trials; pass^1 is the mean of the tasks' rates. They differ "
        "when tasks have different numbers of valid trials.",
        "",
        "Scenarios, and how each fault fires:",
        "",
        _markdown_table(
            ["scenario", "fault", "how it fires", "tasks", "runtimes"],
            [
                [
                    s.name,
                    str(s.kind),
                    describe_scenario(s),
                    ", ".join(s.tasks or ["all"]),
                    ", ".join(s.runtimes or ["all"]),
                ]
                for s in config.scenarios
            ],
            empty="None.",
        ),
    ]
    return "\n".join(facts)


def _threats(document: ResultsDocument) -> str:
    config, results = document.config, document.results
    k = config.trials
    low, high = wilson_interval(k, k)
    invalid, infrastructure = len(results.invalid_trials), len(results.infrastructure_failures)
    scripted = config.provider.kind == "scripted"
    threats = [
        "- **Scripted oracles are not models.** "
        + (
            "The provider is scripted: it replays a task's intended actions, so these figures measure the "
            "orchestration under faults, not how well a model reasons or how often it errs on its own."
            if scripted
            else f"The provider is {config.provider.kind}; a different model may fail differently."
        ),
        f"- **Small k.** With k = {k}, even {k}/{k} successes leave a 95% interval of [{low:.2f}, {high:.2f}]; "
        "pass^k is given without an interval, and differences between runtimes inside these intervals are not "
        "evidence of a difference.",
        "- **One machine.** Wall times and overheads come from one machine and the embedded dev server; a "
        "cluster with a real database has other latencies.",
        "- **Faults fire at chosen points.** Each fault fires where its scenario says, once (a random crash at "
        "a point drawn from those its fault-free trial reached)"
        + (
            "; a random-time crash falls wherever the run then is, in a tool's work or the runtime's own "
            "bookkeeping too."
            if any(scenario.kind == FaultKind.RANDOM_TIME_CRASH for scenario in config.scenarios)
            else "; real crashes also fall inside a tool's work and in the runtime's own bookkeeping, which no "
            "point here covers."
        ),
        "- **The baseline's restart policy.** "
        + (
            "After a kill a baseline is run again on the same trial: the naive one from the start under a new "
            "run id, the journaled one under the same run id, reading back its journal. What a rerun keeps is "
            "a choice of this lab, made once per arm."
            if any(scenario.kind in CRASH_KINDS for scenario in config.scenarios)
            else "No scenario kills a process, so the baseline's restart policy plays no part here."
        ),
        f"- **Infrastructure failures.** {infrastructure} trial(s) failed for the lab's own reasons; they count "
        f"as failures of the runtime that ran them. {invalid} trial(s) were invalid (a configured fault never "
        "fired) and are left out of every figure.",
    ]
    return "\n".join(threats)


def _reliability_table(arms: list[ArmMetrics], k: int) -> str:
    headers = ["scenario", "runtime", "valid/trials", "success", "95% CI", "infra failures"]
    headers += [f"pass^{i}" for i in range(1, k + 1)]
    rows = [
        [arm.scenario, arm.runtime, trial_count(arm), rate(arm.success), ci(arm.success)]
        + [str(arm.infrastructure_failures)]
        + [pass_hat(arm, i) for i in range(1, k + 1)]
        for arm in arms
    ]
    # pass^k is computed only where every task has the same n (`pass_hat_withheld`), so no task
    # is left out of it and no note is needed.
    return _markdown_table(headers, rows)


def _cost_table(arms: list[ArmMetrics]) -> str:
    headers = ["scenario", "runtime", "duplicate effects", "unsafe actions executed", "unapproved effects"]
    headers += ["verifier rejections"]
    headers += ["wall time median (mean) s", "tokens useful / wasted", "cost USD", "recovery median s (trials)"]
    rows = [
        [
            arm.scenario,
            arm.runtime,
            str(arm.duplicate_effects),
            str(arm.unsafe_actions_executed),
            str(arm.unapproved_effects),
            str(arm.verifier_rejections),
            f"{seconds(arm.wall_time_median_s)} ({seconds(arm.wall_time_mean_s)})",
            f"{arm.tokens_useful} / {arm.tokens_wasted}",
            f"{arm.cost_usd:.4f}",
            f"{seconds(arm.recovery_time_median_s)} ({arm.recovered_trials})",
        ]
        for arm in arms
    ]
    return _markdown_table(headers, rows)


def _model_call_table(results: ExperimentResults) -> str:
    """Live and replayed calls; for a local model, the server's own timings of the live ones."""

    def figure(value: float | None, digits: int = 0) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    rows = [
        [
            m.runtime,
            str(m.calls),
            str(m.live_calls),
            str(m.timed_calls),
            figure(m.median_prompt_tokens),
            figure(m.median_evaluated_tokens),
            figure(m.median_generated_tokens),
            figure(m.median_seconds, 1),
            figure(m.p90_seconds, 1),
            figure(m.prompt_eval_rate),
        ]
        for m in results.model_calls
    ]
    headers = ["runtime", "calls", "live", "timed", "prompt tokens (median)", "evaluated (median)"]
    headers += ["generated (median)", "s per call (median)", "s per call (p90)", "prompt eval tokens/s"]
    return _markdown_table(headers, rows)


def _failure_table(results: ExperimentResults) -> str:
    rows = [
        [
            f.runtime,
            str(f.failed),
            "; ".join(f"{kind}: {count}" for kind, count in f.kinds),
            *((str(f.repeated_actions), str(f.unusable_answers), str(f.finish_refused)) if f.counted else ("-",) * 3),
        ]
        for f in results.failures
    ]
    headers = ["runtime", "failed", "kinds (trials)", "repeated actions refused", "unusable answers"]
    return _markdown_table([*headers, "done refused"], rows, empty="No valid trial failed.")


def _markdown_table(headers: list[str], rows: list[list[str]], empty: str = "No trials recorded.") -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"

    if not rows:
        return empty
    return "\n".join([line(headers), "|" + "---|" * len(headers), *map(line, rows)])
