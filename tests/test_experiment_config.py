"""Experiment configs: the shipped ones load; a bad one gets one line naming the field, and
nothing runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from experiments.config import CounterfactualConfig, ExperimentConfig, FaultKind
from experiments.config_loader import CONFIGS_DIR, ConfigError, load_config
from experiments.runner import plan_trials
from tests.test_cli import assert_one_line_error, starter

GOOD = {"name": "tiny", "tasks": ["bugfix-median"], "runtimes": ["durable", "baseline"], "trials": 2}


def write(tmp_path: Path, config: dict[str, object]) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("name", sorted(path.stem for path in CONFIGS_DIR.glob("*.yaml")))
def test_the_shipped_configs_load(name: str) -> None:
    config = load_config(CONFIGS_DIR / f"{name}.yaml")
    assert config.name == name
    if isinstance(config, CounterfactualConfig):  # forks of a recorded experiment: its trials
        assert config.counterfactual.from_step >= 1
        return
    # The real-model experiments run each trial at least five times (k >= 5), the scripted
    # core four; the others are a quick look (quickstart) or a per-call measurement.
    assert config.trials >= {"core": 4, "real": 5, "small": 5, "small-faults": 5}.get(name, 2)


def test_core_covers_every_task_and_every_fault_kind() -> None:
    from lab.runs.catalog import list_tasks

    config = load_config(CONFIGS_DIR / "core.yaml")
    assert set(config.tasks) == {task.spec.id for task in list_tasks()}
    assert {scenario.kind for scenario in config.scenarios} == set(FaultKind)
    assert {scenario.point for scenario in config.scenarios if scenario.kind == FaultKind.KILL} == {
        "model_call",
        "before_effect",
        "after_effect",
        "tool_execution",
    }


def test_tags_narrow_the_tasks_to_those_that_carry_every_tag(tmp_path: Path) -> None:
    from lab.runs.catalog import list_tasks

    tier = load_config(write(tmp_path, {**GOOD, "tasks": "all", "tags": ["small"]}))
    assert tier.tasks == [task.spec.id for task in list_tasks() if "small" in task.spec.tags]
    assert len(tier.tasks) >= 6
    # The shipped config runs three of the tier's tasks, each tagged small.
    small = load_config(CONFIGS_DIR / "small.yaml")
    assert set(small.tasks) < set(tier.tasks) and small.runtimes == ["durable", "baseline", "baseline+verifier"]
    both = load_config(write(tmp_path, {**GOOD, "tasks": "all", "tags": ["small", "ops"]}))
    assert both.tasks == ["small-ops-two-effects"]
    named = load_config(write(tmp_path, {**GOOD, "tasks": ["bugfix-median", "small-off-by-one"], "tags": ["small"]}))
    assert named.tasks == ["small-off-by-one"]


def test_trials_are_planned_per_runtime_task_scenario_and_seed() -> None:
    config = load_config(CONFIGS_DIR / "core.yaml")
    specs = plan_trials(config, "x")
    restarts = [s for s in specs if s.scenario.kind == FaultKind.SERVER_RESTART]
    # The baseline has no server to restart: only the durable runtime gets that scenario.
    assert restarts and {s.runtime for s in restarts} == {"durable"}
    # Both runtimes see the same seeds, trial by trial.
    seeds = {(s.task.spec.id, s.scenario.name, s.index): set() for s in specs}
    for spec in specs:
        seeds[(spec.task.spec.id, spec.scenario.name, spec.index)].add(spec.seed)
    assert all(len(found) == 1 for found in seeds.values())
    assert len({spec.trial_id for spec in specs}) == len(specs)
    # The runtimes take turns, trial by trial: drift over the experiment falls on each alike.
    clean = [(s.task.spec.id, s.index, s.runtime) for s in specs if s.scenario.name == "none"]
    task, arms = clean[0][0], sorted({runtime for _, _, runtime in clean}, key=config.runtimes.index)
    assert len(arms) > 1
    assert clean[: 2 * len(arms)] == [(task, index, runtime) for index in (0, 1) for runtime in arms]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"tasks": ["bugfix-median", "no-such-task"]}, "tasks[1]: unknown task 'no-such-task'"),
        ({"tags": ["small"]}, "tags: none of the tasks carries every tag of small (their tags: bugfix, coding)"),
        ({"tasks": ["no-such-task"], "tags": ["small"]}, "tasks[0]: unknown task 'no-such-task'"),
        ({"trials": -1}, "trials: Input should be greater than or equal to 1"),
        ({"scenarios": [{"name": "x", "kind": "meteor_strike"}]}, "scenarios[0].kind"),
        ({"scenarios": [{"name": "x", "kind": "kill"}]}, "a kill fault needs a point"),
        ({"scenarios": [{"name": "x", "kind": "kill", "point": "in_the_cloud"}]}, "scenarios[0].point"),
        (
            {"runtimes": ["baseline"], "scenarios": [{"name": "r", "kind": "server_restart"}]},
            "no runtime among baseline has the fault point 'server'",
        ),
        ({"runtimes": ["quantum"]}, "runtimes[0]"),
        ({"concurrency": 0}, "concurrency"),
        ({"colour": "blue"}, "colour: Extra inputs are not permitted"),
        ({"provider": {"kind": "scripted", "cassette": "c.jsonl"}}, "the scripted provider has none"),
        ({"provider": {"kind": "local", "cassette_mode": "rewind"}}, "provider.cassette_mode"),
        ({"provider": {"kind": "local", "temperature": 3}}, "provider.temperature"),
    ],
)
def test_a_bad_config_names_the_field(tmp_path: Path, change: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(write(tmp_path, {**GOOD, **change}))
    assert fragment in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_config_with_problems_of_its_schema_and_its_tasks_names_every_one(tmp_path: Path) -> None:
    """An unknown task is told beside the schema's problems, not after they are fixed."""
    path = write(tmp_path, {**GOOD, "tasks": ["bugfix-median", "no-such-task"], "runtimes": ["sideways"], "trials": 0})
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    lines = str(raised.value).splitlines()
    assert lines[0] == f"{path}: 3 problems:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["runtimes[0]", "trials", "tasks[1]"]
    assert "unknown task 'no-such-task'" in lines[3]


def test_the_cli_refuses_a_bad_config_in_one_line_and_runs_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, {**GOOD, "trials": -2})
    assert_one_line_error(starter("experiment", "run", "--config", str(path)), "trials")
    assert_one_line_error(starter("experiment", "run", "--config", str(tmp_path / "missing.yaml")), "cannot read")


def test_a_config_sets_the_providers_temperature_and_its_cassette_relative_to_the_project() -> None:
    from contracts import ProviderConfig
    from experiments.config import ProviderSpec, with_experiment_settings
    from settings import PROJECT_ROOT

    served = ProviderConfig(kind="openai", model="local", base_url="http://127.0.0.1:1/v1")
    assert with_experiment_settings(served, ProviderSpec(kind="local")) == served
    spec = ProviderSpec(kind="local", temperature=0.3, cassette="data/cassettes/c.jsonl")
    configured = with_experiment_settings(served, spec)
    assert configured.temperature == 0.3
    assert configured.cassette == str(PROJECT_ROOT / "data/cassettes/c.jsonl")
    assert configured.cassette_mode == "replay_or_live"


def test_parallel_subtasks_reach_the_durable_trials_only(tmp_path: Path) -> None:
    from contracts import ProviderConfig
    from experiments.trials import Lab, request_for

    config = load_config(write(tmp_path, {**GOOD, "tasks": ["independent-parts"], "parallel_subtasks": True}))
    assert isinstance(config, ExperimentConfig)
    lab = Lab(cluster=None, faults=None, provider=ProviderConfig(), config=config, scratch=tmp_path)  # type: ignore[arg-type]
    requests = {spec.runtime: request_for(spec, lab) for spec in plan_trials(config, "exp")}
    assert requests["durable"].parallel_subtasks is True
    assert requests["baseline"].parallel_subtasks is False
    default = load_config(write(tmp_path, GOOD))
    assert isinstance(default, ExperimentConfig)
    lab.config = default
    assert all(not request_for(spec, lab).parallel_subtasks for spec in plan_trials(default, "exp"))


def test_a_kill_before_the_effect_is_a_point_of_every_arm(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            {
                **GOOD,
                "runtimes": ["durable", "baseline", "baseline+verifier"],
                "scenarios": [{"name": "kill-before-effect", "kind": "kill", "point": "before_effect"}],
            },
        )
    )
    assert isinstance(config, ExperimentConfig)
    assert {spec.runtime for spec in plan_trials(config, "x-1")} == {"durable", "baseline", "baseline+verifier"}
