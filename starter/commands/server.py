"""`python -m starter server`: the embedded dev server and its Web UI over the run history."""

from __future__ import annotations

import argparse
import asyncio

import settings
from starter.arg_types import positive_int


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    server = commands.add_parser("server", help="serve the embedded dev server and its Web UI over the run history")
    server.add_argument(
        "--port", type=positive_int, default=None, help="gRPC port (default: AGENT_LAB_DEV_PORT or 7233)"
    )
    server.add_argument(
        "--ui-port", type=positive_int, default=None, help="Web UI port (default: AGENT_LAB_UI_PORT or 8233)"
    )
    server.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from starter.server_command import serve

    return asyncio.run(serve(args.port or settings.dev_server_port(), args.ui_port or settings.dev_server_ui_port()))
