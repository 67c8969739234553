"""Which files a simple command runs as code, and in what language.

A shell's script operand, `.`/`source`, `python x.py` and `python -m mod` (pytest and unittest
their test files, pdb and cProfile their script), perl/node/ruby's script, `awk -f`, `sed -f`,
`make -f` or the Makefile make reads by itself, `gdb -x`, `vim -S`, `sqlite3 -init`, the
package.json of `npm test`, a program named by its path (`./tool`), a file fed on standard
input (`sh < x`), and the start-up files a setting names (`BASH_ENV`). `/dev/stdin` and a
process substitution (`bash <(printf ...)`) are not files: their text is returned as code.

The runs are matched against what the same command writes (`agent.policy.written_files`);
a file the command did not write is the workspace's, which the sandbox contains.
"""

from __future__ import annotations

import posixpath
import re

from agent.policy.file_writes import printed_by
from agent.policy.interpreters import INLINE_CODE, SHELLS
from agent.policy.options import word_values
from agent.policy.script_text import FileRun, Language, ScriptText
from agent.policy.shell_model import SimpleCommand
from agent.policy.shell_parse import parse
from agent.policy.tool_scripts import AWKS, SEDS
from agent.policy.words import Word
from agent.policy.wrappers import Invocation, runs_outside_bin

_STDIN_PATHS = {"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"}
_VIMS = {"vi", "vim", "view", "ex", "rvim", "nvim", "gvim", "vimdiff", "vim.basic", "vim.tiny", "vim.nox"}
_FILE_OPTIONS: dict[str, tuple[tuple[str, ...], Language]] = {
    **dict.fromkeys(AWKS, (("-f", "--file", "-E", "--exec"), "awk")),
    **dict.fromkeys(SEDS, (("-f", "--file"), "sed")),
    "gdb": (("-x", "--x", "-command", "--command", "-ix", "--init-command", "-init-command"), "gdb"),
    "lldb": (("-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash"), "lldb"),
    "sqlite3": (("-init", "--init"), "sqlite"),
    "node": (("-r", "--require", "--import"), "other"),
    "emacs": (("-l", "--load", "-load", "--script", "-script"), "other"),
    "psql": (("-f", "--file"), "sqlclient"),
    "cmake": (("-P",), "other"),
    "ctest": (("-S",), "other"),
}
_VALUED = dict.fromkeys(SHELLS, ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"))
_VALUED["sqlite3"] = ("-cmd", "-init", "-separator", "-newline", "-nullvalue", "-mmap", "-vfs", "-maxsize", "-escape")
_TEST_FILES = ("*test_*.py", "*_test.py", "*conftest.py")
_SOURCE_RUNNERS = {"ts-node", "tsx", "runghc", "runhaskell", "rdmd", "groovy", "scala", "kotlin", "elixir", "escript"}
_SOURCE_RUNNERS |= {"guile", "racket", "sbcl", "clisp", "ocaml", "java", "jshell", "swift", "crystal", "nim"}
_SOURCE_SUBCOMMANDS = {("go", "run"), ("deno", "run"), ("bun", "run"), ("dotnet", "script"), ("cargo", "script")}
_NPM_RUNS = {"test", "t", "tst", "start", "stop", "restart", "run", "run-script", "rum", "urn"}


def runs_of(inv: Invocation, command: SimpleCommand) -> tuple[list[FileRun], list[ScriptText]]:
    """The files the command runs, and the code it reads from `/dev/stdin` or `<( )`."""
    name = inv.name or ""
    args = inv.args
    runs: list[FileRun] = []
    texts: list[ScriptText] = []
    if inv.argv and (runs_outside_bin(inv.argv[0]) or inv.argv[0].text == "{}"):  # `find -exec {} ;` too
        runs.append(FileRun(inv.argv[0], "exec", f"the program {inv.argv[0].raw!r}"))
    options, operands = _split(args, _VALUED.get(name, ()))
    if name in SHELLS and not any(re.fullmatch(r"-\w*c\w*", o) for o in options):
        values = word_values(args, ("--rcfile", "--init-file"))
        runs += [FileRun(v, "shell", f"`{name} --rcfile`") for v in values]
        reads_stdin = any(re.fullmatch(r"-\w*s\w*", o) for o in options) or not operands
        _script(None if reads_stdin else operands[0], "shell", name, command, runs, texts)
    elif name in ("source", ".") and args:
        _script(args[0], "shell", name, command, runs, texts)
    elif name == "python":
        _python(args, command, runs, texts)
    elif name in ("pytest", "py.test"):
        runs += _tests(operands, "pytest", word_values(args, ("-p",)))
    elif name in INLINE_CODE and not _inline(name, options):
        _script(operands[0] if operands else None, "other", name, command, runs, texts)
    elif name in ("make", "gmake"):
        for makefile in _makefiles(args):
            _script(makefile, "make", name, command, runs, texts)
    elif name in _VIMS:
        for value in word_values(args, ("-S", "-u")):
            if value.text not in ("NONE", "NORC", "DEFAULTS"):
                _script(value, "vim", f"{name} -S", command, runs, texts)
        if name == "ex" or any(re.fullmatch(r"-[eE]s?|-s[eE]", o) for o in options):
            _script(None, "vim", name, command, runs, texts)
    elif name in ("ed", "red", "gdb", "lldb", "dc", "m4"):
        language = {"red": "ed"}.get(name, name)
        for operand in operands if name == "m4" else []:
            _script(operand, "m4", name, command, runs, texts)
        _script(None, language, name, command, runs, texts)  # type: ignore[arg-type]
    elif name in ("psql", "mysql", "mariadb") and not word_values(args, ("-c", "--command", "-e", "--execute")):
        _script(None, "sqlclient", name, command, runs, texts)
    elif name == "sqlite3" and len(operands) <= 1:
        _script(None, "sqlite", name, command, runs, texts)
    elif name in _SOURCE_RUNNERS or (operands and (name, operands[0].text) in _SOURCE_SUBCOMMANDS):
        # Programs that compile and run a source file in one go: code the verifier cannot read.
        sources = operands[1:] if (operands and (name, operands[0].text) in _SOURCE_SUBCOMMANDS) else operands
        runs += [FileRun(w, "other", f"`{name}`") for w in sources[:1]]
    elif _runs_notebooks(name, args):  # `jupyter nbconvert --execute nb.ipynb`, `papermill in.ipynb out.ipynb`
        notebooks = [w for w in operands if (w.text or "").endswith(".ipynb")]
        runs += [FileRun(w, "notebook", f"`{name}`") for w in notebooks[:1]]
    elif name in ("npm", "pnpm", "yarn") and operands and (name == "yarn" or operands[0].text in _NPM_RUNS):
        runs.append(FileRun(Word.literal("package.json"), "npm", f"`{name} {operands[0].raw}`"))
    if name in _FILE_OPTIONS:  # `awk -f F`, `gdb -x /dev/stdin`, `sed -f <(printf ...)`
        flags, language = _FILE_OPTIONS[name]
        for value in word_values(args, flags):
            _script(value, language, f"{name} {flags[0]}", command, runs, texts)
    return runs, texts


def _runs_notebooks(name: str, args: tuple[Word, ...]) -> bool:
    texts = [a.text for a in args]
    return name == "papermill" or (name == "jupyter" and ("execute" in texts or "--execute" in texts))


def _inline(name: str, options: list[str]) -> bool:
    """`perl -e CODE`, `node --eval CODE`: code on the command line, which the interpreter rules judge."""
    letters = INLINE_CODE[name]
    short = any(o.startswith("-") and not o.startswith("--") and any(c in letters for c in o[1:]) for o in options)
    return short or any(o in ("--eval", "--print", "-Command", "--command") for o in options)


def setting_runs(assignments: tuple[tuple[str, Word], ...]) -> list[FileRun]:
    """Start-up files that settings name: `BASH_ENV=x bash ...`, `ENV=x sh -i`, `PYTHONSTARTUP`."""
    runs = [FileRun(v, "shell", f"the {k} setting") for k, v in assignments if k in ("BASH_ENV", "ENV")]
    runs += [FileRun(v, "python", f"the {k} setting") for k, v in assignments if k == "PYTHONSTARTUP"]
    for key, value in assignments:
        if key == "NODE_OPTIONS" and value.text is not None:
            for module in re.findall(r"(?:--require|-r|--import)[= ](\S+)", value.text):
                runs.append(FileRun(Word.literal(module), "other", "the NODE_OPTIONS setting"))
    return runs


def _python(args: tuple[Word, ...], command: SimpleCommand, runs: list[FileRun], texts: list[ScriptText]) -> None:
    index = 0
    while index < len(args) and (args[index].text or "").startswith("-") and args[index].text != "-":
        text = args[index].text or ""
        if text[1:2] in ("W", "X") or text.startswith("--"):
            index += 2 if text in ("-W", "-X", "--check-hash-based-pycs") else 1
            continue
        if "c" in text[1:]:
            return  # `python -c CODE`: analysed as Python by the interpreter rules
        if "m" in text[1:]:
            module = text.split("m", 1)[1] or (args[index + 1].text if index + 1 < len(args) else "") or ""
            rest = args[index + (1 if text.split("m", 1)[1] else 2) :]
            runs += _module(module, rest, command, texts)
            return
        index += 1
    _script(args[index] if index < len(args) else None, "python", "python", command, runs, texts)


def _module(module: str, rest: tuple[Word, ...], command: SimpleCommand, texts: list[ScriptText]) -> list[FileRun]:
    """`python -m mod`: the module's own file, or the files a runner module runs."""
    _, operands = _split(rest, valued=("-o", "-s", "-c", "--command", "-C", "--coverdir", "--file", "-k"))
    if module in ("pytest", "unittest"):
        return _tests(operands, module, word_values(rest, ("-p",)))
    if module in ("pdb", "cProfile", "profile", "trace"):
        found: list[FileRun] = [FileRun(Word.literal(".pdbrc"), "pdb", "pdb's .pdbrc")] if module == "pdb" else []
        if operands:
            _script(operands[0], "python", f"python -m {module}", command, found, texts)
        return found
    path = module.replace(".", "/")
    where = f"`python -m {module}`"
    return [FileRun(Word.literal(p), "python", where) for p in (f"{path}.py", f"{path}/__main__.py")]


def _tests(operands: list[Word], runner: str, plugins: list[Word] | None = None) -> list[FileRun]:
    """pytest imports the test files it is given or finds, every conftest.py on the way, and the
    plugins `-p NAME` names."""
    found = [FileRun(Word.literal(p), "python", f"`{runner}`") for p in _TEST_FILES]
    found += [
        FileRun(Word.literal(f"{p.text.replace('.', '/')}.py"), "python", f"`{runner} -p`") for p in plugins if p.text
    ]
    for operand in operands:
        if operand.text is not None and not operand.text.endswith(".py") and "/" not in operand.text:
            operand = Word.literal(operand.text.replace(".", "/") + ".py")  # unittest's module names
        found.append(FileRun(operand, "python", f"`{runner}`"))
    return found


def _makefiles(args: tuple[Word, ...]) -> list[Word]:
    given = word_values(args, ("-f", "--file", "--makefile"))
    directories = [v.text for v in word_values(args, ("-C", "--directory")) if v.text is not None]
    base = directories[-1] if directories else ""
    return given or [Word.literal(posixpath.join(base, n)) for n in ("GNUmakefile", "makefile", "Makefile")]


def _script(
    operand: Word | None, language: Language, name: str, command: SimpleCommand, runs: list, texts: list
) -> None:
    """An interpreter's script: a file, standard input, or a process substitution's output."""
    if operand is not None and operand.text not in _STDIN_PATHS:
        if re.fullmatch(r"/dev/fd/\d+|/proc/[^/]+/fd/\d+", operand.text or ""):  # another descriptor's text
            texts.append(ScriptText(language, Word.unknown(operand.raw), f"the descriptor `{name}` reads"))
        elif operand.raw.startswith("<(") and operand.raw.endswith(")"):
            output = _output_of(operand.raw[2:-1])
            code = Word.unknown(operand.raw) if output is None else Word.literal(output)
            texts.append(ScriptText(language, code, f"the process substitution run by `{name}`"))
        else:
            runs.append(FileRun(operand, language, f"`{name}`"))
        return
    stdin = command.stdin
    if stdin is not None and stdin.kind == "file":
        runs.append(FileRun(stdin.word, language, f"the file fed to `{name}`"))
    named = operand is not None and operand.text != "-"  # `-` alone: the interpreter rules read it
    if stdin is not None and stdin.kind != "file" and (named or language not in ("shell", "python", "other")):
        word = stdin.word if stdin.kind == "text" else Word.unknown("|")
        texts.append(ScriptText(language, word, f"the standard input of `{name}`"))


def _output_of(source: str) -> str | None:
    """What `printf ...`, `echo ...` or `cat <<EOF` prints, when it is one such command."""
    commands = parse(source).commands
    if len(commands) != 1 or not commands[0].words:
        return None
    command = commands[0]
    parts = printed_by(command.words[0].text or "", command.words[1:], command)
    return "".join(parts) if all(isinstance(p, str) for p in parts) else None  # type: ignore[arg-type]


def _split(args: tuple[Word, ...], valued: tuple[str, ...] = ()) -> tuple[list[str], list[Word]]:
    """The options (as text) before the first operand, and every operand."""
    options: list[str] = []
    operands: list[Word] = []
    skip = False
    for arg in args:
        text = arg.text
        if skip:
            skip = False
        elif text is not None and text.startswith("-") and text != "-" and not operands:
            options.append(text)
            skip = text in valued
        else:
            operands.append(arg)
    return options, operands
