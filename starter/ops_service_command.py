"""`python -m starter ops-service`: the operations service the side-effecting tools call, in the
foreground, for workers that run in their own processes (they find it at AGENT_LAB_OPS_URL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from contracts.errors import StarterError
from ops_service.database import Database
from ops_service.server import OpsServer, serve
from starter.ops_service import OPS_URL_VARIABLE

DEFAULT_PORT = 7280


def ops_service(port: int, db: Path) -> int:
    try:
        database = Database(db)
    except (OSError, sqlite3.Error) as error:
        raise StarterError(f"cannot open the service's database {db}: {error.strerror or error}") from None
    try:
        server = OpsServer(port, database)
    except OSError as error:
        raise StarterError(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror or error} (choose another with --port, 0 for any)"
        ) from None

    def announce(url: str) -> None:
        print(f"operations service at {url}, state in {db}", flush=True)
        print(f"workers and runs find it with: export {OPS_URL_VARIABLE}={url}  (Ctrl-C stops it)", flush=True)

    return serve(server, announce)
