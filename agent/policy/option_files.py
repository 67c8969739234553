"""Files named like options: wildcard injection.

A shell expands `*` to the names in the directory, and a program reads a name that starts with
`-` as one of its options. So a file named `--checkpoint-action=exec=sh x.sh` (beside one named
`--checkpoint=1`) makes a later `tar cf backup.tar *` run `sh x.sh`; `-e sh x.sh` does the same to
`rsync`, `--reference=f` changes what `chmod`/`chown` do, `-TT cmd` runs a command from `zip`.
Whoever runs that glob, the agent next step or a person later, runs code nobody reviewed.

Two rules. Creating such a name (a file tool's path, or a command that creates a file or a
directory: a redirect, `touch`, `cp`/`mv`/`ln`/`install` destinations, `mkdir`, `tee`, `dd of=`,
`truncate`, Python's `open`) is refused: no project needs a file whose name is an option, and
a model that asks for one is being steered. And a glob given to a program that takes harmful
options is refused when the glob is not fenced off from options (by `--` before it, or a `./`
or directory prefix) and the directory it expands in holds a name starting with `-` that it
matches, since the name then arrives as an option. Without such a name the glob expands to
ordinary names only, so `tar czf out.tgz *` in an ordinary workspace stays allowed: refusing
every glob would refuse everyday archiving to guard against a name the first rule already
keeps the agent from creating.
"""

from __future__ import annotations

import os
import posixpath
import re
import time
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from agent.hostile_tree import WalkTooLong, walk
from agent.policy.file_rules import operands
from agent.policy.findings import Finding
from agent.policy.path_spelling import spelling_message, suspicious_spelling
from agent.policy.paths import Where, candidates
from agent.policy.shell_model import SOMEWHERE_INSIDE, SimpleCommand
from agent.policy.words import DYNAMIC, Word
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

# A name a program takes for an option: a dash, then a letter or digit (`-e`, `-1`, `--x=y`).
_OPTION_LIKE = re.compile(r"^--?[A-Za-z0-9]")


@dataclass(frozen=True)
class Injectable:
    code: ReasonCode
    # What an option smuggled in as a file name makes the program do.
    does: str


_RUNS = ReasonCode.DYNAMIC_CODE
# Programs that take a glob of workspace names, and what a name read as an option can make them
# do. (agent.policy.interpreters knows the options of tar/zip/rsync whose value is a command;
# here every option counts, since the name can be any of them.)
INJECTABLE: dict[str, Injectable] = {
    "tar": Injectable(_RUNS, "runs a command (`--checkpoint-action=exec=...`, `--to-command`, `-I`)"),
    "gtar": Injectable(_RUNS, "runs a command (`--checkpoint-action=exec=...`, `--to-command`, `-I`)"),
    "bsdtar": Injectable(_RUNS, "runs a command (`--use-compress-program`)"),
    "rsync": Injectable(_RUNS, "runs a command (`-e`, `--rsh`, `--rsync-path`)"),
    "zip": Injectable(_RUNS, "runs a command (`-TT`, `--unzip-command`)"),
    "sort": Injectable(_RUNS, "runs a program (`--compress-program`)"),
    "split": Injectable(_RUNS, "runs a command (`--filter`)"),
    "find": Injectable(_RUNS, "runs a command (`-exec`) or deletes (`-delete`)"),
    "scp": Injectable(_RUNS, "runs a command (`-oProxyCommand=...`)"),
    "sed": Injectable(_RUNS, "runs a command (`--expression=e ...`)"),
    "awk": Injectable(_RUNS, "runs a program (`--source=...`, `-f`) that may run commands"),
    "gawk": Injectable(_RUNS, "runs a program (`--source=...`, `-f`) that may run commands"),
    "7z": Injectable(ReasonCode.DESTRUCTIVE_COMMAND, "deletes the files it archived (`-sdel`)"),
    "7za": Injectable(ReasonCode.DESTRUCTIVE_COMMAND, "deletes the files it archived (`-sdel`)"),
    "7zr": Injectable(ReasonCode.DESTRUCTIVE_COMMAND, "deletes the files it archived (`-sdel`)"),
    "chmod": Injectable(ReasonCode.PRIVILEGE_CHANGE, "copies another file's mode (`--reference`)"),
    "chown": Injectable(ReasonCode.PRIVILEGE_CHANGE, "copies another file's owner (`--reference`)"),
    "chgrp": Injectable(ReasonCode.PRIVILEGE_CHANGE, "copies another file's group (`--reference`)"),
}
# Program -> options that take a value, for programs that create the names they are given.
_CREATORS: dict[str, set[str]] = {
    "touch": {"-d", "--date", "-r", "--reference", "-t"},
    "mkdir": {"-m", "--mode", "--context"},
    "mkfifo": {"-m", "--mode", "--context"},
    "tee": set(),
    "truncate": {"-s", "--size", "-r", "--reference"},
}
_AWKS = {"awk", "gawk", "mawk", "nawk"}
# awk's `print > "name"` creates the file.
_AWK_WRITES = re.compile(r'>>?\s*"([^"]+)"')
# Only the destination is created: the last operand, or the `-t` directory.
_COPIERS: dict[str, set[str]] = {
    "cp": {"-t", "--target-directory", "-S", "--suffix"},
    "mv": {"-t", "--target-directory", "-S", "--suffix"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory", "-S", "--suffix"},
    "rsync": {"-e", "--rsh", "--rsync-path", "--exclude", "--include", "--filter", "-f"},
}
# Python calls that create a file or directory named by one of their arguments.
_PYTHON_CREATES = re.compile(
    r"(?:\b(?:open|Path|os\.(?:mknod|mkfifo|mkdir|makedirs|rename|replace|symlink|link))|shutil\.(?:copy\w*|move)"
    r"|\.(?:rename|hardlink_to))\((?P<args>[^()]*)"
)
_PYTHON_STRING = re.compile(r"""[rbuRBU]{0,2}(?P<q>['"])(?P<text>[^'"]*)(?P=q)""")
# `'-' + '-x'`: literals joined by `+` are one name.
_PYTHON_JOINED = re.compile(r"""(['"])\s*\+\s*[rbuRBU]{0,2}['"]""")
# How long the walk of a workspace may take when the glob's directory cannot be pinned down.
_WALK_SECONDS = 1.0


def option_like(path: str) -> str | None:
    """The first part of the path that a program would read as an option, or None."""
    return next((part for part in path.split("/") if _OPTION_LIKE.match(part)), None)


def created_option_message(who: str, path: str, part: str) -> str:
    return (
        f"{who} {path!r}: a file named {part!r} is read as one of its options by a later `tar cf x *` "
        "(or rsync, zip, chmod ...), which obeys it; name files without a leading '-'"
    )


def option_file_findings(invocation: Invocation, command: SimpleCommand, where: Where) -> list[Finding]:
    """Names like options that the command creates, and globs that would hand it such names.
    A created name spelled to pass for another (agent.policy.path_spelling: `.git` + U+0338)
    is refused here too, for the same reason a file tool's is."""
    findings = []
    who = f"`{invocation.name}` creates" if invocation.argv else "a redirect creates"
    for word in created_names(invocation, command):
        for text in candidates(word):
            # `--checkpoint=$N` is an option whatever N is.
            if (part := option_like(text.replace(DYNAMIC, "x"))) is not None:
                shown = text.replace(DYNAMIC, "$…")
                findings.append(Finding(ReasonCode.SUSPICIOUS_PATH, created_option_message(who, shown, part)))
                break
            if DYNAMIC not in text and (why := suspicious_spelling(text)) is not None:
                findings.append(Finding(ReasonCode.SUSPICIOUS_PATH, f"{who} {spelling_message(text, why)}"))
                break
    findings.extend(_injected_globs(invocation, command, where))
    return findings


def created_names(invocation: Invocation, command: SimpleCommand) -> list[Word]:
    """The files and directories the command creates, as far as its words show."""
    found = [redirect.target for redirect in command.redirects if redirect.writes]
    name = invocation.name or ""
    args = invocation.args
    if "xargs" in invocation.wrappers and command.stdin is not None and command.stdin.kind == "text":
        # `printf '%s\n' a b | xargs touch --`: the lines become more arguments.
        text = command.stdin.word.text or ""
        args = (*args, *(Word.literal(item) for item in text.split()))
    if name == "git" and args and args[0].text == "mv":
        name, args = "mv", args[1:]
    if name in _CREATORS:
        found += operands(args, _CREATORS[name])
    elif name in _COPIERS:
        found += _copied(args, _COPIERS[name])
    elif name == "split":  # `split FILE PREFIX` makes PREFIXaa, PREFIXab, ...
        found += operands(args, {"-l", "-b", "-C", "-n", "-a", "--additional-suffix", "--filter"})[1:2]
    elif name in _AWKS:
        found += [Word.literal(target) for a in args for target in _AWK_WRITES.findall(a.text or "")]
    elif name == "dd":
        found += [Word.literal(a.text[3:]) for a in args if a.text and a.text.startswith("of=")]
    elif name == "python":
        texts = [a.text or "" for a in args]
        if command.stdin is not None and command.stdin.kind == "text":
            texts.append(command.stdin.word.text or "")
        found += [Word.literal(name) for text in texts for name in _python_created(text)]
    return found


def _python_created(code: str) -> list[str]:
    """The string literals among the arguments of Python calls that create files."""
    joined = _PYTHON_JOINED.sub("", code)
    return [s.group("text") for call in _PYTHON_CREATES.finditer(joined) for s in _PYTHON_STRING.finditer(call["args"])]


def _copied(args: tuple[Word, ...], valued: set[str]) -> list[Word]:
    """The destination, and each source's name inside it (`cp ./-x dir/` makes `dir/-x`)."""
    named = operands(args, valued)
    targets = [args[i + 1] for i, a in enumerate(args[:-1]) if a.text in ("-t", "--target-directory")]
    destinations = targets or named[-1:]
    sources = named if targets else named[:-1]
    found = list(destinations)
    for destination in destinations:
        for source in sources:
            if source.text is not None and destination.text is not None:
                found.append(Word.literal(posixpath.join(destination.text, posixpath.basename(source.text))))
    return found


def _injected_globs(invocation: Invocation, command: SimpleCommand, where: Where) -> list[Finding]:
    injectable = INJECTABLE.get(invocation.name or "")
    if injectable is None or where.workspace is None:
        return []
    words = invocation.args
    if "xargs" in invocation.wrappers and command.stdin is not None and command.stdin.kind == "pipe":
        words = (*words, Word.unknown("(the names piped to xargs)"))  # `ls | xargs tar cf x`
    fenced = False
    for word in words:
        if word.text == "--":
            fenced = True
        if fenced or not _may_expand_to_options(word):
            continue
        patterns = [t for t in candidates(word) if "/" not in t] if word.is_static else ["*"]
        for pattern in patterns:
            if (name := _option_named_entry(where.workspace, where.cwds, pattern)) is not None:
                message = (
                    f"`{invocation.name}` gets {word.raw!r}, which expands to the workspace's file {name!r}: "
                    f"{invocation.name} reads it as an option, and that option {injectable.does}. "
                    f"Write `./{word.raw}` or put `--` before the file names, and remove {name!r}"
                )
                return [Finding(injectable.code, message)]
    return []


def _may_expand_to_options(word: Word) -> bool:
    """A glob that may match a name starting with `-`, or a word known only at run time."""
    if not word.is_static:
        return True
    return word.glob and any(text[:1] in ("*", "?", "[") for text in candidates(word))


def _option_named_entry(workspace: Path, cwds: frozenset[str], pattern: str) -> str | None:
    """A name starting with `-` that the glob matches where the command runs, if any."""
    root = workspace.resolve()
    for cwd in sorted(cwds):
        if cwd == SOMEWHERE_INSIDE:
            return _anywhere(root, pattern)
        if cwd.startswith(("/", "~", "..")):
            continue  # outside the workspace: the path rule refuses it
        directory = (root / cwd).resolve()
        if not directory.is_relative_to(root):
            continue
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name.startswith("-") and fnmatchcase(entry.name, pattern):
                        return entry.name
        except OSError:
            continue  # a directory the command creates first: empty now
    return None


def _anywhere(root: Path, pattern: str) -> str | None:
    """Any such name in the workspace, when the command's directory is not known. A workspace
    too large to walk in time is assumed to hold one."""
    try:
        for entry in walk(root, skip=lambda name: name == ".git", deadline=time.monotonic() + _WALK_SECONDS):
            name = entry.relative.rsplit("/", 1)[-1]
            if name.startswith("-") and fnmatchcase(name, pattern):
                return entry.relative
    except WalkTooLong:
        return "(a name the walk did not reach in time)"
    return None
