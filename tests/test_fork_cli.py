"""`starter run`, then `starter fork` and `starter diff` from the command line, as a person runs
them: an operations task on the starter's own service and its embedded dev server, each command
a process of its own. The fork's carried steps say so, its model calls are told apart, and the
service logs no second refund."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.test_cli import cli_env, starter

pytestmark = pytest.mark.timeout(240)


def test_a_run_forked_and_diffed_from_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    # Its own dev server's ports: the default ones may be another test's embedded server.
    ports = {"AGENT_LAB_DEV_PORT": str(free_port()), "AGENT_LAB_UI_PORT": str(free_port())}
    env = cli_env(AGENT_LAB_DATA=str(data), **ports)
    env.pop("AGENT_LAB_OPS_URL", None)  # the starter's own service, which keeps every tenant
    ran = starter("run", "--task", "refund-duplicate-charge", env=env)
    assert ran.returncode == 0, ran.stderr
    [parent] = re.findall(r"^> durable run (\S+) on task", ran.stdout, re.MULTILINE)

    forked = starter("fork", parent, "--from-step", "2", env=env)
    assert forked.returncode == 0, forked.stderr
    [child] = re.findall(r"^> durable run (\S+) on task", forked.stdout, re.MULTILINE)
    steps = [line for line in forked.stdout.splitlines() if line.lstrip().startswith("step ")]
    assert len(steps) == 3, forked.stdout
    assert all("(carried over)" in line for line in steps[:2]) and "(carried over)" not in steps[2]
    assert "model calls: 1 made by the fork, 2 carried over with steps 1..2" in forked.stdout
    assert "end state judged: 5/5 postconditions hold" in forked.stdout

    log = (data / "ops" / "service.log").read_text()
    assert len(re.findall(rf"POST /refunds tenant={re.escape(parent)} 201", log)) == 1
    assert f"POST /fork tenant={child} 201" in log
    assert f"POST /refunds tenant={child} " not in log  # the parent's refund, copied: none made

    diffed = starter("diff", parent, child, env=env)
    assert diffed.returncode == 0, diffed.stderr
    assert "the same 3 steps in both" in diffed.stdout

    # From step 0 nothing is carried over, and the fork says so (not "steps 1..0").
    whole = starter("fork", parent, "--from-step", "0", env=env)
    assert whole.returncode == 0, whole.stderr
    assert f"fork of {parent} after step 0: no steps carried over" in whole.stdout
    assert "1..0" not in whole.stdout and "(carried over)" not in whole.stdout
    assert re.search(r"^  model calls: \d+ made by the fork, 0 carried over$", whole.stdout, re.MULTILINE)
