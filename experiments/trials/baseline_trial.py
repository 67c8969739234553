"""The baseline run of a trial: the loop in a process of its own (`experiments.baseline_process`),
run again on the same trial when a fault kills it, as a user would.

Naive (`baseline`): each rerun starts over under a new run id, so whatever the killed attempt
did is done again, its effects under new idempotency keys. Journaled (`baseline-journal`): every
attempt runs under the trial's one run id with the journal the first attempt started, so a rerun
reads back what the killed attempt had completed and goes on live from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path

from contracts import RunRequest, RunResult, Usage
from experiments.baseline_process import REQUEST, RESULT, STDERR, read_calls, read_steps
from experiments.trials.outcome import TrialOutcome
from experiments.trials.random_time_crash import effects_now
from experiments.trials.spec import Lab, TrialSpec
from lab.processes.child_process import die_with_parent
from settings import PROJECT_ROOT

# A user reruns a crashed baseline at once, at most this many times.
BASELINE_ATTEMPTS = 3
_KILLED = -9


async def run_baseline(spec: TrialSpec, lab: Lab, request: RunRequest, kill_at_s: float | None = None) -> TrialOutcome:
    """`kill_at_s`: a random-time crash's moment, from the first attempt's start (None: none)."""
    journaled = spec.runtime == "baseline-journal"
    journal = lab.scratch / f"{spec.identity}-a1" / "journal.jsonl"
    lost = Usage()
    run_ids: list[str] = []
    killed_step = None
    resumed_at = None
    killed: tuple[float, int | None] | None = None
    for attempt in range(1, BASELINE_ATTEMPTS + 1):
        run_id = request.run_id if journaled else f"{spec.identity}-a{attempt}"
        if run_id not in run_ids:
            run_ids.append(run_id)
        files = lab.scratch / f"{spec.identity}-a{attempt}"
        files.mkdir(parents=True, exist_ok=True)
        (files / REQUEST).write_text(request.model_copy(update={"run_id": run_id}).model_dump_json())
        command = [sys.executable, "-m", "experiments.baseline_process", str(files)]
        command += ["--approval", lab.config.baseline_approval, *(["--journal", str(journal)] if journaled else [])]
        env, log = lab.cluster.env(lab.faults.path), files / STDERR
        timed = await _run_process(command, env, log, kill_at_s if attempt == 1 else None)
        code, killed_at = timed
        if killed_at is not None:
            killed = (killed_at, await effects_now(lab, spec))
        calls = read_calls(files)
        if killed_step is not None and resumed_at is None:
            # Back where the crash left it: the first call made live at the step it was killed in
            # (the naive rerun gets there by doing every step again; the journaled one at once).
            resumed_at = next((call.time for call in calls if call.step >= killed_step), None)
        if code == _KILLED:
            killed_step = max((call.step for call in calls), default=0)
            if not journaled:
                # What it had spent is spent again by a rerun that starts over (the journaled
                # rerun reads it back, and its result counts it once).
                for line in read_steps(files):
                    lost += line.record.usage
            continue
        if code != 0:
            # Kept under the report's logs/ when the experiment ends (experiments.runner).
            said = _last_line(files / STDERR)
            raise RuntimeError(f"the baseline process exited {code}: {said}; its files: logs/{files.name}")
        if killed_step is not None and resumed_at is None:
            resumed_at = time.time()  # a rerun with nothing left to do at that step: done is back
        result = RunResult.model_validate_json((files / RESULT).read_text())
        outcome = TrialOutcome(result=result, run_ids=run_ids, lost=lost, resumed_at=resumed_at)
        if killed is not None:
            outcome.killed_at, outcome.effects_at_kill = killed
            outcome.killed_step = killed_step
        return outcome
    raise RuntimeError(f"the baseline was killed on every one of {BASELINE_ATTEMPTS} attempts")


async def _run_process(
    command: list[str], env: dict[str, str], log: Path, kill_at_s: float | None
) -> tuple[int, float | None]:
    """The process's exit code; and when it was SIGKILLed at `kill_at_s` from its start, as a
    random-time crash (None: it was not, having ended first or not been asked to). What it
    writes to stderr goes to `log`: a process that fails says why there."""
    with log.open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=PROJECT_ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=die_with_parent,
        )
    try:
        if kill_at_s is None:
            return await process.wait(), None
        try:
            return await asyncio.wait_for(asyncio.shield(process.wait()), kill_at_s), None
        except TimeoutError:
            process.kill()
            return await process.wait(), time.time()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


def _last_line(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "it wrote nothing to stderr"
