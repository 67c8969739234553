"""`python -m starter experiment run --config FILE` and `experiment report [--run-id ID]`."""

from __future__ import annotations

from pathlib import Path

from experiments.config_loader import ConfigError, load_config
from experiments.report import ReportError, latest_report, render_summary, rewrite_report
from experiments.runner import reports_dir, run_experiment
from starter.errors import StarterError


async def experiment_run(config_path: Path, concurrency: int | None) -> int:
    try:
        config = load_config(config_path)
    except ConfigError as error:
        raise StarterError(str(error)) from None
    directory = await run_experiment(config, concurrency=concurrency)
    print()
    print(render_summary(directory))
    return 0


def experiment_report(run_id: str | None, *, rewrite: bool = False) -> int:
    if run_id:
        directory = reports_dir() / run_id
        if not (directory / "results.json").is_file():
            raise StarterError(f"no finished experiment {run_id!r} in {reports_dir()}")
    else:
        found = latest_report(reports_dir())
        if found is None:
            raise StarterError(f"no experiment has finished yet (looked in {reports_dir()})")
        directory = found
    if rewrite:
        try:
            print(f"rewrote {rewrite_report(directory)} and its plots")
        except ReportError as error:
            raise StarterError(str(error)) from None
    print(render_summary(directory))
    return 0
