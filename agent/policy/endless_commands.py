"""Commands that never end by themselves, and what bounds them.

Three kinds, bounded differently:

    stream  prints without end, as fast as it can: `yes`, `cat /dev/urandom`, `seq inf`.
            Bounded by a reader that stops after a fixed amount (`| head -c 100`), or by a
            program that reads only what it needs (`yes | cp -i a b`); a `timeout` bounds
            its time but not what it writes, so it may not write to a file.
    follow  prints now and then, without end: `tail -f log`, `watch ls`, `vmstat 1`.
            Bounded by `timeout N` or by `| head`.
    wait    prints nothing and never ends: `sleep infinity`. Bounded by `timeout N`.

A reader ends a stage before it by closing the pipe: the writer dies of SIGPIPE at its
next write, and so does every streaming filter between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from agent.policy.options import option_values, short_letters
from agent.policy.shell_model import SimpleCommand
from agent.policy.sizes import byte_size, duration_seconds, seq_count, seq_operands
from agent.policy.wrappers import Invocation, command_name, unwrap

# Devices that can be read for ever.
ENDLESS_DEVICES = {"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"}
# No command may run longer than this (agent/tools/shell.py MAX_COMMAND_TIMEOUT_S), so a
# wait past it is a wait without end.
LONGEST_RUN_S = 600.0
# `seq` printing more lines than this is a flood (about a gigabyte), whatever its end.
MOST_LINES = 10**8

# Programs that take a device as a name to look at, not to read.
# (`tee` writes to its arguments; `cmp` stops where the shorter file ends.)
_NOT_READERS = {"ls", "stat", "file", "test", "[", "realpath", "readlink", "echo", "printf", "basename", "dirname",
                "du", "df", "namei", "lsof", "fuser", "chmod", "touch", "tee", "cmp"}  # fmt: skip
# Filters that print as they read, so a reader after them still ends the stage before.
_STREAMING = {"cat", "cut", "nl", "rev", "fold", "base64", "od", "xxd", "hexdump", "tee", "expand", "unexpand"}
# Programs that read their input to its end (or may print nothing of it): after an endless
# stage they never end either.
_READ_TO_END = {
    "sort", "wc", "uniq", "grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "xargs", "gzip", "bzip2",
    "xz", "zstd", "lz4", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "sum", "dd", "tac",
    "shuf", "paste", "split", "csplit", "jq", "strings", "comm", "join",
}  # fmt: skip
_MONITORS = {"vmstat", "iostat", "mpstat", "pidstat", "sar"}

Kind = Literal["stream", "follow", "wait"]


@dataclass(frozen=True)
class Endless:
    kind: Kind
    # What it does, for the message: "prints lines without end", "reads /dev/urandom without end".
    what: str


def endless(inv: Invocation, command: SimpleCommand) -> Endless | None:
    """Whether the command, left alone, runs until it is killed."""
    name = inv.name or ""
    texts = [a.text for a in inv.args]
    known = [t for t in texts if t is not None]
    device = _device_read(inv, command)
    if device is not None and not _reads_a_fixed_amount(name, known):
        return Endless("stream", f"reads {device} without end")
    if name == "yes":
        return Endless("stream", "prints lines without end")
    if name == "seq" and None not in texts:
        count = seq_count(seq_operands(known))
        if count is not None and count > MOST_LINES:
            flood = "prints numbers without end" if math.isinf(count) else f"prints {count:,.0f} numbers, a flood"
            return Endless("stream", flood)
    if name == "tail" and _follows([a.pattern for a in inv.args]):  # `--pid=$!` is known enough
        return Endless("follow", "follows the file without end")
    if name == "sleep" and None not in texts:
        seconds = duration_seconds(known)
        if seconds is not None and seconds > LONGEST_RUN_S:
            return Endless("wait", f"waits longer than any command may run ({LONGEST_RUN_S:.0f} s)")
    if name == "watch" and not any(t in ("-g", "--chgexit") for t in known):
        return Endless("follow", "reruns its command without end")
    if name == "top" and "n" not in short_letters(known, valued="dnpuUoOsw"):
        return Endless("follow", "refreshes without end")
    if _follow_option(name, known):
        return Endless("follow", "follows its log without end")
    if name in _MONITORS and None not in texts and len([t for t in known if t.isdigit()]) == 1:
        return Endless("follow", "reports at every interval without end")
    return None


def bounded(found: Endless, inv: Invocation, command: SimpleCommand) -> bool:
    """Whether a reader or a timeout ends the command, and a timeout only where that is enough."""
    if found.kind != "wait" and _reader_ends(command):
        return True
    if not _time_limited(inv, command):
        return False
    return found.kind != "stream" or not _writes_files(command)


def shown(command: SimpleCommand) -> str:
    """The command as written, with its redirects (`yes > out.txt`), for messages."""
    text = " ".join([command.raw, *(f"{r.operator} {r.target.raw}" for r in command.redirects)])
    return text if len(text) <= 60 else text[:57] + "..."


def _device_read(inv: Invocation, command: SimpleCommand) -> str | None:
    name = inv.name or ""
    if name == "dd":
        device = next((a.text[3:] for a in inv.args if (a.text or "").startswith("if=")), None)
        return device if device in ENDLESS_DEVICES else None
    if name not in _NOT_READERS:
        for arg in inv.args:
            if arg.text in ENDLESS_DEVICES:
                return arg.text
    for redirect in command.redirects:
        if redirect.operator == "<" and redirect.target.text in ENDLESS_DEVICES:
            return redirect.target.text
    return None


def _reads_a_fixed_amount(name: str, args: list[str]) -> bool:
    """`head -c 32 /dev/urandom`, `dd count=1`, `od -N 8`, `xxd -l 16`: a device read once."""
    if name == "head":
        return head_limit(args) is not None
    if name == "dd":
        return any(arg.startswith("count=") for arg in args)
    options = {"od": ("-N", "--read-bytes"), "hexdump": ("-n", "--length"), "hd": ("-n", "--length"),
               "xxd": ("-l", "-len")}.get(name)  # fmt: skip
    return options is not None and bool(option_values(args, *options))


def head_limit(args: list[str]) -> tuple[str, float] | None:
    """What `head` stops after: ("lines", n) or ("bytes", n); None when it reads to the end.

    `-n -5` (all but the last five) reads everything; no option means ten lines.
    """
    for unit, short, long in (("bytes", "-c", "--bytes"), ("lines", "-n", "--lines")):
        values = option_values(args, short, long)
        if values:
            value = values[-1]
            if value.startswith("-"):
                return None
            size = byte_size(value.lstrip("+"))
            return (unit, size) if size is not None else None
    obsolete = next((a for a in args if a[:1] == "-" and a[1:].isdigit()), None)  # `head -5`
    return ("lines", float(obsolete[1:])) if obsolete else ("lines", 10.0)


def _follows(args: list[str]) -> bool:
    """`tail -f`, `-F`, `--follow`, `-fn 20`; `--pid=N` ends it with that process."""
    if any(arg.startswith("--pid") for arg in args):
        return False
    return any(arg.startswith("--follow") for arg in args) or bool(short_letters(args, valued="cns") & {"f", "F"})


def _follow_option(name: str, args: list[str]) -> bool:
    options = {"journalctl": ("-f", "--follow"), "dmesg": ("-w", "-W", "--follow", "--follow-new"),
               "inotifywait": ("-m", "--monitor")}.get(name, ())  # fmt: skip
    return any(arg in options for arg in args)


def _reader_ends(command: SimpleCommand) -> bool:
    """Whether the pipeline after the command stops reading by itself."""
    stage = command.pipes_to
    while stage is not None:
        if not stage.words:
            return False  # a compound stage: `| while read l; do ...; done` reads to the end
        reader = unwrap(stage.words, stage.assignments)
        name = reader.name or ""
        args = [a.text for a in reader.args]
        if name == "head":
            limit = head_limit([a for a in args if a is not None]) if None not in args else ("lines", 10.0)
            return limit is not None and (limit[0] == "bytes" or limit[1] <= MOST_LINES)
        if "xargs" in reader.wrappers:
            return False  # xargs reads all its input
        if name == "tr" and any((a or "").startswith("-") and "d" in (a or "") for a in args):
            return False  # `tr -d` may drop everything, and then no reader downstream ever ends
        if name not in _STREAMING:
            # A program that reads only what it needs (`yes | cp -i a b`) ends it; filters do not.
            return name not in _READ_TO_END
        stage = stage.pipes_to
    return False


def _time_limited(inv: Invocation, command: SimpleCommand) -> bool:
    """`timeout N cmd` with 0 < N within the longest run (`timeout 0` is no limit)."""
    if "timeout" not in inv.wrappers:
        return False
    words = [w.text for w in command.words]
    start = next((i for i, w in enumerate(command.words) if command_name(w) == "timeout"), len(words))
    index = start + 1
    while index < len(words) and (words[index] or "").startswith("-"):
        index += 2 if words[index] in ("-s", "--signal", "-k", "--kill-after") else 1
    duration = words[index] if index < len(words) else None
    seconds = duration_seconds([duration]) if duration is not None else None
    return seconds is not None and 0 < seconds <= LONGEST_RUN_S


def _writes_files(command: SimpleCommand) -> bool:
    """Whether the command, or a later stage of its pipeline, writes to a file."""
    stage: SimpleCommand | None = command
    while stage is not None:
        if not stage.words:
            return True  # a compound stage may write anything
        if any(r.writes and r.target.text not in ("/dev/null", "/dev/stdout", "/dev/stderr") for r in stage.redirects):
            return True
        inv = unwrap(stage.words, stage.assignments)
        args = [a.text or "" for a in inv.args]
        if inv.name == "tee" and any(not a.startswith("-") for a in args):
            return True
        if inv.name == "dd" and any(a.startswith("of=") and a != "of=/dev/null" for a in args):
            return True
        stage = stage.pipes_to
    return False
