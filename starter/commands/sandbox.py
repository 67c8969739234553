"""`python -m starter sandbox exec --workspace DIR -- CMD ...`: one command in the sandbox."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from agent.sandbox.selection import BACKENDS
from starter.arg_types import positive_float


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sandbox = commands.add_parser("sandbox", help="run a command in the sandbox as an agent's tool would")
    sandbox_commands = sandbox.add_subparsers(dest="sandbox_command", required=True)
    execute = sandbox_commands.add_parser("exec", help="run one command: sandbox exec --workspace DIR -- CMD ...")
    execute.add_argument("--backend", choices=list(BACKENDS), default=None, help="default: AGENT_LAB_SANDBOX or auto")
    execute.add_argument(
        "--workspace", type=Path, required=True, help="the directory the command sees as /workspace (writable)"
    )
    execute.add_argument("--timeout", type=positive_float, default=60.0, help="seconds (default 60)")
    execute.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    execute.set_defaults(handler=_exec)


def _exec(args: argparse.Namespace) -> int:
    from starter.sandbox_command import sandbox_exec

    command = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    return asyncio.run(sandbox_exec(args.backend, args.workspace, command, args.timeout))
