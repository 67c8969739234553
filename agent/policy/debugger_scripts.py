"""Debugger commands (`gdb -ex`, `-x file`, `lldb -o`, `python -m pdb -c`), read for the code
they run besides debugging.

gdb's `shell`/`!`/`pipe`/`make`, lldb's `platform shell`, and `run` arguments (expanded by a
shell) are shell code; `python`, lldb's `script` and pdb statements are Python (both analysed);
`guile`, `compile`, `eval` and a call of `system()` or `dlopen()` in the debugged program run
code the verifier cannot read. Inspecting (`bt`, `info`, `break`, `print x`) is allowed; a
command this reader does not know is refused rather than guessed at.
"""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.interpreters import Code
from agent.policy.script_text import FileRun, Translation, shell
from agent.policy.words import Word
from contracts.actions import ReasonCode

_GDB: dict[str, tuple[int, str]] = {
    "shell": (3, "shell"), "pipe": (4, "pipe"), "python": (2, "python"), "python-interactive": (2, "python"),
    "pi": (2, "python"), "guile": (2, "other"), "compile": (3, "other"), "source": (2, "source"),
    "make": (4, "make"), "run": (1, "run"), "start": (5, "run"), "starti": (6, "run"), "set": (3, "set"),
    "print": (1, "expr"), "inspect": (3, "expr"), "call": (4, "expr"), "output": (3, "expr"),
    "printf": (6, "expr"), "display": (4, "expr"), "x": (1, "expr"), "ptype": (5, "expr"), "whatis": (6, "expr"),
    "dprintf": (7, "expr"), "condition": (4, "expr"), "thread": (2, "apply"), "frame": (1, "apply"),
    "taas": (4, "apply"), "tfaas": (5, "apply"), "faas": (4, "apply"),
    **{name: (len(name), "plain") for name in (
        "bt", "backtrace", "where", "info", "i", "list", "l", "break", "b", "br", "tbreak", "rbreak", "hbreak",
        "watch", "rwatch", "awatch", "delete", "d", "disable", "enable", "ignore", "continue", "c", "fg", "next",
        "n", "step", "s", "stepi", "si", "nexti", "ni", "finish", "fin", "until", "u", "advance", "up", "down",
        "kill", "k", "detach", "quit", "q", "show", "help", "h", "echo", "disassemble", "tty", "file", "exec-file",
        "symbol-file", "core-file", "core", "directory", "dir", "handle", "signal", "catch", "generate-core-file",
        "gcore", "dump", "add-symbol-file", "sharedlibrary", "define", "document", "end", "if", "else", "while",
        "commands", "jump", "return", "record", "tui", "layout", "focus", "checkpoint", "restart",
    )},
}  # fmt: skip
_LLDB = {"platform": "platform", "shell": "shell", "script": "python", "scr": "python", "command": "command"}
_LLDB |= dict.fromkeys(("expression", "expr", "e", "p", "print", "po", "call"), "expr")
_LLDB |= dict.fromkeys(("run", "r", "process"), "run")
_LLDB |= dict.fromkeys(
    ("breakpoint", "b", "br", "bt", "thread", "frame", "fr", "register", "reg", "memory", "mem", "image", "im",
     "target", "quit", "q", "continue", "c", "next", "n", "step", "s", "finish", "settings", "version", "help",
     "watchpoint", "disassemble", "di", "type", "log", "apropos", "up", "down"),
    "plain",
)  # fmt: skip
_PDB_PLAIN = {
    "c", "cont", "continue", "n", "next", "s", "step", "r", "return", "q", "quit", "exit", "bt", "w", "where",
    "u", "up", "d", "down", "l", "list", "ll", "longlist", "a", "args", "h", "help", "cl", "clear", "disable",
    "enable", "ignore", "j", "jump", "run", "restart", "unt", "until", "retval", "rv", "undisplay", "tbreak",
    "b", "break",
}  # fmt: skip
_PDB_EXPRESSION = {"p", "pp", "display", "whatis", "source"}
# Functions of the debugged program that start another program or load code.
_RUNS_SHELL = re.compile(r"(\$_shell|\bsystem|\bpopen)\s*\(\s*\"((?:[^\"\\]|\\.)*)\"")
_STARTS_PROGRAMS = re.compile(r"(\$_shell|\bsystem|\bpopen|\bexec[lv]p?e?|\bposix_spawnp?|\bdlopen)\s*\(")


def read_gdb(text: str, origin: str) -> Translation:
    result = Translation()
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        index += 1
        name = re.match(r"[|!]|[\w-]*", line).group()  # type: ignore[union-attr]
        argument = line[len(name) :].strip()
        kind = _gdb_kind(name)
        if kind in ("python", "other") and not argument:  # a block, up to its `end`
            block = []
            while index < len(lines) and lines[index].strip() != "end":
                block.append(lines[index])
                index += 1
            argument = "\n".join(block)
        _gdb_command(name, kind, argument, origin, result)
    return result


def _gdb_command(name: str, kind: str, argument: str, origin: str, result: Translation) -> None:
    where = f"`{name}` in {origin}"
    if not name or name.startswith("#") or kind == "plain":
        return
    if name == "!" or kind in ("shell", "make"):
        result.codes.append(shell(f"make {argument}" if kind == "make" else argument, where))
    elif name == "|" or kind == "pipe":
        delimiter = "|"
        if argument.startswith("-d "):
            delimiter, argument = argument[3:].split(" ", 1)[0], argument[3:].split(" ", 1)[-1]
        command, _, shell_command = argument.partition(delimiter)
        _gdb_command(*_split(command.strip()), origin, result)
        result.codes.append(shell(shell_command, where, piped=True))
    elif kind == "python":
        result.codes.append(Code("python", Word.literal(argument), where))
    elif kind == "other":
        result.codes.append(Code("other", Word.literal(argument), where))
    elif kind == "source":
        result.runs.append(FileRun(Word.literal(argument.split()[-1] if argument else ""), "gdb", where))
    elif kind == "run":
        result.codes.append(shell(f": {argument}", f"the arguments of {where}"))
    elif kind == "set":
        setting, _, value = argument.partition(" ")
        if setting == "exec-wrapper":
            result.codes.append(shell(value, f"`set exec-wrapper` in {origin}"))
        elif setting == "logging" and value.startswith("file "):
            result.files.append(Word.literal(value[5:].strip()))
            result.writes.append(Word.literal(value[5:].strip()))
        else:
            _expression(argument, where, result)
    elif kind == "expr":
        _expression(argument, where, result)
    elif kind == "apply":
        selector = re.match(r"(apply\s+)?((all|level|-\w+|[\d.\-]+)\s+)*", argument)
        if argument.startswith("apply") or name in ("taas", "tfaas", "faas"):
            _gdb_command(*_split(argument[selector.end() :]), origin, result)  # type: ignore[union-attr]
    else:
        result.findings.append(_dynamic(f"the gdb command `{name}` in {origin}"))


def _split(command: str) -> tuple[str, str, str]:
    name = re.match(r"[|!]|[\w-]*", command).group()  # type: ignore[union-attr]
    return name, _gdb_kind(name), command[len(name) :].strip()


def _gdb_kind(name: str) -> str:
    if name in _GDB:
        return _GDB[name][1]
    matches = {kind for full, (shortest, kind) in _GDB.items() if len(name) >= shortest and full.startswith(name)}
    return matches.pop() if len(matches) == 1 else "unknown"


def read_lldb(text: str, origin: str) -> Translation:
    result = Translation()
    for line in text.split("\n"):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        kind = _LLDB.get(words[0], "unknown")
        rest = line.strip()[len(words[0]) :].strip()
        where = f"`{words[0]}` in {origin}"
        if kind == "platform" and words[1:2] in (["shell"], ["sh"]):
            result.codes.append(shell(rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else "", where))
        elif kind == "shell":
            result.codes.append(shell(rest, where))
        elif kind == "python":
            result.codes.append(Code("python", Word.literal(rest), where))
        elif kind == "command" and words[1:3] == ["script", "import"] and len(words) > 3:
            result.runs.append(FileRun(Word.literal(words[-1]), "python", where))
        elif kind == "command" and words[1:2] == ["source"] and len(words) > 2:
            result.runs.append(FileRun(Word.literal(words[-1]), "lldb", where))
        elif kind == "expr":
            _expression(rest, where, result)
        elif kind == "run":
            result.codes.append(shell(": " + rest.partition("--")[2], f"the arguments of {where}"))
        elif kind != "plain":
            result.findings.append(_dynamic(f"the lldb command `{line.strip()[:40]}` in {origin}"))
    return result


def read_pdb(text: str, origin: str) -> Translation:
    """pdb runs any line it does not know as a Python statement, so that is how it is read."""
    result = Translation()
    for command in re.split(r";;|\n", text):
        command = command.strip()
        word, _, rest = command.partition(" ")
        if not command or (word in _PDB_PLAIN and "," not in rest):
            continue
        if command.startswith("!"):
            code = command[1:]
        elif word in _PDB_EXPRESSION:
            code = f"print({rest})"
        elif word in ("debug", "interact", "alias", "commands", "condition", "b", "break", "tbreak"):
            code = rest if word == "debug" else None
            if word in ("condition", "b", "break", "tbreak"):
                code = f"print({rest.split(',', 1)[-1] if ',' in rest else rest.partition(' ')[2]})"
        else:
            code = command
        if code is None:
            result.findings.append(_dynamic(f"the pdb command `{word}` in {origin}"))
        else:
            result.codes.append(Code("python", Word.literal(code), f"`{word}` in {origin}"))
    return result


def _expression(expression: str, where: str, result: Translation) -> None:
    """A call in the debugged program: `system("cmd")` runs cmd; the others, unseen code."""
    literal = _RUNS_SHELL.search(expression)
    if literal is not None:
        result.codes.append(shell(re.sub(r"\\(.)", r"\1", literal.group(2)), where))
    elif _STARTS_PROGRAMS.search(expression):
        result.findings.append(_dynamic(f"a call that starts a program in {where}"))


def _dynamic(what: str) -> Finding:
    return Finding(ReasonCode.DYNAMIC_CODE, f"{what} runs code the verifier cannot read: debug with plain commands")
