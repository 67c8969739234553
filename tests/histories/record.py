"""Record the histories the determinism guard replays (tests/test_replay.py).

    uv run python -m tests.histories.record [NAME ...]

Run it when a change to workflow code is *meant* to change what the workflow does, and commit
the new files; a change that is not meant to must leave the old histories replaying. With
names, only those are recorded again. A change that retires a behaviour moves the histories
that recorded it to `retired/`, with the build that replays them (docs/decisions/0006).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

import yaml
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from contracts import Approve, FileContains, PolicyProfile, ProviderConfig, RunRequest
from host.build import build_worker
from host.converter import DATA_CONVERTER
from lab.runs.catalog import load_task
from lab.runs.fork import fork_request
from lab.runs.run_request import build_request
from tests.conftest import DEV_SERVER, FAST_DEV_SERVER_ARGS
from tests.histories import stored
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

HERE = Path(__file__).parent
QUEUE = "record-histories"
WRONG_FIX = HERE.parent / "scripts" / "bugfix_wrong_fix.yaml"
WANTED = set(sys.argv[1:])


async def record(client: Client, name: str, request: RunRequest, approve: bool = False) -> None:
    if WANTED and name not in WANTED:
        return
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=QUEUE)
    if approve:
        while (progress := await handle.query(AgentRunWorkflow.progress, 0)).pending_approval is None:
            await asyncio.sleep(0.05)
        digest = progress.pending_approval.arguments_sha256
        await handle.execute_update(AgentRunWorkflow.approve, Approve(approver="recorder", arguments_sha256=digest))
    result = await run_result(handle)
    # The first run's history: for a run that continued as new, the generation that did so.
    history = await client.get_workflow_handle(request.run_id, run_id=handle.first_execution_run_id).fetch_history()
    (HERE / f"{name}.json").write_text(history.to_json())
    stored.keep(json.loads(history.to_json()))
    print(f"{name}: {len(history.events)} events in its first run, outcome {result.outcome}")


def approval_request(scratch: Path) -> RunRequest:
    """A write under the read-only profile: the run waits for a person, who approves."""
    fixture = scratch / "fixture"
    fixture.mkdir()
    (fixture / "notes.txt").write_text("todo\n")
    actions = [{"tool": "write_file", "arguments": {"path": "notes.txt", "content": "done\n"}}]
    done = {"kind": "file_contains", "path": "notes.txt", "text": "done"}
    script = {
        "goal": {"summary": "notes"},
        "plan": [{"id": "t", "title": "t", "postconditions": [done], "actions": actions}],
    }
    (scratch / "script.yaml").write_text(yaml.safe_dump(script))
    return RunRequest(
        run_id=f"approval-{uuid.uuid4().hex[:8]}",
        runtime="durable",
        task_id="approval",
        goal="Write done into notes.txt.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path="notes.txt", text="done")],
        provider=ProviderConfig(script_path=str(scratch / "script.yaml")),
        profile=PolicyProfile.READ_ONLY,
    )


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="record-histories-") as scratch:
        os.environ["AGENT_LAB_DATA"] = scratch
        for name, extra in (("plain", []), ("continued", ["limit.historyCount.suggestContinueAsNew=40"])):
            args = [*FAST_DEV_SERVER_ARGS, *[part for value in extra for part in ("--dynamic-config-value", value)]]
            env = await WorkflowEnvironment.start_local(
                data_converter=DATA_CONVERTER,
                dev_server_existing_path=str(DEV_SERVER),
                dev_server_extra_args=args,
            )
            try:
                async with build_worker(env.client, QUEUE):
                    if name == "plain":
                        await record(
                            env.client, "rename_refactor", build_request(load_task("rename-refactor"), "durable")
                        )
                        wrong = build_request(load_task("bugfix-median"), "durable").model_copy(
                            update={"provider": ProviderConfig(script_path=str(WRONG_FIX))}
                        )
                        await record(env.client, "wrong_fix", wrong)
                        spent = build_request(load_task("bugfix-median"), "durable", max_steps=1)
                        await record(env.client, "budget_exhausted", spent)
                        await record(env.client, "approval", approval_request(Path(scratch)), approve=True)
                        # A read verified and run in one local activity, a write executed and
                        # checked in one activity, each step's record written by the next proposal.
                        await record(env.client, "bugfix_median", build_request(load_task("bugfix-median"), "durable"))
                        # A plan's independent tasks at once as child workflows, merged back
                        # (RunRequest.parallel_subtasks): the parent's history.
                        independent = build_request(load_task("independent-parts"), "durable", parallel_subtasks=True)
                        await record(env.client, "parallel_subtasks", independent)
                        if not WANTED or "parallel_subtasks" in WANTED:
                            # And one of its children: a subtask's run, in its worktree.
                            child = env.client.get_workflow_handle(f"{independent.run_id}.v1.slug")
                            kept = await child.fetch_history()
                            (HERE / "parallel_subtask_child.json").write_text(kept.to_json())
                            stored.keep(json.loads(kept.to_json()))
                        # A fork of another run after its step K (`starter fork`): the wrong fix,
                        # live from step 2 of a right one.
                        if not WANTED or "forked" in WANTED:
                            parent = build_request(load_task("bugfix-median"), "durable")
                            handle = await env.client.start_workflow(
                                AgentRunWorkflow.run, parent, id=parent.run_id, task_queue=QUEUE
                            )
                            await run_result(handle)
                            wrong_script = ProviderConfig(script_path=str(WRONG_FIX))
                            await record(
                                env.client,
                                "forked",
                                await fork_request(env.client, lab_deps(), parent.run_id, 1, wrong_script),
                            )
                    else:
                        await record(env.client, "continued", build_request(load_task("rename-refactor"), "durable"))
            finally:
                await env.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
