"""Settings read from the environment, for the starter, workers and activities.

Workflow code never imports this module: workflows get everything through their input.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from contracts.errors import SettingsError

if TYPE_CHECKING:
    import temporal_config

PROJECT_ROOT = Path(__file__).resolve().parent


def in_project(path: Path) -> str:
    """A path as a run's input carries it: relative to the project when it is inside it, so a
    worker in another checkout of the project (a container's /app) reads the same file in its
    own. Anything else stays absolute."""
    try:
        return path.resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return str(path)


def project_path(given: str) -> Path:
    """A path from a run's input, on this machine: one relative to the project is in this
    checkout of it (see in_project)."""
    path = Path(given)
    return path if path.is_absolute() else PROJECT_ROOT / path


def data_dir() -> Path:
    """Where runs keep their state: workspaces, the dev server's database, reports."""
    return _resolved(os.environ.get("AGENT_LAB_DATA", str(PROJECT_ROOT / "data")), os.getcwd())


@lru_cache(maxsize=64)
def _resolved(path: str, cwd: str) -> Path:
    # Every artifact read and write asks for the data directory: resolving it is a few
    # system calls each time, which a busy worker made thousands of times a second.
    return (Path(cwd) / path).resolve()


def dev_server_port() -> int:
    """The embedded dev server's gRPC port, used when TEMPORAL_ADDRESS is not set."""
    return _port("AGENT_LAB_DEV_PORT", 7233)


def dev_server_ui_port() -> int:
    return _port("AGENT_LAB_UI_PORT", 8233)


def temporal_address() -> str:
    """The configured Temporal address (TEMPORAL_ADDRESS or a profile's), else the dev server's."""
    return _temporal().target_host


def temporal_address_is_explicit() -> bool:
    """An address the user chose (a variable or a profile) is never replaced by an embedded server."""
    return _temporal().explicit


def temporal_namespace() -> str:
    return _temporal().namespace


def _temporal() -> temporal_config.ConnectOptions:
    # Imported here: the agent core and the baseline read these settings without loading Temporal.
    import temporal_config

    return temporal_config.load()


def worker_grace_s() -> float:
    """How long a worker told to stop lets its running activities finish before cancelling them."""
    raw = os.environ.get("AGENT_LAB_WORKER_GRACE_S")
    if not raw:
        return 30.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise SettingsError(f"AGENT_LAB_WORKER_GRACE_S must be a number of seconds, not {raw!r}")
    return value


def log_level() -> str:
    """The worker's log level: DEBUG, INFO, WARNING or ERROR."""
    raw = os.environ.get("AGENT_LAB_LOG_LEVEL") or "INFO"
    if raw.upper() not in LOG_LEVELS:
        raise SettingsError(f"AGENT_LAB_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}")
    return raw.upper()


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def temporal_ui_url() -> str:
    return (os.environ.get("TEMPORAL_UI_URL") or f"http://localhost:{dev_server_ui_port()}").rstrip("/")


def _port(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise SettingsError(f"{name} must be a port number, not {raw!r}")
    return int(raw)


def log_format() -> str:
    """How a worker writes its log (AGENT_LAB_LOG_FORMAT): 'text', or 'json' lines."""
    raw = (os.environ.get("AGENT_LAB_LOG_FORMAT") or "text").lower()
    if raw not in LOG_FORMATS:
        raise SettingsError(f"AGENT_LAB_LOG_FORMAT must be {' or '.join(LOG_FORMATS)}, not {raw!r}")
    return raw


LOG_FORMATS = ("text", "json")


def trace_exporter() -> str:
    """Where a worker sends its traces (AGENT_LAB_TRACES): 'off', 'console' or 'otlp' (to
    OTEL_EXPORTER_OTLP_ENDPOINT, by default http://localhost:4318)."""
    raw = (os.environ.get("AGENT_LAB_TRACES") or "off").lower()
    if raw not in TRACE_EXPORTERS:
        choices = f"{', '.join(TRACE_EXPORTERS[:-1])} or {TRACE_EXPORTERS[-1]}"
        raise SettingsError(f"AGENT_LAB_TRACES must be {choices}, not {raw!r}")
    return raw


TRACE_EXPORTERS = ("off", "console", "otlp")


def deployment_name() -> str | None:
    """The Worker Deployment a worker joins (AGENT_LAB_DEPLOYMENT), if it is versioned."""
    return os.environ.get("AGENT_LAB_DEPLOYMENT") or None


def build_id_override() -> str | None:
    """A worker's build id given by hand (AGENT_LAB_BUILD_ID), instead of a hash of its code."""
    return os.environ.get("AGENT_LAB_BUILD_ID") or None


def metrics_ports(given: str | None = None) -> range | None:
    """The ports a worker may serve Prometheus metrics on: `given` (`--metrics-port`), else
    AGENT_LAB_METRICS_PORT; unset, none. A port (`9464`) or a range (`9464-9473`): the worker
    takes the first one free, so replicas sharing one network namespace each find their own."""
    source, raw = (
        ("--metrics-port", given)
        if given is not None
        else ("AGENT_LAB_METRICS_PORT", os.environ.get("AGENT_LAB_METRICS_PORT"))
    )
    if not raw:
        return None
    first, dash, last = raw.strip().partition("-")
    if not (first.isdigit() and (last.isdigit() or not dash)):
        raise SettingsError(f"{source} must be a port (9464) or a range of ports (9464-9473), not {raw!r}")
    ports = range(int(first), int(last or first) + 1)
    if not (ports and ports[0] > 0 and ports[-1] < 65536):
        raise SettingsError(f"{source} must be ports within 1-65535, lowest first, not {raw!r}")
    return ports


def ops_url() -> str | None:
    """Base URL of the operations service the side-effecting tools call, if one is configured."""
    return os.environ.get("AGENT_LAB_OPS_URL") or None
