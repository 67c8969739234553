"""What produced an experiment's figures is recorded with them and said at the top of its
report; a result from before the record says that it has none."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from experiments import provenance as provenance_module
from experiments.config import ExperimentConfig, ProviderSpec
from experiments.provenance import Provenance, config_digest, provenance
from experiments.report import render_summary, rewrite_report, write_report
from tests.test_report import CONFIG, FINISHED, STARTED, synthetic_trials


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("a = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "one")
    return repo


def test_a_clean_tree_records_its_commit_and_no_change(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    recorded = provenance(CONFIG, project=repo)
    assert recorded.commit == _git(repo, "rev-parse", "HEAD")
    assert recorded.uncommitted == [] and not recorded.dirty
    assert recorded.cores >= 1 and recorded.cpu and recorded.python.count(".") == 2
    assert recorded.temporalio[0].isdigit() and recorded.temporal_cli.startswith("temporal version")
    assert recorded.config_sha256 == config_digest(CONFIG) and recorded.model is None


def test_a_dirty_tree_names_every_changed_and_new_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "a.py").write_text("a = 2\n")  # changed in the work tree only: " M a.py"
    (repo / "new.py").write_text("b = 1\n")
    recorded = provenance(CONFIG, project=repo)
    assert recorded.dirty and sorted(recorded.uncommitted) == ["a.py", "new.py"]


def test_the_cassette_an_experiment_records_is_not_a_change_to_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    (repo / "cassettes").mkdir()
    (repo / "cassettes" / "live.jsonl").write_text("{}\n")  # recorded by the experiment's first part
    (repo / "b.py").write_text("b = 1\n")
    monkeypatch.setattr(provenance_module, "_model", lambda provider: None)  # no weights to hash here
    spec = ProviderSpec(kind="local", model="qwen15", cassette="cassettes/live.jsonl")
    recording = CONFIG.model_copy(update={"provider": spec})
    assert provenance(recording, project=repo).uncommitted == ["b.py"]
    assert sorted(provenance(CONFIG, project=repo).uncommitted) == ["b.py", "cassettes/live.jsonl"]


def test_the_config_digest_follows_the_config() -> None:
    again = ExperimentConfig.model_validate(CONFIG.model_dump())
    assert config_digest(again) == config_digest(CONFIG)
    assert config_digest(CONFIG.model_copy(update={"trials": 4})) != config_digest(CONFIG)


def test_a_local_model_is_recorded_by_its_files_digest(tmp_path: Path) -> None:
    weights = tmp_path / "tiny.gguf"
    weights.write_bytes(b"GGUF" + bytes(range(256)) * 8)
    config = CONFIG.model_copy(update={"provider": ProviderSpec(kind="local", model=str(weights))})
    recorded = provenance(config, project=_repo(tmp_path))
    assert recorded.model is not None and recorded.model.name == "tiny"
    assert recorded.model.sha256 == hashlib.sha256(weights.read_bytes()).hexdigest()
    # Forks made later with another model record that one.
    forks = provenance(CONFIG, ProviderSpec(kind="local", model=str(weights)), project=tmp_path / "repo")
    assert forks.model == recorded.model


def test_the_report_leads_with_what_produced_it_and_warns_of_a_dirty_tree(tmp_path: Path) -> None:
    recorded = Provenance(
        commit="0123456789abcdef" * 2 + "01234567",
        uncommitted=["agent/x.py"],
        python="3.11.7",
        temporalio="1.35.0",
        temporal_cli="temporal version 1.9.1",
        cpu="Some CPU",
        cores=2,
        config_sha256=config_digest(CONFIG),
    )
    write_report(tmp_path, CONFIG, "synthetic-1", synthetic_trials(), STARTED, FINISHED, provenance=recorded)
    head = (tmp_path / "report.md").read_text().split("## Method")[0]
    assert "**Uncommitted changes**" in head and "`agent/x.py`" in head
    assert "commit `0123456789ab` (with uncommitted changes)" in head and "Some CPU, 2 cores" in head
    assert json.loads((tmp_path / "results.json").read_text())["provenance"]["commit"] == recorded.commit
    assert "Produced by commit 0123456789ab, with 1 uncommitted changed files" in render_summary(tmp_path)
    # Drawn again from its raw files, it keeps what it recorded.
    rewrite_report(tmp_path)
    assert "**Uncommitted changes**" in (tmp_path / "report.md").read_text()


def test_a_result_from_before_the_record_says_it_has_none(tmp_path: Path) -> None:
    write_report(tmp_path, CONFIG, "synthetic-1", synthetic_trials(), STARTED, FINISHED)
    document = json.loads((tmp_path / "results.json").read_text())
    del document["provenance"]  # as results written before it were
    (tmp_path / "results.json").write_text(json.dumps(document))
    rewrite_report(tmp_path)
    assert "**Provenance not recorded**" in (tmp_path / "report.md").read_text().split("## Method")[0]
    assert "Provenance: not recorded" in render_summary(tmp_path)
