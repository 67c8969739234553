"""What a model is told when a limit stopped its command: what was measured against which
bound, and what to do instead. `ToolResult.error` carries it; `ToolResult.limit` names it."""

from __future__ import annotations

from agent.sandbox.base import Limits, Usage
from contracts import ResourceLimit


def said(limit: ResourceLimit | None, limits: Limits, usage: Usage) -> str:
    match limit:
        case None:
            return ""
        case ResourceLimit.WALL_TIME:
            # As before limits were named: callers and tests read a timeout by these words.
            return "timed out"
        case ResourceLimit.DISK if (usage.disk_files or 0) > limits.disk_files:
            return (
                f"the command created {usage.disk_files} files in the workspace (limit {limits.disk_files}) "
                "and was stopped; remove what it made and write fewer files"
            )
        case ResourceLimit.DISK:
            one_file = _mib(min(limits.file_bytes, limits.disk_bytes))
            return (
                f"the command grew the workspace by {_mib(usage.disk_bytes)} (limit {_mib(limits.disk_bytes)}, "
                f"one file at most {one_file}) and was stopped; remove what it wrote and write less"
            )
        case ResourceLimit.MEMORY:
            peak = f"{_mib(usage.memory_peak_bytes)} at peak, " if usage.memory_peak_bytes else ""
            return (
                f"the command ran out of memory ({peak}limit {_mib(limits.memory_bytes)}): the kernel killed "
                "its largest process; use less memory (smaller inputs, streaming)"
            )
        case ResourceLimit.PROCESSES:
            return (
                f"the command reached its limit of {limits.processes} processes and threads at once, and "
                "starting more failed; start fewer (no unbounded forking or parallelism)"
            )
        case ResourceLimit.CPU_TIME:
            used = f"{usage.cpu_seconds:.1f} s" if usage.cpu_seconds is not None else "all its"
            return f"the command used {used} of CPU time (limit {limits.cpu_seconds} s) and was stopped"
        case ResourceLimit.OUTPUT:
            return (
                f"the command wrote more than {_mib(limits.output_bytes)} of output and was stopped; "
                "send bulk output to a file, or filter it"
            )
    return str(limit)


def _mib(size: int | None) -> str:
    return f"{(size or 0) / 1024**2:.0f} MiB"
