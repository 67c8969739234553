"""A worker's own settings, read from the environment: its shutdown grace, log level and
format, traces, Worker Deployment and build id, and metrics ports. Each has a flag of the same
meaning on `python worker.py` that wins over it; a bad value is one SettingsError line."""

from __future__ import annotations

import os

from contracts.errors import SettingsError


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
