"""`python -m starter check RUN | --history FILE | --all`: the lab's invariants over recorded runs."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    invariants = commands.add_parser("check", help="check a run's invariants over its ledger and Temporal history")
    invariants.add_argument("run", nargs="?", help="run id (workflow id) or path to a ledger .jsonl")
    invariants.add_argument("--history", type=Path, help="the run's history file (`temporal workflow show -o json`)")
    invariants.add_argument("--all", action="store_true", help="every run with a ledger under the data directory")
    invariants.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from starter.check_command import check_command

    return asyncio.run(check_command(args.run, args.history, every=args.all))
