"""Experiment configs (`experiments/configs/NAME.yaml`), validated with one clear line per
problem, naming the field, before anything runs."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from contracts.errors import ConfigError, TaskError
from contracts.problems import Problem, problems_of, render, told
from contracts.yaml_problem import yaml_problem
from experiments.config import CounterfactualConfig, ExperimentConfig
from lab.runs.catalog import SPEC_FILE, TASKS_DIR, list_tasks, load_task

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"


def load_config(path: Path) -> ExperimentConfig | CounterfactualConfig:
    """An experiment's config; or, for a config with `of:`, counterfactuals of an experiment
    recorded earlier (what its forks run with; the experiment's own config is in its report)."""
    try:
        text = path.read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(error).split())}") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: {yaml_problem(error, text)}") from None
    if isinstance(raw, dict) and "of" in raw:
        return _counterfactual_config(path, raw)
    if isinstance(raw, dict) and raw.get("tasks") == "all":
        raw["tasks"] = [task.spec.id for task in list_tasks()]
    config: ExperimentConfig | None = None
    problems: list[Problem] = []
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as error:
        problems = problems_of(error, raw)
    # The tasks are checked whether or not the rest is valid: every problem is told at once.
    problems += _task_problems(raw, config)
    if problems or config is None:
        raise ConfigError(f"{path}: {told(problems)}")
    if config.tags:
        config = _select_by_tags(path, config)
    if config.forks_need_another_model():
        raise ConfigError(
            f"{path}: counterfactual.provider: a local model must be the experiment's own "
            f"({config.provider.model or config.provider.kind}): one model server runs while an experiment does; "
            "to fork its trials with another, run a counterfactual of the recorded experiment (`of:`)"
        )
    return config


def _task_problems(raw: object, config: ExperimentConfig | None) -> list[Problem]:
    """Each task a config names that is no task, or that cannot run as the config asks (the
    scripted provider needs the task's script). Read from the YAML itself, so that they are told
    beside the schema's problems; a task's script is asked for only of a valid config."""
    if not isinstance(raw, dict):
        return []
    scenarios = raw.get("scenarios")
    named = [("tasks", raw.get("tasks"))] + [
        (f"scenarios[{index}].tasks", scenario.get("tasks"))
        for index, scenario in enumerate(scenarios if isinstance(scenarios, list) else [])
        if isinstance(scenario, dict)
    ]
    scripted = config is not None and (
        config.provider.kind == "scripted"
        or (config.counterfactual is not None and config.counterfactual.provider.kind == "scripted")
    )
    found: list[Problem] = []
    for field, ids in named:
        for index, task_id in enumerate(ids if isinstance(ids, list) else []):
            if not isinstance(task_id, str):
                continue  # the schema's problem, told by it
            if not (TASKS_DIR / task_id / SPEC_FILE).is_file():
                known = ", ".join(task.spec.id for task in list_tasks())
                found.append(Problem(f"{field}[{index}]", f"unknown task {task_id!r} (tasks: {known})"))
                continue
            try:
                task = load_task(task_id)
                if scripted:
                    task.require_script()
            except TaskError as error:
                found.append(Problem(f"{field}[{index}]", str(error)))
    return found


def _counterfactual_config(path: Path, raw: dict[str, object]) -> CounterfactualConfig:
    """A config with `of:`: counterfactuals of an experiment recorded earlier."""
    try:
        return CounterfactualConfig.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{path}: {render(error, raw)}") from None


def _select_by_tags(path: Path, config: ExperimentConfig) -> ExperimentConfig:
    """`tasks` narrowed to the tasks that carry every tag of `tags`. An unknown id is kept, for
    the check that follows to name it."""
    tags_of = {task.spec.id: set(task.spec.tags) for task in list_tasks()}
    wanted = set(config.tags)
    selected = [task_id for task_id in config.tasks if wanted <= tags_of.get(task_id, wanted)]
    if not selected:
        theirs = ", ".join(sorted(set().union(*(tags_of[task_id] for task_id in config.tasks)))) or "none"
        raise ConfigError(
            f"{path}: tags: none of the tasks carries every tag of {', '.join(config.tags)} (their tags: {theirs})"
        )
    return config.model_copy(update={"tasks": selected})
