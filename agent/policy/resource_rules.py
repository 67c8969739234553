"""Resource exhaustion by one command: endless writers and waits, huge files, stress tools,
huge expansions, millions of commands from one `seq`, regexes that backtrack without end.

The sandbox's limits would stop each of these in the end, but only once it has taken the
disk, CPU or memory that every run on the machine shares; refused up front, with a message
that says how to bound it, the model learns to write the bounded command instead.
"""

from __future__ import annotations

import math

from agent.policy.endless_commands import MOST_LINES, Endless, bounded, endless, head_limit, shown
from agent.policy.findings import Finding
from agent.policy.options import operands as without_options
from agent.policy.options import option_values, short_letters
from agent.policy.regex_risk import catastrophic_part
from agent.policy.shell_model import SimpleCommand
from agent.policy.sizes import GIB, brace_words, byte_size, seq_count, seq_operands, shown_bytes
from agent.policy.wrappers import Invocation, unwrap
from contracts.actions import ReasonCode

# A file or a read past this is not something a coding step needs.
LARGEST_BYTES = GIB
# More rounds, words or commands than this from one loop, brace or `seq` exhaust the
# workspace's inodes or the run's time (each one is at least a process or a file).
MOST_ROUNDS = 100_000

_STRESS = {
    "stress", "stress-ng", "cpuburn", "burnP5", "burnP6", "burnK6", "burnK7", "burnMMX", "burnBX", "memtester",
    "sysbench", "fio", "stressapptest", "bonnie++", "iozone", "mprime", "y-cruncher",
}  # fmt: skip
# Programs whose subcommand is a benchmark that runs the CPU flat out.
_BENCHMARKS = {("openssl", "speed"), ("7z", "b"), ("7za", "b"), ("7zz", "b"), ("cryptsetup", "benchmark")}
_BACKTRACKING_GREPS = {"egrep"}
_GREP_VALUED = "efmABCdD"


def resource_command_findings(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    name = inv.name or ""
    if name in _STRESS or (inv.args and (name, inv.args[0].text) in _BENCHMARKS):
        shown_name = name if name in _STRESS else f"{name} {inv.args[0].text}"
        message = f"`{shown_name}` is a stress test that exhausts the shared machine: run the project's tests instead"
        return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]
    findings = [*_endless(inv, command), *_sizes(inv, command), *_expansions(inv, command), *_regexes(inv)]
    return findings + _many_commands(inv, command)


def _endless(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    found = endless(inv, command)
    if found is None or bounded(found, inv, command):
        return []
    message = f"`{shown(command)}` {found.what}: {_advice(found, inv, command)}"
    return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]


def _advice(found: Endless, inv: Invocation, command: SimpleCommand) -> str:
    if found.kind == "wait":
        return "wait only as long as needed, e.g. `sleep 5`"
    if found.kind == "follow":
        if inv.name == "tail":
            return "read what is there (`tail -n 50 FILE`), or put `timeout 10` before it"
        return "put `timeout 10` before it, or give it a count"
    head = "head -c 1M" if found.what.startswith("reads") else "head -n 100"
    if inv.name == "dd":
        return "give it a size, e.g. `count=10`"
    if "timeout" in inv.wrappers:
        return f"a timeout bounds its time, not what it writes: bound the amount with `| {head}`"
    source = " ".join([command.raw, *(f"{r.operator} {r.target.raw}" for r in command.redirects if not r.writes)])
    writes = "".join(f" {r.operator} {r.target.raw}" for r in command.redirects if r.writes)
    rest = f" | {command.pipes_to.raw}" if command.pipes_to is not None else writes
    return f"bound it, e.g. `{source} | {head}{rest}`"


def _sizes(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    """Files and reads of a fixed but huge size: `truncate -s 100G`, `dd bs=1G count=100`."""
    name = inv.name or ""
    args = [a.text for a in inv.args if a.text is not None]
    size, what = None, ""
    if name == "dd":
        size, what = _dd_bytes(args), "copies"
    elif name in ("fallocate", "truncate"):
        values = option_values(args, "-l", "--length") if name == "fallocate" else option_values(args, "-s", "--size")
        sizes = [byte_size(v.lstrip("+>")) for v in values if not v.startswith(("<", "/", "%", "-"))]
        size, what = max((s for s in sizes if s is not None), default=None), "makes a file of"
    elif name == "head":
        limit = head_limit(args)
        size, what = (limit[1] if limit and limit[0] == "bytes" else None), "reads"
    elif name in ("mkfile", "xfs_mkfile"):
        operands = [byte_size(a) for a in args if not a.startswith("-")]
        size, what = (operands[0] if operands else None), "makes a file of"
    elif name == "openssl" and args[:1] == ["rand"]:
        operands = [byte_size(a) for a in args[1:] if a.isdigit()]
        size, what = (operands[-1] if operands else None), "makes"
    if size is None or size <= LARGEST_BYTES:
        return []
    message = f"`{shown(command)}` {what} {shown_bytes(size)}: keep files and reads under 1 GiB"
    return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]


def _dd_bytes(args: list[str]) -> float | None:
    """dd copies `count` blocks of `bs` (or `ibs`, else 512) bytes; None with no count."""
    operands = dict(arg.split("=", 1) for arg in args if "=" in arg)
    if "count" not in operands:
        return None
    block = byte_size(operands.get("bs") or operands.get("ibs") or "512")
    count = byte_size(operands["count"])
    if block is None or count is None:
        return None
    return count if "count_bytes" in operands.get("iflag", "") else count * block


def _expansions(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    """`touch {1..1000000}`: the shell builds every word in memory before the command runs."""
    for word in inv.argv:
        count = brace_words(word.raw)
        if count > MOST_ROUNDS:
            raw = word.raw if len(word.raw) <= 30 else word.raw[:27] + "..."
            words = "more words than memory holds" if math.isinf(count) else f"{count:,.0f} words"
            message = f"`{raw}` in `{shown(command)}` expands to {words}: use at most {MOST_ROUNDS:,}"
            return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]
    return []


def _many_commands(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    """`seq 1000000 | xargs touch`: one command (or a loop round) for every line."""
    args = [a.text for a in inv.args]
    if inv.name != "seq" or command.pipes_to is None or None in args:
        return []
    count = seq_count(seq_operands([a for a in args if a is not None]))
    if count is None or count <= MOST_ROUNDS or count > MOST_LINES:  # past MOST_LINES it is endless
        return []
    reader = command.pipes_to
    runner = unwrap(reader.words, reader.assignments) if reader.words else None
    if runner is not None and "xargs" not in runner.wrappers:
        return []
    what = f"`xargs {runner.name}`" if runner is not None else "a loop"
    message = f"`{shown(command)}` feeds {count:,.0f} lines to {what}, a command for each: use at most {MOST_ROUNDS:,}"
    return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]


def _regexes(inv: Invocation) -> list[Finding]:
    """`grep -E '(a|aa)*c'` and `grep -P`: patterns that backtrack without end on long lines."""
    name = inv.name or ""
    args = [a.text for a in inv.args if a.text is not None]
    long_form = any(a in ("--extended-regexp", "--perl-regexp") for a in args)
    extended = name in _BACKTRACKING_GREPS or (
        name == "grep" and (long_form or bool(short_letters(args, _GREP_VALUED) & {"E", "P"}))
    )
    if not extended:
        return []
    patterns = option_values(args, "-e", "--regexp") or _operands(args)[:1]
    for pattern in patterns:
        reason = catastrophic_part(pattern)
        if reason is not None:
            message = f"the pattern {pattern!r} of `{name}` backtracks without end ({reason}): avoid nested repeats"
            return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]
    return []


def _operands(args: list[str]) -> list[str]:
    """grep's words that are not options nor their values (`-m 5`)."""
    return without_options(args, {f"-{letter}" for letter in _GREP_VALUED})
