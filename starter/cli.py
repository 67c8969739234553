"""`python -m starter`: run either runtime on a task, fork a durable run from a step and diff
two runs, compare them in experiments, answer a run's approvals, read its ledger, check its
invariants, check a policy, try the sandbox, and serve the Temporal Web UI or the operations
service."""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from importlib import metadata
from typing import NoReturn

import settings
from contracts.errors import BadInput, InfrastructureError
from starter.commands import (
    approvals,
    check,
    diff,
    experiment,
    fork,
    ledger,
    ops_service,
    policy,
    run,
    sandbox,
    server,
    tasks,
    watch,
)

# In the order `--help` lists them. Each registers its own subparser and a handler that imports
# what it runs when it runs: Temporal's client, the activities and matplotlib take seconds to
# load, and `tasks`, `policy check` or a mistyped flag need none of it.
COMMANDS = (run, watch, fork, diff, tasks, policy, sandbox, approvals, ledger, check, experiment, server, ops_service)

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m starter", description=__doc__)
    parser.add_argument("--version", action="version", version=_version())
    # Subparsers, and theirs, are _Parser too: argparse makes them of the class given here.
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InfrastructureError as error:  # the lab's own machinery broke: not the input's fault
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _version() -> str:
    """This checkout's version (pyproject.toml) and the Temporal SDK's, read without importing it."""
    with (settings.PROJECT_ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    sdk = metadata.version("temporalio")
    return f"{project['name']} {project['version']} (temporalio {sdk}, Python {sys.version.split()[0]})"
