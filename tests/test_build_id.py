"""A worker's build id (worker.build_id): a hash of the code it runs, not of every module the
process loaded, so a worker starts without compiling its whole environment again."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client

import settings
import worker


def _tree(root: Path) -> None:
    for package in ("contracts", "agent", "activities", "workflows"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(f"# {package}\n")
    (root / "uv.lock").write_text("version = 1\n")


def test_the_build_id_follows_the_code_a_worker_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    compute = worker.build_id.__wrapped__
    first = compute()
    assert first == compute() and first.startswith("agent-lab-")
    (tmp_path / "docs.md").write_text("not code a worker runs\n")
    assert compute() == first
    (tmp_path / "workflows" / "__init__.py").write_text("# workflows, changed\n")
    changed = compute()
    assert changed != first
    (tmp_path / "uv.lock").write_text("version = 2\n")
    assert compute() not in (first, changed)


async def test_a_worker_is_built_with_it(client: Client) -> None:
    assert worker.build_worker(client, "build-id").config()["build_id"] == worker.build_id()
