"""The part of the command checker that follows code out of the command line: into files the
command writes and then runs, into the scripts and options of programs that run commands
(editors, debuggers, sqlite3, make, ...), and into the text the shell itself evaluates
(prompt strings, `BASH_ENV`, arithmetic on names).

Where the boundary lies: text written in this command and run in this command is analysed as
the code of the program that runs it. Files the file tools write, and workspace files a later
command runs, are not: scripts in the workspace are the sandbox's to contain (a file that runs
code *outside* the run, such as a git hook, is `agent.policy.runs_later`'s).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

from agent.policy.command_options import runners
from agent.policy.evaluated_text import evaluated_codes, setting_codes
from agent.policy.file_runs import runs_of, setting_runs
from agent.policy.file_writes import FileWrite, writes_of
from agent.policy.findings import Finding
from agent.policy.interpreters import Code
from agent.policy.path_rules import judge_path
from agent.policy.paths import Where
from agent.policy.script_languages import interpreter_of, read, translate
from agent.policy.script_text import FileRun, ScriptText, Translation
from agent.policy.shell_model import Script, SimpleCommand, Stdin
from agent.policy.words import DYNAMIC, Word
from agent.policy.wrappers import Invocation, command_name, unwrap
from agent.policy.written_files import Ledger, Run, Written
from contracts.actions import ReasonCode

_STDIN_PATHS = {"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"}
# A written script may write and run another: past this many rounds, nobody means it.
_MAX_ROUNDS = 6
_PYTHON_WRITES = re.compile(r"""open\([^)]*['"][wax]|write_text|write_bytes|shutil\.(copy|move)|os\.(rename|replace)""")


class ScriptChecks:
    workspace: Path | None
    # Whether the sandbox gives commands a /tmp of their own (the checker sets it).
    private_tmp: bool = False

    def __init__(self) -> None:
        self.ledger = Ledger()
        self._judged: set[tuple[tuple[str, ...], str, str | None]] = set()
        # The last simple command seen at each depth of nesting (for a list's redirect).
        self._last: dict[int, SimpleCommand] = {}

    # The checker's own entry points, which this part calls back.
    def shell(self, source: str, cwds: frozenset[str], origin: str, depth: int) -> list[Finding]:
        raise NotImplementedError

    def code(self, code: Code, cwds: frozenset[str], depth: int) -> list[Finding]:
        raise NotImplementedError

    def command(self, command: SimpleCommand, depth: int) -> list[Finding]:
        raise NotImplementedError

    def note_command(self, invocation: Invocation, command: SimpleCommand, depth: int) -> list[Finding]:
        """What a simple command writes and runs, and the settings the shell evaluates."""
        cwds = command.cwds
        findings = [f for code in setting_codes(invocation.assignments) for f in self.code(code, cwds, depth)]
        for run in setting_runs(invocation.assignments):
            self.ledger.run(run, cwds, depth)
        for key, value in invocation.assignments:
            if key == "PATH":  # `PATH=.:$PATH`: programs named bare may be files written here
                entries = value.pattern.replace("$PWD", ".").split(":")
                self.ledger.path_dirs |= {e or "." for e in entries if DYNAMIC not in e and not e.startswith("/")}
        if invocation.argv:
            command = _fed_by_cat(command, self._last.get(depth))
            self._last[depth] = command
        elif (last := self._last.get(depth)) is not None and command.redirects and _redirects_a_list(command.raw):
            # tree-sitter hangs `a && b > f` 's redirect on the list; the shell gives it to `b`.
            reads = [r.target for r in command.redirects if r.operator == "<"]
            stdin = Stdin("file", reads[-1]) if reads else last.stdin
            command = replace(last, redirects=command.redirects, stdin=stdin, cwds=cwds)
            invocation = unwrap(command.words, command.assignments)
        for write in writes_of(invocation, command):
            self.ledger.write(write, cwds)
        if not invocation.argv:
            return findings
        if invocation.argv[0].text and "/" not in invocation.argv[0].text:
            self.ledger.bare_programs.append((invocation.argv[0].text, cwds, depth))
        runs, texts = runs_of(invocation, command)
        for run in runs:
            self.ledger.run(run, cwds, depth)
        return findings + self.scripts(texts, cwds, depth)

    def runner_findings(self, invocation: Invocation, command: SimpleCommand, depth: int) -> list[Finding]:
        """Code held in a program's options and operands (`vim -c`, `gdb -ex`, `sqlite3 .shell`)."""
        found = runners(invocation, command)
        for index, word in enumerate(command.words[:-1]):  # a wrapper's own options: `strace -o '|cmd' ...`
            if command_name(word) in invocation.wrappers:
                layer = runners(Invocation(command.words[index:]), command)
                found.scripts += layer.scripts
                found.findings += layer.findings
        findings = found.findings + self.scripts(found.scripts, command.cwds, depth, command.stdin)
        for words, source in found.commands:
            stdin = source.stdin if source is not None else None
            findings += self.command(SimpleCommand(words=words, cwds=command.cwds, stdin=stdin), depth)
        where = self._where(command.cwds)
        for target in found.writes:
            findings += judge_path(target, where, f"the file `{invocation.name}` writes", writes=True)
        return findings

    def evaluated(self, script: Script, source: str, cwds: frozenset[str], depth: int) -> list[Finding]:
        return [f for code in evaluated_codes(script, source) for f in self.code(code, cwds, depth)]

    def python_effects(self, text: str, strings: list[Word], cwds: frozenset[str], depth: int) -> None:
        """Files Python code writes (their text unknown) and local modules it imports (files it runs)."""
        if _PYTHON_WRITES.search(text):
            for literal in strings:
                self.ledger.write(FileWrite(literal, (None,)), cwds)
        for module in _imports(text):
            path = module.replace(".", "/")
            for name in (f"{path}.py", f"{path}/__init__.py"):
                self.ledger.run(FileRun(Word.literal(name), "python", f"`import {module}`"), cwds, depth)

    def scripts(
        self, scripts: list[ScriptText], cwds: frozenset[str], depth: int, stdin: Stdin | None = None
    ) -> list[Finding]:
        return [f for script in scripts for f in self.translation(translate(script), cwds, depth, stdin)]

    def translation(
        self, found: Translation, cwds: frozenset[str], depth: int, stdin: Stdin | None = None
    ) -> list[Finding]:
        """Judge what a script comes to; `stdin`: what the program running it reads on its input."""
        findings = list(found.findings)
        for code in found.codes:
            findings += self.code(code, cwds, depth)
        where = self._where(cwds)
        for file in found.files:
            findings += judge_path(file, where, "a file the script names")
        for target in found.writes:
            findings += judge_path(target, where, "a file the script writes", writes=True)
            self.ledger.write(FileWrite(target, (None,)), cwds)
        for run in found.runs:
            if run.path.text in _STDIN_PATHS:  # `source /dev/stdin` in a gdb script: the program's input
                word = stdin.word if stdin is not None and stdin.kind == "text" else Word.unknown("<input>")
                findings += self.scripts([ScriptText(run.language, word, run.origin)], cwds, depth)
                continue
            self.ledger.run(run, cwds, depth)
        for words in found.commands:
            findings += self.command(SimpleCommand(words=words, cwds=cwds), depth)
        return findings

    def written_runs(self) -> list[Finding]:
        """Every run of a file the command writes, judged as the code of the program that runs it."""
        findings: list[Finding] = []
        for _ in range(_MAX_ROUNDS):
            fresh = False
            for run in self.ledger.all_runs():
                for written in self.ledger.texts(run):
                    key = (run.paths, run.run.language, written.text)
                    if key not in self._judged:
                        self._judged.add(key)
                        fresh = True
                        findings += self._judge_written(run, written)
            if not fresh:
                break
        return findings

    def _judge_written(self, run: Run, written: Written) -> list[Finding]:
        shown = run.run.path.raw
        origin = f"{run.run.origin} (running {shown!r}, written by this command)"
        if written.text is None:
            message = f"{origin} runs text known only at run time (decoded, generated or fetched): write the code out"
            return [Finding(ReasonCode.DYNAMIC_CODE, message)]
        language = interpreter_of(written.text) if run.run.language == "exec" else run.run.language
        if language == "other":  # as `node -e CODE` is: the verifier cannot read it
            message = (
                f"{origin} runs code the verifier cannot read: write the file with write_file, "
                "then run it in a command of its own"
            )
            return [Finding(ReasonCode.DYNAMIC_CODE, message)]
        findings = self.translation(read(language, written.text, origin), run.cwds, run.depth + 1)
        if not written.certain:  # matched through a pattern: the text may be another file's
            findings = [f for f in findings if f.code is not ReasonCode.UNANALYZABLE_COMMAND]
        return findings

    def _where(self, cwds: frozenset[str]) -> Where:
        return Where(cwds, self.workspace, self.private_tmp)


def _fed_by_cat(command: SimpleCommand, producer: SimpleCommand | None) -> SimpleCommand:
    """`cat f | sqlite3 db` reads f as `sqlite3 db < f` would (a workspace file, or one written here)."""
    stdin = command.stdin
    if stdin is None or stdin.kind != "pipe" or producer is None or producer.pipes_to is None:
        return command
    operands = [w for w in producer.words[1:] if not (w.text or "").startswith("-")]
    if producer.pipes_to.words != command.words or producer.name is None or producer.name.text != "cat":
        return command
    return replace(command, stdin=Stdin("file", operands[0])) if len(operands) == 1 else command


def _redirects_a_list(raw: str) -> bool:
    """A redirect on `a && b`, not on a group, a subshell or a loop (whose whole output it takes)."""
    return re.match(r"\s*([({]|(while|until|for|if|case|select)\b)", raw) is None


def _imports(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return list(dict.fromkeys(found))
