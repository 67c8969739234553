"""The Temporal Web UI as a person sees it, in headless Chromium: a run that did not complete its
task is listed as Failed, not as a success; the run page shows the summary and the goal, the
failure names the outcome, and the timeline names each activity's step; a run of parallel
subtasks lists its child workflows, and each child links back to its parent.

Needs Chromium (Debian package `chromium`, or CHROMIUM=path) and Playwright (`uv sync --group
browser`); skipped, with the reason, without them. Playwright drives the system's Chromium by
path: nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from tests.conftest import free_port
from tests.test_cli import cli_env, spawn, starter, wait_closed, wait_listening

if TYPE_CHECKING:
    from playwright.async_api import Page

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# As root Chromium's own sandbox cannot start; this machine's closed network refuses the
# background connections a default profile makes.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDE = {"width": 1400, "height": 900}
# The UI renders from the server's API after load; its pages can take a few seconds on 2 cores.
SHOWN_MS = 30_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(300),
    pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium: apt-get install chromium (or CHROMIUM=path)"),
]
playwright = pytest.importorskip("playwright.async_api", reason="needs Playwright: uv sync --group browser")
expect = playwright.expect


@dataclass(frozen=True)
class Runs:
    ui: str
    completed: str
    failed: str
    failed_output: str
    parallel: str
    parallel_plan: list[str]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """`starter server` with its Web UI, and three runs against it: one that completes its task,
    one whose budget ends it, and one whose independent subtasks run as child workflows."""
    port, ui_port = free_port(), free_port()
    env = cli_env(
        AGENT_LAB_DEV_PORT=str(port),
        AGENT_LAB_UI_PORT=str(ui_port),
        AGENT_LAB_DATA=str(tmp_path_factory.mktemp("web-ui")),
    )
    server = spawn("-m", "starter", "server", env=env)
    try:
        wait_listening(port)
        wait_listening(ui_port)
        completed = starter("run", "--task", "bugfix-median", env=env)
        assert completed.returncode == 0, completed.stdout + completed.stderr
        failed = starter("run", "--task", "bugfix-median", "--max-steps", "1", env=env)
        assert failed.returncode == 1, failed.stdout + failed.stderr
        parallel = starter("run", "--task", "independent-parts", "--parallel-subtasks", env=env)
        assert parallel.returncode == 0, parallel.stdout + parallel.stderr
        yield Runs(
            ui=f"http://localhost:{ui_port}",
            completed=_run_link(completed),
            failed=_run_link(failed),
            failed_output=failed.stdout,
            parallel=_run_link(parallel),
            parallel_plan=_plan(parallel),
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    wait_closed(port)


@pytest.fixture
async def page(runs: Runs) -> AsyncIterator[Page]:
    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page(viewport=WIDE)
        finally:
            await browser.close()


async def test_the_list_tells_a_failed_run_from_a_completed_one(runs: Runs, page: Page) -> None:
    await page.goto(f"{runs.ui}/namespaces/default/workflows")
    for link, status in ((runs.completed, "Completed"), (runs.failed, "Failed")):
        row = page.get_by_role("row").filter(has_text=_workflow_id(link))
        await expect(row).to_have_count(1, timeout=SHOWN_MS)
        await expect(row).to_contain_text(re.compile(status, re.IGNORECASE))
        other = "Failed" if status == "Completed" else "Completed"
        await expect(row).not_to_contain_text(re.compile(other, re.IGNORECASE))


async def test_a_failed_run_page_names_its_outcome_summary_and_goal(runs: Runs, page: Page) -> None:
    await page.goto(runs.failed)
    header = page.get_by_role("heading", name=_workflow_id(runs.failed))
    await expect(header).to_be_visible(timeout=SHOWN_MS)
    # The failure is the run's outcome and why, not a stack of a bug.
    await expect(page.get_by_text("BUDGET_EXHAUSTED: the run's budget of 1 step is spent").first).to_be_visible(
        timeout=SHOWN_MS
    )
    await page.get_by_role("tab", name="User Metadata").click()
    # Summary and details are rendered as Markdown, each in a frame of its own under its heading.
    await expect(page.get_by_role("heading", name="Summary")).to_be_visible(timeout=SHOWN_MS)
    summary, details = page.frame_locator("iframe").nth(0), page.frame_locator("iframe").nth(1)
    await expect(summary.get_by_text("durable agent run on task bugfix-median")).to_be_visible(timeout=SHOWN_MS)
    await expect(details.get_by_text(re.compile(r"Goal: The\s+textstats\s+test suite fails"))).to_be_visible()


async def test_the_timeline_names_each_activity_by_its_step(runs: Runs, page: Page) -> None:
    await page.goto(runs.completed.removesuffix("/history") + "/timeline")
    for summary in ("check the goal's acceptance", "step 1: run_command(command='python -m pytest -q')"):
        await expect(page.get_by_text(summary, exact=False).first).to_be_visible(timeout=SHOWN_MS)


async def test_a_parallel_run_and_its_subtasks_link_both_ways(runs: Runs, page: Page) -> None:
    parent = _workflow_id(runs.parallel)
    await page.goto(runs.parallel.removesuffix("/history") + "/relationships")
    # Each subtask ran as a child whose id is the parent's, the plan version and the subtask.
    children = [page.get_by_role("link", name=f"{parent}.v1.{task}", exact=True) for task in runs.parallel_plan]
    for link in children:
        await expect(link).to_be_visible(timeout=SHOWN_MS)
    await children[0].click()
    await expect(page.get_by_role("heading", name=f"{parent}.v1.{runs.parallel_plan[0]}")).to_be_visible(
        timeout=SHOWN_MS
    )
    back = page.get_by_role("link", name=parent, exact=True)
    await expect(back).to_be_visible(timeout=SHOWN_MS)
    await back.click()
    # The page's heading is the id after a copy button's name: the parent's, not a child's.
    await expect(page.get_by_role("heading", name=re.compile(rf"{re.escape(parent)}$"))).to_be_visible(timeout=SHOWN_MS)


def _run_link(result: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"Web UI: (http://\S+/history)", result.stdout)
    assert found, result.stdout
    return found.group(1)


def _plan(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The plan's subtasks, as `starter run` printed them: a chain as `a -> b -> c`, any other
    plan with each subtask's dependencies after it, `a, b, c (after a, b)`."""
    found = re.search(r"^  plan: (.+)$", result.stdout, re.MULTILINE)
    assert found, result.stdout
    subtasks = re.sub(r" \(after [^)]*\)", "", found[1]).replace(" -> ", ", ").split(", ")
    assert len(subtasks) > 1, result.stdout  # children to list, not one
    return subtasks


def _workflow_id(link: str) -> str:
    return link.split("/workflows/")[1].split("/")[0]
