"""`python -m starter ledger verify RUN` and `python -m starter replay RUN`: a run's ledger."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ledger = commands.add_parser("ledger", help="a run's hash-chained ledger")
    ledger_commands = ledger.add_subparsers(dest="ledger_command", required=True)
    verify = ledger_commands.add_parser("verify", help="check a run's chain: exit 0 when it holds")
    verify.add_argument("run", help="run id (workflow id) or path to a ledger .jsonl")
    verify.set_defaults(handler=_verify)
    replay = commands.add_parser("replay", help="a readable trace of a run's ledger")
    replay.add_argument("run", help="run id (workflow id) or path to a ledger .jsonl")
    replay.set_defaults(handler=_replay)


def _verify(args: argparse.Namespace) -> int:
    from starter.ledger_command import ledger_verify

    return ledger_verify(args.run)


def _replay(args: argparse.Namespace) -> int:
    from starter.ledger_command import replay

    return replay(args.run)
