"""`python -m starter diff RUN_A RUN_B`: where two runs diverge, and how each ended."""

from __future__ import annotations

import argparse

from starter.arg_types import identifier


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    diff = commands.add_parser("diff", help="where two runs diverge (a fork and its parent, say), and how each ended")
    diff.add_argument("run_a", type=identifier, help="a run id")
    diff.add_argument("run_b", type=identifier, help="another run of the same task")
    diff.set_defaults(handler=_diff)


def _diff(args: argparse.Namespace) -> int:
    from starter.diff_command import diff_command

    return diff_command(args.run_a, args.run_b)
