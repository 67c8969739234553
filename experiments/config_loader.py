"""Experiment configs (`experiments/configs/NAME.yaml`), validated with one clear line per
problem, naming the field, before anything runs."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from contracts.errors import ConfigError, TaskError
from contracts.problems import render
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
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{path}: {render(error, raw)}") from None
    if config.tags:
        config = _select_by_tags(path, config)
    if config.forks_need_another_model():
        raise ConfigError(
            f"{path}: counterfactual.provider: a local model must be the experiment's own "
            f"({config.provider.model or config.provider.kind}): one model server runs while an experiment does; "
            "to fork its trials with another, run a counterfactual of the recorded experiment (`of:`)"
        )
    for field, ids in [("tasks", config.tasks)] + [
        (f"scenarios[{index}].tasks", scenario.tasks or []) for index, scenario in enumerate(config.scenarios)
    ]:
        for task_id in ids:
            if not (TASKS_DIR / task_id / SPEC_FILE).is_file():
                known = ", ".join(task.spec.id for task in list_tasks())
                raise ConfigError(f"{path}: {field}: unknown task {task_id!r} (tasks: {known})")
            try:
                task = load_task(task_id)
                forks_scripted = config.counterfactual is not None and config.counterfactual.provider.kind == "scripted"
                if config.provider.kind == "scripted" or forks_scripted:
                    task.require_script()
            except TaskError as error:
                raise ConfigError(f"{path}: {field}: {error}") from None
    return config


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
