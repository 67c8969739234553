"""A worker's log records say which run, activity, step and tool they are about, in text or as
JSON lines; a log format that is not one is one clear line."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import uuid
from datetime import timedelta

from temporalio import activity, workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from contracts import ActionProposal
    from contracts.envelopes import ExecuteAndCheckInput, ExecuteToolInput
    from host.logs import JsonLines, RunContext, _AboutFilter, step_and_tool
    from settings import PROJECT_ROOT

LOGGER = "tests.worker_logging"


def execution(step: int, tool: str) -> ExecuteToolInput:
    proposal = ActionProposal(tool=tool, arguments={"path": "a.py"}, thought="look")
    return ExecuteToolInput(workspace="/w", proposal=proposal, run_id="run-1", step=step)


@activity.defn
async def logs_about_its_call(call: ExecuteToolInput) -> None:
    logging.getLogger(LOGGER).warning("ran %s", call.proposal.tool)


@workflow.defn(sandboxed=False)
class OneLoggingActivity:
    @workflow.run
    async def run(self, call: ExecuteToolInput) -> None:
        await workflow.execute_activity(logs_about_its_call, call, start_to_close_timeout=timedelta(seconds=30))


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def test_a_record_logged_in_an_activity_names_its_run_step_and_tool(env: WorkflowEnvironment) -> None:
    kept = Kept()
    kept.addFilter(_AboutFilter())
    kept.setFormatter(JsonLines())
    logger = logging.getLogger(LOGGER)
    logger.addHandler(kept)
    try:
        queue = f"logging-{uuid.uuid4().hex[:8]}"
        async with Worker(
            env.client,
            task_queue=queue,
            workflows=[OneLoggingActivity],
            activities=[logs_about_its_call],
            interceptors=[RunContext()],
        ):
            await env.client.execute_workflow(
                OneLoggingActivity.run, execution(7, "read_file"), id=queue, task_queue=queue
            )
        logger.warning("after the run")
    finally:
        logger.removeHandler(kept)
    inside, outside = (json.loads(line) for line in kept.lines)
    assert inside["message"] == "ran read_file" and inside["level"] == "WARNING"
    assert (inside["run_id"], inside["step"], inside["tool"]) == (queue, "7", "read_file")
    assert (inside["activity"], inside["attempt"]) == ("logs_about_its_call", "1")
    # Outside an activity a record is about nothing in particular.
    assert outside["message"] == "after the run" and "run_id" not in outside and "step" not in outside


def test_the_step_and_tool_are_found_in_inputs_that_wrap_a_call() -> None:
    call = execution(3, "replace_in_file")
    fused = ExecuteAndCheckInput(execution=call, check=None)
    assert step_and_tool([fused]) == {"step": "3", "tool": "replace_in_file"}
    assert step_and_tool([call]) == {"step": "3", "tool": "replace_in_file"}
    assert step_and_tool(["not a model", 5]) == {}


def test_the_standalone_worker_names_runs_in_its_logs_and_counts_metrics() -> None:
    from host.main import interceptors
    from host.metrics import LabMetrics
    from host.shutdown import ActivityTally

    kinds = {type(interceptor) for interceptor in interceptors(ActivityTally())}
    assert {RunContext, LabMetrics, ActivityTally} <= kinds


def test_a_log_format_that_is_not_one_is_one_line() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TEMPORAL_")}
    env["AGENT_LAB_LOG_FORMAT"] = "xml"
    done = subprocess.run(
        [sys.executable, "worker.py"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: AGENT_LAB_LOG_FORMAT must be text or json, not 'xml'"]
