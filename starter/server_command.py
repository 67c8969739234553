"""`python -m starter server`: the embedded dev server in the foreground, with its Web UI,
over the same history file the runs wrote, so every earlier run can be opened again."""

from __future__ import annotations

import asyncio
import signal

from contracts.errors import StarterError
from lab.processes.temporal_server import DevServer, DevServerOptions, default_database, is_listening


async def serve(port: int, ui_port: int) -> int:
    if is_listening("127.0.0.1", port):
        raise StarterError(f"something already answers at 127.0.0.1:{port}; is a server running?")
    server = DevServer(DevServerOptions(port=port, ui_port=ui_port))
    await server.start()
    print(f"Temporal dev server at {server.address}, history in {default_database()}")
    print(f"Web UI: http://localhost:{ui_port}  (Ctrl-C stops the server)", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await server.stop()
    return 0
