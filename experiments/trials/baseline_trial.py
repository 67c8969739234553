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
from experiments.trial_record import TimedCrash
from experiments.trials.outcome import TrialOutcome
from experiments.trials.random_time_crash import BASELINE_MODEL_CALL, crash_moment, effects_now
from experiments.trials.spec import Lab, TrialSpec
from lab.processes.child_process import die_with_parent
from settings import PROJECT_ROOT

# A user reruns a crashed baseline at once, at most this many times.
BASELINE_ATTEMPTS = 3
_KILLED = -9


async def run_baseline(spec: TrialSpec, lab: Lab, request: RunRequest, crash: TimedCrash | None = None) -> TrialOutcome:
    """`crash`: a random-time crash to kill the first attempt at (None: none)."""
    journaled = spec.runtime == "baseline-journal"
    journal = lab.scratch / f"{spec.identity}-a1" / "journal.jsonl"
    lost = Usage()
    run_ids: list[str] = []
    killed_step = None
    resumed_at = None
    killed: tuple[float, int | None] | None = None
    process_started_at: float | None = None
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
        code, killed_at, started_at = await _run_process(command, env, log, files, crash if attempt == 1 else None)
        if attempt == 1:
            process_started_at = started_at
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
        outcome = TrialOutcome(
            result=result, run_ids=run_ids, lost=lost, resumed_at=resumed_at, process_started_at=process_started_at
        )
        if killed is not None:
            outcome.killed_at, outcome.effects_at_kill = killed
            outcome.killed_step = killed_step
        return outcome
    raise RuntimeError(f"the baseline was killed on every one of {BASELINE_ATTEMPTS} attempts")


async def _run_process(
    command: list[str], env: dict[str, str], log: Path, files: Path, crash: TimedCrash | None
) -> tuple[int, float | None, float]:
    """The process's exit code; when it was SIGKILLed at `crash`'s moment, as a random-time crash
    (None: it was not, having ended first or not been asked to); and when it started (epoch
    seconds). `files`: the attempt's directory, where it writes its live calls. What it writes
    to stderr goes to `log`: a process that fails says why there."""
    with log.open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=PROJECT_ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=die_with_parent,
        )
    started_at = time.time()
    try:
        if crash is None:
            return await process.wait(), None, started_at
        ended = asyncio.ensure_future(process.wait())
        killer = asyncio.ensure_future(_at_moment(crash, started_at, files))
        try:
            await asyncio.wait({ended, killer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            killer.cancel()
        if ended.done():
            return ended.result(), None, started_at
        killer.result()  # the watch's own error, if it failed: not a kill it never asked for
        try:
            process.kill()
        except ProcessLookupError:
            # It exited as its moment came, before its wait was seen to end: the run ended
            # first, so it was not crashed (this was counted an infrastructure failure).
            return await process.wait(), None, started_at
        return await process.wait(), time.time(), started_at
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


async def _at_moment(crash: TimedCrash, started_at: float, files: Path) -> None:
    """Returns at the crash's moment, for a process that started at `started_at`."""
    moment = await crash_moment(crash, started_at, lambda calls: model_call_started(files, calls))
    if moment is not None:
        await asyncio.sleep(max(0.0, moment - time.time()))


# How often a crash run's live calls are read while its moment is awaited: a file of a few lines,
# read in well under a millisecond, so the moment is placed to a few tens of ms.
CALLS_POLL_S = 0.03


async def model_call_started(files: Path, calls: int) -> float:
    """When (epoch seconds) the attempt whose directory is `files` started its `calls`-th live
    model call: waits until it has (whoever waits stops waiting when the process ends)."""
    while True:
        started = model_calls_at(files)
        if len(started) >= calls:
            return started[calls - 1]
        await asyncio.sleep(CALLS_POLL_S)


def model_calls_at(files: Path) -> list[float]:
    """When (epoch seconds) the attempt whose directory is `files` started each live model call."""
    return [call.time for call in read_calls(files) if call.call == BASELINE_MODEL_CALL]


def baseline_timeline(lab: Lab, spec: TrialSpec, started_at: float | None) -> list[float]:
    """A baseline run's model calls' starts, in seconds from its first process's start: that
    attempt's (a rerun after a crash starts a process, and a timeline, of its own)."""
    if started_at is None:
        return []
    return [at - started_at for at in model_calls_at(lab.scratch / f"{spec.identity}-a1")]


def _last_line(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "it wrote nothing to stderr"
