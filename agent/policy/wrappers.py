"""Commands that run another command: `env X=1 cmd`, `timeout 5 cmd`, `xargs cmd`, ...

Rules apply to the command that finally runs, so the wrappers are peeled off first.
Wrappers that are a problem in themselves (`sudo`, `setsid`, `chroot`) are not peeled:
the rules refuse them by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agent.policy.paths import SYSTEM_BIN_DIRS
from agent.policy.words import DYNAMIC, Word

# `nohup nice timeout 5 env X=1 cmd` is four; past this, nobody means it.
_MAX_WRAPPERS = 16
# env takes any word with `=` before the command as a setting: `BASH_FUNC_f%%=() {...}` too.
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|BASH_FUNC_[^=/]+)=(.*)", re.DOTALL)


@dataclass(frozen=True)
class _Spec:
    # Options that take the next word as their value.
    valued: frozenset[str] = frozenset()
    # Operands before the command (`timeout 5 cmd`, `flock lockfile cmd`).
    operands: int = 0


_WRAPPERS = {
    "nohup": _Spec(),
    "time": _Spec(frozenset({"-f", "--format", "-o", "--output"})),
    "builtin": _Spec(),
    "command": _Spec(),
    "busybox": _Spec(),
    "chronic": _Spec(),
    "unbuffer": _Spec(),
    "eatmydata": _Spec(),
    "catchsegv": _Spec(),
    "coproc": _Spec(),
    "exec": _Spec(frozenset({"-a"})),
    "nice": _Spec(frozenset({"-n", "--adjustment"})),
    "timeout": _Spec(frozenset({"-s", "--signal", "-k", "--kill-after"}), operands=1),
    "stdbuf": _Spec(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})),
    "ionice": _Spec(frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"})),
    "taskset": _Spec(operands=1),
    "flock": _Spec(frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}), operands=1),
    "strace": _Spec(frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-E", "-P", "-I", "-X", "-b"})),
    "ltrace": _Spec(frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n"})),
    # Debuggers, schedulers and shims that run the rest of the line (their own code options are
    # agent.policy.command_options's).
    "valgrind": _Spec(),
    "chrt": _Spec(frozenset({"-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"}), operands=1),
    "rlwrap": _Spec(
        frozenset({"-b", "-C", "-D", "-f", "-F", "-g", "-H", "-l", "-O", "-P", "-q", "-S", "-s", "-t", "-w", "-z"})
    ),
    "fakeroot": _Spec(frozenset({"-l", "--lib", "--faked", "-s", "-i"})),
    "xvfb-run": _Spec(
        frozenset({"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "--error-file"})
    ),
    "dbus-run-session": _Spec(frozenset({"--config-file", "--dbus-daemon"})),
    "numactl": _Spec(
        frozenset(
            {"-N", "-m", "-C", "-p", "-i", "--cpunodebind", "--membind", "--physcpubind", "--preferred", "--interleave"}
        )
    ),
    "faketime": _Spec(frozenset({"-m", "-f"}), operands=1),
    "nocache": _Spec(),
}
# Program subcommands that run the rest of the line as a command (`uv run pytest`).
_RUNNERS = {
    ("uv", "run"): _Spec(
        frozenset({"--with", "--with-editable", "--with-requirements", "-p", "--python", "--project", "--directory"})
        | {"--env-file", "--extra", "--group", "--package", "--index", "--index-url", "--extra-index-url", "-f"}
    ),
    ("poetry", "run"): _Spec(),
    ("pipenv", "run"): _Spec(),
    ("pdm", "run"): _Spec(),
    ("hatch", "run"): _Spec(),
    ("conda", "run"): _Spec(frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})),
    **dict.fromkeys(
        (("perf", "stat"), ("perf", "record"), ("perf", "trace")),
        _Spec(frozenset({"-e", "--event", "-o", "--output", "-p", "--pid", "-t", "--tid", "-C", "--cpu", "-r"})),
    ),
}
_ENV_VALUED = frozenset({"-u", "--unset", "-C", "--chdir", "-P"})
_XARGS_VALUED = frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-l", "-n", "--max-args", "-P"})
_XARGS_VALUED |= {"--max-procs", "-s", "--max-chars", "--process-slot-var"}


@dataclass(frozen=True)
class Invocation:
    """The command that finally runs, after its wrappers."""

    argv: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    # Wrapper names peeled off, outermost first.
    wrappers: tuple[str, ...] = ()
    # Directories a wrapper moves into (`env -C dir`): checked like path arguments.
    directories: tuple[Word, ...] = ()
    # Why the command line cannot be seen (`env -S string`), if it cannot.
    hidden: str | None = None
    # `command -v x`, `exec` with only redirects: nothing is run.
    runs_nothing: bool = False

    @property
    def name(self) -> str | None:
        return command_name(self.argv[0]) if self.argv else None

    @property
    def args(self) -> tuple[Word, ...]:
        return self.argv[1:]


def command_name(word: Word) -> str | None:
    """The name rules know a program by: `/usr/bin/python3.11` and `.venv/bin/python` are python."""
    text = word.text
    if text is None or not text:
        return None
    base = text.rsplit("/", 1)[-1]
    family = re.fullmatch(r"(python|pip|pypy|ipython)[\d.]*", base)
    if family is None:
        return base
    return "python" if family.group(1) in ("pypy", "ipython") else family.group(1)


def runs_outside_bin(word: Word) -> bool:
    """A program named by a path outside the standard bin directories is a path argument."""
    text = word.text or ""
    return "/" in text and text.rsplit("/", 1)[0] not in SYSTEM_BIN_DIRS


def unwrap(argv: tuple[Word, ...], assignments: tuple[tuple[str, Word], ...] = ()) -> Invocation:
    current = Invocation(argv, assignments)
    for _ in range(_MAX_WRAPPERS):
        name = current.name
        if name == "env":
            current = _env(current)
        elif name == "xargs":
            current = _xargs(current)
        elif name in ("command", "exec") and (len(current.argv) == 1 or _looks_up(current.args)):
            return replace(current, argv=(), runs_nothing=True, wrappers=(*current.wrappers, name))
        elif name in _WRAPPERS:
            current = _peel(current, name, _WRAPPERS[name])
        elif current.args and (name, current.args[0].text) in _RUNNERS:
            runner = replace(current, argv=current.argv[1:])  # the subcommand is the new "name"
            current = _peel(runner, f"{name} {current.args[0].text}", _RUNNERS[(name, current.args[0].text)])
        else:
            return current
    return replace(current, hidden=f"{_MAX_WRAPPERS} wrappers around one command")


def _looks_up(args: tuple[Word, ...]) -> bool:
    return bool(args) and args[0].text in ("-v", "-V")


def _peel(current: Invocation, name: str, spec: _Spec) -> Invocation:
    rest, _ = _skip_options(current.args, spec.valued, spec.operands)
    return replace(current, argv=rest, wrappers=(*current.wrappers, name))


def _skip_options(args: tuple[Word, ...], valued: frozenset[str], operands: int = 0) -> tuple[tuple[Word, ...], list]:
    """The words after a wrapper's options and operands, and the (option, value) pairs seen."""
    seen: list[tuple[str, Word | None]] = []
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None:
            break
        if text == "--":
            index += 1
            break
        if text.startswith("-") and len(text) > 1:
            value = args[index + 1] if text in valued and index + 1 < len(args) else None
            seen.append((text, value))
            index += 2 if value is not None else 1
        elif operands > 0:
            operands -= 1
            index += 1
        else:
            break
    return args[index:], seen


def _env(current: Invocation) -> Invocation:
    rest, options = _skip_options(current.args, _ENV_VALUED)
    directories = tuple(v for o, v in options if o in ("-C", "--chdir") and v is not None)
    directories += tuple(Word.literal(o.split("=", 1)[1]) for o, _ in options if o.startswith("--chdir="))
    directories += tuple(Word.literal(o[2:]) for o, _ in options if o.startswith("-C") and len(o) > 2)
    hidden = next((o for o, _ in options if o.startswith("--split-string") or _short_cluster_has(o, "S")), None)
    while rest and rest[0].text == "-":  # `env -` is `env -i`
        rest = rest[1:]
    assignments = list(current.assignments)
    while rest and (match := _ASSIGNMENT.fullmatch(rest[0].pattern)):
        value = rest[0]
        known = value.values is not None and DYNAMIC not in match.group(2)
        assignments.append((match.group(1), Word.literal(match.group(2)) if known else Word.unknown(value.raw)))
        rest = rest[1:]
    return replace(
        current,
        argv=rest,
        assignments=tuple(assignments),
        wrappers=(*current.wrappers, "env"),
        directories=current.directories + directories,
        hidden=hidden and f"`env {hidden}` splits a string into a command",
    )


def _short_cluster_has(option: str, letter: str) -> bool:
    return option.startswith("-") and not option.startswith("--") and letter in option


def _xargs(current: Invocation) -> Invocation:
    """`xargs cmd a` runs `cmd a <input words>`: the input is unknown, so those words are."""
    rest, options = _skip_options(current.args, _XARGS_VALUED)
    replace_token = next((v.text for o, v in options if o == "-I" and v is not None), None)
    replace_token = replace_token or next((o[2:] for o, _ in options if o.startswith("-I") and len(o) > 2), None)
    if any(o.startswith("-i") or o.startswith("--replace") for o, _ in options):
        replace_token = "{}"
    if not rest:
        rest = (Word.literal("echo"),)
    unknown = Word.unknown("<xargs input>")
    argv = (*rest, unknown)
    if replace_token:
        argv = tuple(unknown if replace_token in (w.text or "") else w for w in rest)
    return replace(current, argv=argv, wrappers=(*current.wrappers, "xargs"))


def find_exec_commands(args: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """The commands of `find ... -exec cmd {} ;` (also -execdir, -ok, -okdir, and `+`)."""
    commands = []
    current: list[Word] | None = None
    for arg in args:
        if current is None:
            if arg.text in ("-exec", "-execdir", "-ok", "-okdir"):
                current = []
        elif arg.text in (";", "+"):
            commands.append(tuple(current))
            current = None
        else:
            current.append(arg)
    if current:
        commands.append(tuple(current))
    return commands
