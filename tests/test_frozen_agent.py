"""A study's agent is frozen before its first trial (ExperimentConfig.frozen_at): an experiment
starts, and resumes, only where the agent's code is the frozen commit's, and its report says so."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
import yaml

from contracts.errors import ConfigError
from experiments import freeze
from experiments.config import ExperimentConfig
from experiments.config_loader import load_config
from experiments.freeze import agent_changes, require_frozen_agent
from experiments.provenance import config_digest
from experiments.report.arms_setup import frozen_agent
from experiments.runner import run_experiment
from tests.test_report import CONFIG


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "agent").mkdir(parents=True)
    (repo / "experiments" / "tasks" / "t").mkdir(parents=True)
    (repo / "agent" / "prompts.py").write_text("SYSTEM = 'you are careful'\n")
    (repo / "experiments" / "tasks" / "t" / "task.yaml").write_text("goal: do it\n")
    (repo / "experiments" / "metrics.py").write_text("def rate(): ...\n")
    _git(repo, "init", "-q")
    _commit(repo, "the frozen agent")
    return repo


def test_the_harness_may_move_on_after_the_freeze_the_agent_may_not(repo: Path) -> None:
    frozen = _git(repo, "rev-parse", "HEAD")
    (repo / "experiments" / "metrics.py").write_text("def rate(): return 1\n")
    _commit(repo, "a measure mended")
    assert agent_changes(frozen, repo) == []
    require_frozen_agent(frozen, repo)  # the study may go on

    (repo / "agent" / "prompts.py").write_text("SYSTEM = 'you are careful; read the tests first'\n")
    assert agent_changes(frozen, repo) == ["agent/prompts.py"]  # uncommitted
    _commit(repo, "a better prompt")
    (repo / "experiments" / "tasks" / "t" / "hint.md").write_text("the answer is 4\n")  # new, untracked
    assert agent_changes(frozen, repo) == ["agent/prompts.py", "experiments/tasks/t/hint.md"]
    with pytest.raises(ConfigError, match=r"the agent changed since its freeze at \w+ \(agent/prompts.py, "):
        require_frozen_agent(frozen, repo)
    require_frozen_agent(None, repo)  # no freeze: nothing to check


def test_a_freeze_at_no_commit_of_the_repository_is_refused(repo: Path) -> None:
    with pytest.raises(ConfigError, match="frozen_at: 0123456 is no commit of the repository"):
        require_frozen_agent("0123456", repo)
    with pytest.raises(ValueError, match="frozen_at"):
        ExperimentConfig.model_validate({**CONFIG.model_dump(), "frozen_at": "not a commit"})


@pytest.mark.parametrize("written", ["4041463", "0041463"])
def test_a_commit_yaml_reads_as_a_number_is_told_to_be_quoted(tmp_path: Path, written: str) -> None:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(CONFIG.model_dump(mode="json")) + f"frozen_at: {written}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"frozen_at: .*YAML read the commit as the number \d+: quote it"):
        load_config(path)
    path.write_text(yaml.safe_dump(CONFIG.model_dump(mode="json")) + f'frozen_at: "{written}"\n', encoding="utf-8")
    assert load_config(path).frozen_at == written


def test_an_experiment_of_a_changed_agent_does_not_start(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = _git(repo, "rev-parse", "HEAD")
    (repo / "agent" / "prompts.py").write_text("SYSTEM = 'tuned on the study'\n")
    monkeypatch.setattr(freeze, "PROJECT_ROOT", repo)
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path / "data"))
    config = CONFIG.model_copy(update={"frozen_at": frozen})
    with pytest.raises(ConfigError, match=r"agent/prompts\.py"):
        asyncio.run(run_experiment(config))
    assert not (tmp_path / "data" / "reports").exists()  # refused before anything was made


def test_the_report_names_the_freeze_and_an_unfrozen_configs_digest_is_unchanged() -> None:
    frozen = CONFIG.model_copy(update={"frozen_at": "e27dec8"})
    assert "frozen at commit `e27dec8`" in frozen_agent(frozen)[0]
    assert frozen_agent(CONFIG) == []
    assert "frozen_at" not in CONFIG.model_dump() and config_digest(frozen) != config_digest(CONFIG)
