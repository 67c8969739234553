"""The baseline run of a trial: the loop in a process of its own (`experiments.baseline_process`),
run again on the same trial when a fault kills it, as a user would."""

from __future__ import annotations

import asyncio
import contextlib
import sys

from contracts import RunRequest, RunResult, Usage
from experiments.baseline_process import read_journal
from experiments.trials.outcome import TrialOutcome
from experiments.trials.spec import Lab, TrialSpec
from lab.processes.child_process import die_with_parent
from settings import PROJECT_ROOT

# A user reruns a crashed baseline at once, at most this many times.
BASELINE_ATTEMPTS = 3
_KILLED = -9


async def run_baseline(spec: TrialSpec, lab: Lab, request: RunRequest, fault_index: int | None) -> TrialOutcome:
    lost = Usage()
    run_ids: list[str] = []
    killed_steps = 0
    resumed_at = None
    for attempt in range(1, BASELINE_ATTEMPTS + 1):
        attempt_request = request.model_copy(update={"run_id": f"{spec.identity}-a{attempt}"})
        run_ids.append(attempt_request.run_id)
        files = lab.scratch / attempt_request.run_id
        files.mkdir(parents=True, exist_ok=True)
        (files / "request.json").write_text(attempt_request.model_dump_json())
        code = await _run_process(
            [
                sys.executable,
                "-m",
                "experiments.baseline_process",
                *(str(files / n) for n in ("request.json", "result.json", "journal.jsonl")),
                lab.config.baseline_approval,
            ],
            lab.cluster.env(lab.faults.path),
        )
        journal = read_journal(files / "journal.jsonl")
        if code == _KILLED:
            for line in journal:
                lost += line.record.usage
            killed_steps = len(journal)
            continue
        if code != 0:
            # Kept under the report's logs/ when the experiment ends (experiments.runner).
            raise RuntimeError(f"the baseline process exited {code}; its files: logs/{files.name}")
        if attempt > 1:
            # Back where the crash left it: the rerun's step that matches the lost run's last.
            caught_up = [line.time for line in journal if line.record.step >= max(killed_steps, 1)]
            resumed_at = caught_up[0] if caught_up else None
        result = RunResult.model_validate_json((files / "result.json").read_text())
        return TrialOutcome(result=result, run_ids=run_ids, lost=lost, resumed_at=resumed_at)
    raise RuntimeError(f"the baseline was killed on every one of {BASELINE_ATTEMPTS} attempts")


async def _run_process(command: list[str], env: dict[str, str]) -> int:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    try:
        return await process.wait()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
