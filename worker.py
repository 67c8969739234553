"""A standalone worker: `python worker.py` polls the lab's task queue on the Temporal server
the environment configures (`host.temporal_config`: TEMPORAL_ADDRESS, a profile, TLS, an API key).

Run several, kill some: Temporal hands their work to the ones still alive. Stop one with
SIGTERM or SIGINT and it finishes what it runs first (`host.shutdown`). The worker process
itself is the `host` package; `python worker.py --help` lists its options.
"""

from host.main import run

if __name__ == "__main__":
    run()
