"""A worker's logs, each line saying which run, step and tool it is about.

    python worker.py --log-format json      # or AGENT_LAB_LOG_FORMAT=json: one JSON object a line

An activity interceptor puts the run (the workflow id), the activity, its attempt, and the step
and tool its typed input names into a context variable while the activity runs; a logging
filter copies them onto every record logged meanwhile, by the lab's code, the SDK or a library.
Outside an activity (the worker's start and stop) they are empty.
"""

from __future__ import annotations

import contextvars
import json
import logging
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

# What each record is about: run, activity, attempt, step, tool ("" when not known).
_FIELDS = ("run_id", "activity", "attempt", "step", "tool")
_ABOUT: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("agent_lab_log_context", default=None)


class RunContext(Interceptor):
    """Names the run, step and tool of the activity running, for the log records it makes."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Naming(next)


class _Naming(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        about = {"run_id": info.workflow_id or "", "activity": info.activity_type, "attempt": str(info.attempt)}
        about.update(step_and_tool(input.args))
        token = _ABOUT.set(about)
        try:
            return await super().execute_activity(input)
        finally:
            _ABOUT.reset(token)


def step_and_tool(arguments: Any) -> dict[str, str]:
    """The step and tool an activity's typed input names, looking one level into the inputs
    that wrap another (`execution`, `propose`)."""
    found: dict[str, str] = {}
    for argument in arguments or ():
        for model in (argument, getattr(argument, "execution", None), getattr(argument, "propose", None)):
            if not isinstance(model, BaseModel):
                continue
            step = getattr(model, "step", None)
            if isinstance(step, int) and "step" not in found:
                found["step"] = str(step)
            tool = getattr(getattr(model, "proposal", None), "tool", None)
            if isinstance(tool, str) and tool and "tool" not in found:
                found["tool"] = tool
    return found


class _AboutFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        about = _ABOUT.get() or {}
        for name in _FIELDS:
            setattr(record, name, about.get(name, ""))
        return True


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and what the record is about."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({name: value for name in _FIELDS if (value := getattr(record, name, ""))})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class _Text(logging.Formatter):
    """The usual text line, with `[run step tool]` when the record is about one."""

    def format(self, record: logging.LogRecord) -> str:
        about = " ".join(
            f"{name}={value}" for name in ("run_id", "step", "tool") if (value := getattr(record, name, ""))
        )
        text = super().format(record)
        return f"{text} [{about}]" if about else text


def configure(level: str, log_format: str) -> None:
    """The root logger at `level`, writing to standard error in `log_format` ('text' or 'json')."""
    handler = logging.StreamHandler()
    handler.addFilter(_AboutFilter())
    if log_format == "json":
        handler.setFormatter(JsonLines())
    else:
        handler.setFormatter(_Text("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
