"""`python -m starter watch RUN`: follow a durable run from any terminal."""

from __future__ import annotations

import argparse
import asyncio

from starter.arg_types import identifier


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    watch = commands.add_parser(
        "watch", help="follow a durable run from any terminal: its steps so far, then live, then its outcome"
    )
    watch.add_argument("run_id", type=identifier, help="the run's id, as `run` printed it")
    watch.add_argument("--no-worker", action="store_true", help="only watch: workers run elsewhere")
    watch.set_defaults(handler=lambda args: asyncio.run(_watch(args)))


async def _watch(args: argparse.Namespace) -> int:
    from starter.watch_command import watch

    return await watch(args.run_id, with_worker=not args.no_worker)
