"""A worker's command line (`python worker.py`): its settings from flags and the environment,
one client, the worker, and a graceful stop on SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from datetime import timedelta

from temporalio.client import Client
from temporalio.service import RPCError
from temporalio.worker import Interceptor

from agent.dependencies_from_environment import from_environment
from contracts import TASK_QUEUE
from contracts.errors import BadInput, SettingsError
from host import settings, temporal_config
from host.build import build_id, build_worker
from host.client import connect, connect_failure_reason
from host.converter import ArtifactStoreDriver, data_converter_for
from host.deployment import deployment_config, make_current
from host.logs import RunContext
from host.logs import configure as configure_logging
from host.metrics import LabMetrics, runtime_with_metrics
from host.shutdown import ActivityTally, run_until_signalled
from host.tracing import Tracing, start_tracing


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python worker.py",
        description="Poll the lab's task queue on the Temporal server the environment configures "
        "(TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, or a profile: "
        "TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE). SIGTERM or SIGINT stops it gracefully.",
    )
    parser.add_argument(
        "--grace-seconds",
        type=float,
        default=None,
        help="on SIGTERM/SIGINT, how long running activities may finish before they are cancelled "
        "and handed to another worker (default: AGENT_LAB_WORKER_GRACE_S or 30)",
    )
    parser.add_argument(
        "--deployment",
        metavar="NAME",
        default=None,
        help="join this Worker Deployment, versioned by build id, runs pinned to the version that "
        "started them (default: AGENT_LAB_DEPLOYMENT, or unversioned)",
    )
    parser.add_argument(
        "--build-id",
        default=None,
        help="this worker's version in its deployment (default: AGENT_LAB_BUILD_ID, or a hash of the code)",
    )
    parser.add_argument(
        "--make-current",
        action="store_true",
        help="once polling, make this version the deployment's current one: new runs start on it",
    )
    parser.add_argument(
        "--metrics-port",
        metavar="PORT[-LAST]",
        default=None,
        help="serve Prometheus metrics (the SDK's and the lab's) at http://HOST:PORT/metrics; "
        "a range PORT-LAST takes its first free port (default: AGENT_LAB_METRICS_PORT, or none)",
    )
    parser.add_argument(
        "--traces",
        type=str.lower,
        choices=settings.TRACE_EXPORTERS,
        default=None,
        help="OpenTelemetry traces, a span per run, step and activity: to the console, or over "
        "OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT; needs the `otel` extra "
        "(default: AGENT_LAB_TRACES or off)",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=settings.LOG_LEVELS,
        default=None,
        help="default: AGENT_LAB_LOG_LEVEL or INFO",
    )
    parser.add_argument(
        "--log-format",
        type=str.lower,
        choices=settings.LOG_FORMATS,
        default=None,
        help="text, or json: one object a line, with the run, step and tool it is about "
        "(default: AGENT_LAB_LOG_FORMAT or text)",
    )
    return parser


def interceptors(tally: ActivityTally) -> list[Interceptor]:
    """What a standalone worker wraps its activities in: the count its graceful shutdown reports,
    the lab's metrics, and the run, step and tool its log records name."""
    return [tally, LabMetrics(), RunContext()]


async def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        grace_s = settings.worker_grace_s() if args.grace_seconds is None else args.grace_seconds
        if not 0 <= grace_s < float("inf"):
            raise SettingsError(f"--grace-seconds must be a number of seconds, not {grace_s}")
        level = args.log_level or settings.log_level()
        log_format = args.log_format or settings.log_format()
        options = temporal_config.load()
        ports = settings.metrics_ports(args.metrics_port)
        deployment = args.deployment or settings.deployment_name()
        version = args.build_id or settings.build_id_override() or build_id()
        if args.make_current and deployment is None:
            raise SettingsError("--make-current needs --deployment (or AGENT_LAB_DEPLOYMENT)")
        versioned = {"deployment_config": deployment_config(deployment, version)} if deployment else {}
        runtime, port = runtime_with_metrics(ports) if ports is not None else (None, None)
        tracing = start_tracing(args.traces or settings.trace_exporter())
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    configure_logging(level, log_format)
    # What the core uses, read from the environment once, here, and handed to every activity
    # (and to the converter, whose large payloads go to the same artifact store).
    deps = from_environment()
    converter = data_converter_for(ArtifactStoreDriver(deps.artifacts))
    try:
        client = await connect(runtime=runtime, plugins=[tracing.plugin] if tracing else [], data_converter=converter)
    except (RuntimeError, RPCError) as error:
        print(
            f"error: no Temporal server answers at {options.target_host} ({connect_failure_reason(error)}) "
            f"with {options.how()}: start one "
            "(`uv run python -m starter server`) or point TEMPORAL_ADDRESS (or TEMPORAL_PROFILE) at yours",
            file=sys.stderr,
        )
        return 2
    tally = ActivityTally()
    grace = timedelta(seconds=grace_s)
    worker = build_worker(
        client, dependencies=deps, graceful_shutdown_timeout=grace, interceptors=interceptors(tally), **versioned
    )
    serving = f"; metrics at http://0.0.0.0:{port}/metrics" if port is not None else ""
    serving += f"; deployment {deployment!r}, build {version!r}" if deployment else ""
    serving += f"; traces to {args.traces or settings.trace_exporter()}" if tracing else ""
    print(f"worker polling task queue {TASK_QUEUE!r} at {options.describe()}{serving}", flush=True)
    announcing = None
    if args.make_current and deployment:
        announcing = asyncio.create_task(_make_current(client, deployment, version))
    stopped = await run_until_signalled(worker, tally, grace_s)
    if announcing is not None:
        announcing.cancel()
    _flush(tracing)
    if stopped is None:
        return 0
    line, clean = stopped
    print(line, flush=True)
    return 0 if clean else 1


async def _make_current(client: Client, deployment: str, version: str) -> None:
    try:
        await make_current(client, deployment, version)
    except RPCError as error:
        print(f"error: build {version!r} could not be made current in {deployment!r}: {error.message}", file=sys.stderr)
        return
    print(f"build {version!r} is now current in deployment {deployment!r}: new runs start on it", flush=True)


def _flush(tracing: Tracing | None) -> None:
    """Send the spans still buffered: the worker leaves with os._exit, which runs no atexit hook."""
    if tracing is not None:
        tracing.shutdown()


def _exit(code: int) -> None:
    """Leave without the interpreter's finalization: with the SDK's Rust runtime threads still
    about, it can abort after the work is done (`PyGILState_Release ... finalizing`, exit 134,
    sdk-python#300; seen here about once in 12 exits after a failed connect)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run(argv: list[str] | None = None) -> None:
    """The process: exit with main's status, without the interpreter's finalization."""
    try:
        _exit(asyncio.run(main(argv)))
    except KeyboardInterrupt:
        _exit(130)
