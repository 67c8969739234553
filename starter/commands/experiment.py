"""`python -m starter experiment run --config FILE`, `experiment report [--run-id ID|DIR]` and
`experiment configs`."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from starter.arg_types import positive_int


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    experiment = commands.add_parser("experiment", help="run an experiment, or show its report")
    experiment_commands = experiment.add_subparsers(dest="experiment_command", required=True)
    run_experiment = experiment_commands.add_parser("run", help="every trial of a config, then a report")
    run_experiment.add_argument(
        "--config", type=Path, help="experiments/configs/NAME.yaml (with --resume: must be the one it started with)"
    )
    run_experiment.add_argument("--concurrency", type=positive_int, help="trials at once (default: the config's)")
    run_experiment.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="run the trials an experiment's report directory does not hold yet (it was cut short), "
        "keeping those it holds; refused if the code or config changed since it started",
    )
    run_experiment.add_argument(
        "--allow-commit-change",
        action="store_true",
        help="with --resume: go on with other code than the experiment started with (the report names it)",
    )
    run_experiment.set_defaults(handler=_run)
    report = experiment_commands.add_parser("report", help="print an experiment's tables (default: the latest)")
    report.add_argument(
        "--run-id", help="an experiment id (a directory of data/reports/) or the path of its report directory"
    )
    report.add_argument(
        "--rewrite", action="store_true", help="draw report.md and the plots again from results.json and trials.jsonl"
    )
    report.set_defaults(handler=_report)
    configs = experiment_commands.add_parser("configs", help="list the configs in experiments/configs/, one per line")
    configs.set_defaults(handler=_configs)


def _run(args: argparse.Namespace) -> int:
    from contracts.errors import StarterError
    from starter.experiment_command import experiment_resume, experiment_run

    if args.resume is not None:
        return asyncio.run(experiment_resume(args.resume, args.config, args.concurrency, args.allow_commit_change))
    if args.allow_commit_change:
        raise StarterError("--allow-commit-change goes with --resume DIR")
    if args.config is None:
        raise StarterError("experiment run needs --config FILE (a new experiment) or --resume DIR (one cut short)")
    return asyncio.run(experiment_run(args.config, args.concurrency))


def _report(args: argparse.Namespace) -> int:
    from starter.experiment_command import experiment_report

    return experiment_report(args.run_id, rewrite=args.rewrite)


def _configs(args: argparse.Namespace) -> int:
    from starter.experiment_command import experiment_configs

    return experiment_configs()
