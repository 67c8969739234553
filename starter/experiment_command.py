"""`python -m starter experiment run --config FILE`, `experiment report [--run-id ID|DIR]` and
`experiment configs`.

Bad input is told before anything heavy loads: the runner brings Temporal's SDK and the report
brings matplotlib, seconds that a mistyped path should not wait for.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from contracts.errors import ConfigError, StarterError
from experiments.config import CounterfactualConfig
from experiments.config_loader import CONFIGS_DIR, load_config
from settings import PROJECT_ROOT

# As experiments.report names it: that module brings matplotlib, not needed to find a report.
RESULTS_JSON = "results.json"
# As experiments.resume names it.
START_JSON = "experiment.json"

T = TypeVar("T")


async def stopped_by_sigterm(work: Awaitable[T]) -> T:
    """`work`, which SIGTERM stops as Ctrl-C does: the trials recorded are kept, the cluster is
    stopped, and the resume command is said. An experiment of hours runs in the background, and
    a shell starts a background job with SIGINT ignored, so `kill PID` is how it is stopped."""
    task = asyncio.ensure_future(work)
    terminated = False

    def stop() -> None:
        nonlocal terminated
        terminated = True
        task.cancel()

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop)
    try:
        return await task
    except asyncio.CancelledError:
        if terminated:
            raise KeyboardInterrupt from None  # told as an interruption (starter.cli)
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


async def experiment_run(config_path: Path, concurrency: int | None) -> int:
    try:
        config = load_config(config_path)
    except ConfigError as error:
        hint = "" if config_path.is_file() else f"; pass a config file, e.g. {_shipped_configs()}"
        raise StarterError(f"{error}{hint}") from None
    from experiments.report import render_summary

    try:
        if isinstance(config, CounterfactualConfig):
            from experiments.counterfactual_runner import run_counterfactuals

            directory = await stopped_by_sigterm(run_counterfactuals(config, concurrency=concurrency))
        else:
            from experiments.runner import run_experiment

            directory = await stopped_by_sigterm(run_experiment(config, concurrency=concurrency))
    except ConfigError as error:
        raise StarterError(f"{config_path}: {error}") from None
    print()
    print(render_summary(directory))
    return 0


async def experiment_resume(
    directory: Path, config_path: Path | None, concurrency: int | None, allow_commit_change: bool
) -> int:
    """The trials of an experiment cut short that its directory does not hold yet."""
    from experiments.config import ExperimentConfig

    config = None
    if config_path is not None:
        try:
            loaded = load_config(config_path)
        except ConfigError as error:
            raise StarterError(str(error)) from None
        if not isinstance(loaded, ExperimentConfig):
            raise StarterError(f"{config_path}: counterfactuals (`of:`) are not resumed; run them again")
        config = loaded
    if not directory.is_dir():
        raise StarterError(f"--resume {directory}: no such directory (an experiment's, under data/reports/)")
    from experiments.report import render_summary
    from experiments.runner import resume_experiment

    try:
        done = await stopped_by_sigterm(
            resume_experiment(directory, config, concurrency=concurrency, allow_code_change=allow_commit_change)
        )
    except ConfigError as error:
        raise StarterError(str(error)) from None
    print()
    print(render_summary(done))
    return 0


def experiment_report(run_id: str | None, *, rewrite: bool = False) -> int:
    directory = find_report(run_id)
    from experiments.report import render_summary, report_cut_short, rewrite_report

    if not (directory / RESULTS_JSON).is_file():
        written = report_cut_short(directory)
        print(f"wrote {written} from the trials recorded: the experiment was cut short before it wrote its report")
    elif rewrite:
        print(f"rewrote {rewrite_report(directory)} and its plots")
    print(render_summary(directory))
    return 0


def experiment_configs() -> int:
    lines, problems = config_lines()
    for line in lines:
        print(line)
    for problem in problems:
        print(f"error: {problem}")
    return 2 if problems else 0


def config_lines() -> tuple[list[str], list[str]]:
    """One line per shipped config, the path `--config` takes first, then its description; and
    a problem line for each config that does not load (listed, not hidden)."""
    lines: list[str] = []
    problems: list[str] = []
    for path in sorted(CONFIGS_DIR.glob("*.yaml")):
        try:
            config = load_config(path)
        except ConfigError as error:
            problems.append(str(error))
            continue
        lines.append(f"{path.relative_to(PROJECT_ROOT)}\t{' '.join(config.description.split())}")
    return lines, problems


def find_report(run_id: str | None) -> Path:
    """The report directory of an experiment id (under data/reports/), of a path to one, or
    of the experiment that finished last."""
    from experiments.runner import reports_dir

    root = reports_dir()
    if run_id is None:
        from experiments.report import latest_report

        latest = latest_report(root)
        if latest is None:
            raise StarterError(f"no experiment has finished yet in {root}; run one with `experiment run --config FILE`")
        return latest
    name = run_id.rstrip("/")
    given = Path(run_id).expanduser()
    candidates = [root / name, given] if name and "/" not in name and name not in (".", "..") else [given]
    for candidate in candidates:
        # An experiment cut short before its report was written has what it started with.
        if (candidate / RESULTS_JSON).is_file() or (candidate / START_JSON).is_file():
            return candidate
    if given.exists():
        raise StarterError(
            f"{run_id} is not an experiment's report directory (it has no {RESULTS_JSON} or {START_JSON}); "
            f"pass an experiment id from {root} or the path of its directory"
        )
    raise StarterError(
        f"no experiment {run_id!r}: neither an id in {root} nor a report directory; "
        "`experiment report` alone shows the latest"
    )


def _shipped_configs() -> str:
    paths = sorted(CONFIGS_DIR.glob("*.yaml"))
    return ", ".join(str(path.relative_to(PROJECT_ROOT)) for path in paths)
