"""What the core uses is handed in (agent.dependencies): built from a worker's environment in one
place, with no I/O, keys kept out of its repr; the activities, methods of objects built with it,
keep the names recorded histories schedule; two data directories in one process stay apart."""

from __future__ import annotations

import ast
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from temporalio.api.common.v1 import Payload

from activities.registered import all_activities
from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from contracts.activity_names import RETIRED, SCHEDULED
from contracts.errors import ArtifactMissing, StarterError
from contracts.ledger import LedgerEntry
from lab.invariants.payloads import decode
from lab.models.providers import ProviderChoice
from lab.runs.run_diff import read_run
from lab.runs.run_ledger import read_ledger
from settings import PROJECT_ROOT
from starter.run_command import run_dependencies
from tests.lab_dependencies import lab_deps


def test_a_worker_s_dependencies_come_from_its_environment_without_io(tmp_path: Path) -> None:
    data = tmp_path / "not-made-yet"
    env = {
        "AGENT_LAB_DATA": str(data),
        "AGENT_LAB_OPS_URL": "http://127.0.0.1:9",
        "AGENT_LAB_SANDBOX": "process",
        "AGENT_LAB_FAULT_PLAN": str(tmp_path / "plan.json"),
        "LAB_TEST_KEY": "sk-secret",
        "UNRELATED": "x",
    }
    deps = from_environment(env)
    assert deps.data_dir == data and deps.ops_url == "http://127.0.0.1:9" and deps.sandbox == "process"
    assert deps.fault_plan == tmp_path / "plan.json"
    assert dict(deps.api_keys) == {"LAB_TEST_KEY": "sk-secret"} and deps.api_key("LAB_TEST_KEY") == "sk-secret"
    assert "sk-secret" not in repr(deps)
    # The stores are made on first use, not when the object is built.
    assert deps.artifacts.directory == data / "artifacts" and deps.ledgers.directory == data / "ledgers"
    assert not data.exists()

    bare = from_environment({"AGENT_LAB_DATA": str(data)})
    assert (bare.ops_url, bare.sandbox, bare.fault_plan, dict(bare.api_keys)) == (None, "auto", None, {})


def test_the_activities_are_registered_under_the_names_the_workflow_schedules() -> None:
    """Exactly those: a name only retired builds scheduled (docs/decisions/0006) is not offered."""
    registered = all_activities(Dependencies(data_dir=Path("/nonexistent")))
    names = [activity.__temporal_activity_definition.name for activity in registered]  # type: ignore[attr-defined]
    assert set(names) == SCHEDULED and len(names) == len(set(names))
    assert not set(names) & RETIRED


def test_two_data_directories_in_one_process_stay_apart(tmp_path: Path) -> None:
    """What an environment variable could not do: two sets of dependencies side by side."""
    one, two = Dependencies(data_dir=tmp_path / "one"), Dependencies(data_dir=tmp_path / "two")
    entry = LedgerEntry(event_id="r/run/run_started", type="run_started", run_id="r", time=datetime.now(UTC))
    one.ledgers.append("r", [entry], "w")
    assert one.ledgers.path("r").is_file() and not two.ledgers.path("r").exists()
    stored = two.artifacts.put_bytes(b"payload")
    assert Path(stored.path).is_relative_to(tmp_path / "two") and not (tmp_path / "one" / "artifacts").exists()


def test_the_readers_of_recorded_runs_read_the_data_directory_they_are_handed(tmp_path: Path) -> None:
    """Not this process's (AGENT_LAB_DATA): the command or the experiment that calls them says
    which, so one process can read a cluster's runs beside its own."""
    elsewhere, run_id = Dependencies(data_dir=tmp_path / "elsewhere"), f"elsewhere-{uuid.uuid4().hex[:8]}"
    entry = LedgerEntry(event_id=f"{run_id}/run_started", type="run_started", run_id=run_id, time=datetime.now(UTC))
    elsewhere.ledgers.append(run_id, [entry], "w")
    assert [event.type for event in read_ledger(elsewhere.ledgers, run_id)] == ["run_started"]
    assert read_run(elsewhere.ledgers, run_id).run_id == run_id
    with pytest.raises(StarterError, match="no ledger at"):
        read_ledger(lab_deps().ledgers, run_id)
    # A history's payload held by reference (host/converter.py) is read from the store handed in.
    value = {"run_id": run_id}
    payload = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(value).encode())
    sha256 = elsewhere.artifacts.put_bytes(payload.SerializeToString()).sha256
    claim = json.dumps({"claimData": {"sha256": sha256}}).encode()
    reference = Payload(metadata={"messageType": b"temporal.api.sdk.v1.ExternalStorageReference"}, data=claim)
    assert decode(reference, elsewhere.artifacts) == value
    with pytest.raises(ArtifactMissing):
        decode(reference, lab_deps().artifacts)


def test_only_the_builder_reads_the_environment_in_the_core() -> None:
    """The import contract keeps `settings` out of `agent`; this keeps `os.environ` and
    `os.getenv` out of it too, but for the builder, and the places that pass an environment
    on (a child's) or read the Docker SDK's own variable."""
    allowed = {
        "agent/dependencies_from_environment.py",  # the builder
        "agent/checkpoint_git.py",  # PATH for the git it spawns
        "agent/policy/tool_arguments.py",  # the secrets an argument must not carry: an `environ` given, else this one
        "agent/policy/python_code.py",  # names `os.environ` as something a script may not read
        "agent/sandbox/docker_engine.py",  # DOCKER_HOST, as the Docker SDK itself reads it
    }
    readers = []
    for path in sorted((PROJECT_ROOT / "agent").rglob("*.py")):
        name = path.relative_to(PROJECT_ROOT).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            attribute = isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
            if attribute and isinstance(node.value, ast.Name) and node.value.id == "os":  # type: ignore[attr-defined]
                readers.append(name)
    assert sorted(set(readers) - allowed) == []


def test_the_starter_hands_its_service_and_the_given_key_to_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--api-key` and the service the starter started reach the run's worker or baseline in its
    Dependencies; this process's environment is left as it was."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    choice = ProviderChoice.resolve("openai", "a-model", "https://api.example.invalid/v1", "sk-given", 0)
    deps = run_dependencies(from_environment(), "http://127.0.0.1:9", choice)
    assert deps.ops_url == "http://127.0.0.1:9" and deps.api_key("OPENAI_API_KEY") == "sk-given"
    assert "OPENAI_API_KEY" not in os.environ and "AGENT_LAB_OPS_URL" not in os.environ
    assert "sk-given" not in repr(choice)
