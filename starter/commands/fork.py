"""`python -m starter fork RUN --from-step K`: a new durable run, RUN's up to step K, then live."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from contracts.errors import StarterError
from starter.arg_types import identifier, non_negative_int


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fork = commands.add_parser(
        "fork", help="a new durable run: RUN up to step K, then live (another provider or script)"
    )
    fork.add_argument("run", type=identifier, help="the durable run (workflow id) to fork")
    fork.add_argument("--from-step", type=non_negative_int, required=True, help="the last step taken from RUN's record")
    fork.add_argument("--provider", choices=["scripted", "openai", "local"], help="from step K+1 (default: RUN's)")
    fork.add_argument("--model", help="as for `run`")
    fork.add_argument("--base-url", help="as for `run`")
    fork.add_argument("--api-key", help="as for `run`")
    fork.add_argument("--seed", type=int, default=0, help="the model's sampling seed (default 0)")
    fork.add_argument("--script", type=Path, help="scripted: this script instead of the task's")
    fork.add_argument("--keep-server", action="store_true", help="leave an embedded dev server running afterwards")
    fork.set_defaults(handler=lambda args: asyncio.run(_fork(args)))


async def _fork(args: argparse.Namespace) -> int:
    from lab.models.providers import ProviderChoice
    from starter.fork_command import fork_command

    if args.script is not None and not args.script.is_file():
        raise StarterError(f"--script {args.script}: no such file")
    if args.script is not None and args.provider not in (None, "scripted"):
        raise StarterError("--script goes with the scripted provider")
    choice = None
    if args.provider is not None and args.script is None:
        choice = ProviderChoice.resolve(args.provider, args.model, args.base_url, args.api_key, args.seed)
    return await fork_command(args.run, args.from_step, choice, args.script, keep_server=args.keep_server)
