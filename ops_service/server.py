"""The service process: bind, announce the port on stdout, serve until SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path

from ops_service.database import Database
from ops_service.handler import OpsRequestHandler

HOST = "127.0.0.1"  # loopback only: the service moves money, if only pretend money


class OpsServer(ThreadingHTTPServer):
    daemon_threads = True  # a hung client never keeps the process from exiting

    def __init__(self, port: int, database: Database) -> None:
        self.database = database
        super().__init__((HOST, port), OpsRequestHandler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops_service", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one")
    parser.add_argument("--db", type=Path, required=True, help="SQLite file holding every tenant's state")
    options = parser.parse_args(argv)
    # The first stdout line is the contract with a parent that asked for port 0.
    return serve(
        OpsServer(options.port, Database(options.db)), lambda url: print(f"listening on {url[7:]}", flush=True)
    )


def serve(server: OpsServer, announce: Callable[[str], None]) -> int:
    """Announce the server's URL, then serve until SIGTERM or Ctrl-C."""
    # serve_forever runs on this thread, and shutdown() waits for it: ask from another thread.
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    host, port = server.server_address[:2]
    announce(f"http://{host}:{port}")
    try:
        # shutdown() takes effect at the next poll: a short interval makes a stop prompt.
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.stderr.write("ops service stopped\n")
    return 0
