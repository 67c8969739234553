"""`python -m starter ops-service`: the operations service, in the foreground, for workers elsewhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from starter.arg_types import port


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ops = commands.add_parser(
        "ops-service", help="serve the operations service (payments, tickets, accounts) for workers elsewhere"
    )
    ops.add_argument("--port", type=port, default=None, help="port on 127.0.0.1, 0 for any free one (default: 7280)")
    ops.add_argument(
        "--db", type=Path, default=None, help="SQLite file of every tenant's state (default: data/ops/service.sqlite)"
    )
    ops.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from starter.ops_service import service_db_path
    from starter.ops_service_command import DEFAULT_PORT, ops_service

    return ops_service(DEFAULT_PORT if args.port is None else args.port, args.db or service_db_path())
