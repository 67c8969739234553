"""Programs that run commands or scripts given in their own options and operands: one table
of which option or operand holds code, and in what language, read like `sh -c`'s.

`vim -c`/`+cmd`/`--cmd` (Ex commands), `gdb -ex`/`--args`, `lldb -o`, `python -m pdb -c`,
`python -m timeit`, `sqlite3` SQL and `-cmd`, `script -c` (or the shell it starts, reading its
input), `flock -c`, `parallel`, `strace -o '|cmd'`, `valgrind --db-command`, `man -P`/`-H`,
`make --eval` and make's command-line variables, `mapfile -C`, `rlwrap -z`, `less +!cmd`,
`history -s` (which `fc` then runs), `emacs --eval`, `setarch ARCH cmd`. Files these programs
run (`gdb -x`, `vim -S`, their standard input) are `agent.policy.file_runs`'s; programs that
only wrap a command (`valgrind cmd`, `chrt 0 cmd`) are peeled in `agent.policy.wrappers`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from agent.policy.findings import Finding
from agent.policy.interpreters import INLINE_CODE, SHELLS
from agent.policy.options import word_values
from agent.policy.script_text import Language, ScriptText
from agent.policy.shell_model import SimpleCommand
from agent.policy.words import Word
from agent.policy.wrappers import Invocation, command_name
from contracts.actions import ReasonCode

# Program → ((options whose value is code), language).
_CODE_OPTIONS: dict[str, tuple[tuple[str, ...], Language]] = {
    **dict.fromkeys(
        ("vi", "vim", "view", "ex", "rvim", "nvim", "gvim", "vimdiff", "vim.basic", "vim.tiny", "vim.nox"),
        (("-c", "--cmd"), "vim"),
    ),
    "gdb": (("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command",
             "--init-eval-command"), "gdb"),
    "lldb": (("-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"), "lldb"),
    "sqlite3": (("-cmd", "--cmd"), "sqlite"),
    "emacs": (("--eval", "-eval", "--execute", "-execute"), "other"),
    "valgrind": (("--db-command",), "shell"),
    "man": (("-P", "--pager", "--html"), "shell"),
    "make": (("--eval", "-E"), "make"),
    "mapfile": (("-C",), "shell"),
    "readarray": (("-C",), "shell"),
    "rlwrap": (("-z", "--filter"), "shell"),
    "psql": (("-c", "--command"), "sqlclient"),
    "mysql": (("-e", "--execute"), "sqlclient"),
    "mariadb": (("-e", "--execute"), "sqlclient"),
    "dc": (("-e", "--expression"), "dc"),
}  # fmt: skip
_ARCHES = {"setarch", "linux32", "linux64", "i386", "x86_64", "uname26"}
_PARALLEL_VALUED = {"-j", "--jobs", "-a", "--arg-file", "-d", "--delimiter", "-I", "--colsep", "-C", "-S"}
_PARALLEL_VALUED |= {"--sshlogin", "--env", "-N", "-n", "--max-args", "-L", "--timeout", "--joblog", "--results"}
_PARALLEL_VALUED |= {"--tmpdir", "--workdir", "--basefile", "--return", "-E", "--tagstring", "--halt", "--delay"}
_FIND_WRITES = {"-fprint", "-fprint0", "-fls", "-fprintf"}
# Programs whose arguments are text or patterns, never a command they run (`echo sh -c x`).
_DATA_ARGUMENTS = {"echo", "printf", "grep", "egrep", "fgrep", "rg", "git", "man", "which", "type", "whatis"}
_DATA_ARGUMENTS |= {"apropos", "help", "test", "[", "cat", "find", "xargs", "sed", "awk", "jq", "command", "hash"}
_SHELL_METACHARACTERS = re.compile(r"[;&|`<>\n]|\$\(")


@dataclass
class Runners:
    scripts: list[ScriptText] = field(default_factory=list)
    # Command lines the program runs as argument vectors, with the input they read.
    commands: list[tuple[tuple[Word, ...], SimpleCommand | None]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Files the program writes, judged as a redirect's target.
    writes: list[Word] = field(default_factory=list)


def runners(inv: Invocation, command: SimpleCommand) -> Runners:
    name = inv.name or ""
    args = inv.args
    found = Runners()
    if name in _CODE_OPTIONS:
        flags, language = _CODE_OPTIONS[name]
        found.scripts += [ScriptText(language, v, f"`{name} {flags[0]}`") for v in word_values(args, flags)]
    if name in _CODE_OPTIONS and _CODE_OPTIONS[name][1] == "vim":  # `vim +cmd` (not `+` or `+42`), `ex -sc cmd`
        pluses = [Word.literal(a.text[1:]) for a in args if a.text and re.fullmatch(r"\+.*\D.*", a.text)]
        found.scripts += [ScriptText("vim", w, f"`{name} +cmd`") for w in pluses]
        clustered = [args[i + 1] for i, a in enumerate(args[:-1]) if re.fullmatch(r"-[A-Za-z]+c", a.text or "")]
        found.scripts += [ScriptText("vim", w, f"`{name} -c`") for w in clustered]
    if name == "man":
        found.scripts += [ScriptText("shell", Word.literal(a.text[2:]), "`man -H`") for a in args if _attached(a, "-H")]
    if name == "gdb" or name == "lldb":
        marker = "--args" if name == "gdb" else "--"
        texts = [a.text for a in args]
        if marker in texts and texts.index(marker) + 1 < len(args):
            found.commands.append((args[texts.index(marker) + 1 :], None))
    elif name == "python":
        _python_module(args, found)
    elif name == "sqlite3":
        operands = _operands(args, {"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-mmap", "-vfs"})
        found.scripts += [ScriptText("sqlite", w, "an argument of `sqlite3`") for w in operands[1:]]
    elif name in ("script", "flock"):
        _command_option(name, args, command, found)
    elif name in ("parallel", "sem"):
        _parallel(name, args, command, found)
    elif name == "strace":
        for value in word_values(args, ("-o", "--output")):
            if value.text is not None and value.text[:1] in ("|", "!"):
                found.scripts.append(ScriptText("shell", Word.literal(value.text[1:]), "`strace -o |cmd`", piped=True))
    elif name == "make":
        _make_variables(args, found)
    elif name == "less":
        commands = [a.text[2:] for a in args if a.text and re.match(r"\+[!|]", a.text)]
        found.scripts += [ScriptText("shell", Word.literal(c), "`less +!cmd`") for c in commands]
    elif name == "history" and args and args[0].text == "-s":
        found.scripts.append(ScriptText("shell", _joined(args[1:]), "`history -s`, which `fc` runs"))
    elif name == "fc" and not any(re.fullmatch(r"-\w*l\w*", a.text or "") for a in args):
        message = "`fc` runs commands from the shell's history, which the verifier cannot see: write them out"
        found.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    elif (name == "hash" and any(a.text == "-p" for a in args)) or (
        name == "shopt" and "expand_aliases" in [a.text for a in args] and "-s" in [a.text for a in args]
    ):
        message = f"`{name}` makes a command name run another program, out of the verifier's sight: name it"
        found.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    elif name == "cmake" and args[:1] and args[0].text == "-E" and len(args) > 2:
        # `cmake -E env X=1 cmd`, `cmake -E chdir dir cmd`, `cmake -E time cmd` run the command.
        tool = args[1].text
        rest = list(args[3:] if tool == "chdir" else args[2:])
        while rest and ("=" in (rest[0].text or "") or (rest[0].text or "").startswith("-")):
            rest = rest[1:]  # `env`'s settings and options
        if tool in ("env", "chdir", "time") and rest:
            found.commands.append((tuple(rest), command))
    elif name in _ARCHES:
        rest = list(args[1:] if name == "setarch" else args)  # after the architecture
        while rest and (rest[0].text or "").startswith("-"):
            rest = rest[1:]
        if rest:
            found.commands.append((tuple(rest), command))
        else:  # no command: setarch starts a shell, which reads its input
            found.scripts.append(ScriptText("shell", _stdin(command), f"the shell `{name}` starts"))
    if name == "find":
        found.writes += [args[i + 1] for i, a in enumerate(args[:-1]) if a.text in _FIND_WRITES]
    if name in ("npm", "npx", "pnpm") and (calls := word_values(args, ("-c", "--call"))):
        found.scripts += [ScriptText("shell", w, f"`{name} exec -c`") for w in calls]  # npm exec -c 'cmd'
    if name not in _DATA_ARGUMENTS and not found.commands:
        found.commands += [(args[i:], command) for i in _embedded_interpreters(args)]
    return found


def _embedded_interpreters(args: tuple[Word, ...]) -> list[int]:
    """Where a program we do not know runs a command line it was given: `bwrap ... sh -c CODE`,
    `ssh-agent python3 -c CODE`. Separate words naming an interpreter and its code option are
    that, whatever wraps them."""
    found = []
    for index, word in enumerate(args[:-2]):
        name = command_name(word)
        option = args[index + 1].text or ""
        shell = name in SHELLS and re.fullmatch(r"-\w*c\w*", option) is not None
        inline = name in INLINE_CODE and re.fullmatch(rf"-\w*[{INLINE_CODE[name] or 'e'}]\w*", option) is not None
        if shell or inline or (name == "python" and option == "-c"):
            found.append(index)
    return found[:1]


def _python_module(args: tuple[Word, ...], found: Runners) -> None:
    texts = [a.text for a in args]
    if "-m" not in texts or texts.index("-m") + 1 >= len(args):
        return
    module = texts[texts.index("-m") + 1]
    rest = args[texts.index("-m") + 2 :]
    if module == "timeit":
        setups = word_values(rest, ("-s", "--setup"))
        statements = _operands(rest, {"-s", "--setup", "-n", "--number", "-r", "--repeat", "-u", "--unit"})
        found.scripts += [ScriptText("python", w, "`python -m timeit`") for w in setups + statements]
    elif module == "pdb":
        found.scripts += [ScriptText("pdb", w, "`python -m pdb -c`") for w in word_values(rest, ("-c", "--command"))]


def _command_option(name: str, args: tuple[Word, ...], command: SimpleCommand, found: Runners) -> None:
    """`script -qc CMD`, `script --command=CMD`, `flock -nc CMD`: the exact `-c` is the interpreter rules'."""
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text.startswith("--command="):
            found.scripts.append(ScriptText("shell", Word.literal(text.split("=", 1)[1]), f"`{name} --command`"))
        elif re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", text) and text != "-c":
            value = text.split("c", 1)[1] or (args[index + 1] if index + 1 < len(args) else Word.literal(""))
            value = Word.literal(value) if isinstance(value, str) else value
            found.scripts.append(ScriptText("shell", value, f"`{name} -c`"))
    given = any(re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*|--command(=.*)?", a.text or "") for a in args)
    if name == "script" and not given:  # the shell script starts reads its input
        found.scripts.append(ScriptText("shell", _stdin(command), "the shell `script` starts"))


def _parallel(name: str, args: tuple[Word, ...], command: SimpleCommand, found: Runners) -> None:
    """GNU parallel runs its template through a shell once per input; with no template, each input."""
    template: list[Word] = []
    inputs: list[Word] = []
    section = "options"
    skip = False
    for arg in args:
        text = arg.text
        if skip:
            skip = False
        elif text in (":::", ":::+", "::::", "::::+"):
            section = "files" if text.startswith("::::") else "inputs"
        elif section == "options" and text is not None and text.startswith("-"):
            skip = text in _PARALLEL_VALUED
        elif section == "options" or section == "template":
            section = "template"
            template.append(arg)
        else:
            inputs.append(arg if section == "inputs" else Word.unknown(arg.raw))
    if not inputs and name == "parallel":
        stdin = _stdin(command)
        inputs = [Word.literal(line) for line in stdin.text.split("\n") if line] if stdin.text else [stdin]
    line = _joined(template)
    for value in inputs or ([Word.literal("")] if template else []):
        if line.values is None or (value.values is None and not template):
            found.scripts.append(ScriptText("shell", Word.unknown(line.raw), f"`{name}`"))
            continue
        argument = shlex.quote(value.text or "") if value.text is not None else '"$PARALLEL_INPUT"'
        code = line.text or ""
        if not template:
            code = value.text or ""
        elif "{" in code:
            code = re.sub(r"\{[^{}\s]*\}", argument.replace("\\", "\\\\"), code)
        else:
            code = f"{code} {argument}"
        found.scripts.append(ScriptText("shell", Word.literal(code.strip()), f"`{name}`"))


def _make_variables(args: tuple[Word, ...], found: Runners) -> None:
    """`make VAR=value`: recipes run the value; `SHELL=prog` runs them all with prog."""
    for arg in args:
        text = arg.text
        if text is None or "=" not in text or text.startswith("-"):
            continue
        key, value = text.split("=", 1)
        if key == "SHELL" and value.split()[:1] and value.split()[0].rsplit("/", 1)[-1] not in SHELLS:
            message = f"`make SHELL={value}` runs every recipe with a program that is not a shell"
            found.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
        elif _SHELL_METACHARACTERS.search(value):
            found.scripts.append(ScriptText("shell", Word.literal(value), f"the make variable {key}"))


def _operands(args: tuple[Word, ...], valued: set[str]) -> list[Word]:
    found = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif (arg.text or "").startswith("-") and arg.text != "-":
            skip = arg.text in valued
        else:
            found.append(arg)
    return found


def _attached(word: Word, flag: str) -> bool:
    return word.text is not None and word.text.startswith(flag) and len(word.text) > len(flag)


def _joined(words: tuple[Word, ...] | list[Word]) -> Word:
    if any(w.values is None for w in words):
        return Word.unknown(" ".join(w.raw for w in words))
    return Word.literal(" ".join(w.text or "" for w in words))


def _stdin(command: SimpleCommand) -> Word:
    """What a program reads as commands on its input: known text, else text known only at run time."""
    stdin = command.stdin
    if stdin is None:
        return Word.literal("")
    return stdin.word if stdin.kind == "text" else Word.unknown("<input>")
