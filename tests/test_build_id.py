"""A worker's build id (host.build.build_id): a hash of the code it runs, not of every module the
process loaded, so a worker starts without compiling its whole environment again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.client import Client

import settings
from host import build
from host.build import WORKER_PACKAGES, build_sources


def _tree(root: Path) -> None:
    for package in WORKER_PACKAGES:
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(f"# {package}\n")
    (root / "uv.lock").write_text("version = 1\n")


def test_the_build_id_follows_the_code_a_worker_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    compute = build.build_id.__wrapped__
    first = compute()
    assert first == compute() and first.startswith("agent-lab-")
    (tmp_path / "docs.md").write_text("not code a worker runs\n")
    assert compute() == first
    (tmp_path / "workflows" / "__init__.py").write_text("# workflows, changed\n")
    changed = compute()
    assert changed != first
    (tmp_path / "uv.lock").write_text("version = 2\n")
    third = compute()
    assert third not in (first, changed)
    # A module added to a package changes the build, with no list of files to keep up to date.
    (tmp_path / "host" / "new_part.py").write_text("ANSWER = 42\n")
    assert compute() not in (first, changed, third)


def test_every_project_module_a_worker_loads_is_in_its_build() -> None:
    """What a running worker imports (its entry point, the worker it builds, its command line)
    is hashed: a module outside the build's files would change the worker's code without
    changing its version, and a pinned run could replay on code it did not start on."""
    probe = (
        "import sys, runpy\n"
        "import worker, host.main, host.build\n"
        "root = sys.argv[1]\n"
        "print('\\n'.join(sorted(m.__file__ for m in list(sys.modules.values())\n"
        "    if getattr(m, '__file__', None) and m.__file__.startswith(root + '/') and '/.venv/' not in m.__file__)))\n"
    )
    root = settings.PROJECT_ROOT
    loaded = subprocess.run(
        [sys.executable, "-c", probe, str(root)], cwd=root, capture_output=True, text=True, timeout=120, check=True
    ).stdout.split()
    hashed = {str(path) for path in build_sources(root)}
    assert loaded and set(loaded) <= hashed, sorted(set(loaded) - hashed)


async def test_a_worker_is_built_with_it(client: Client) -> None:
    assert build.build_worker(client, "build-id").config()["build_id"] == build.build_id()
