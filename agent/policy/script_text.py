"""Text some program will run as code, in that program's language, and what reading it found.

Shells, Python and awk are not the only programs that run code: an editor runs `!cmd`, a
debugger `shell cmd`, sqlite3 `.shell cmd`, make its recipes, npm a package's scripts. Each
such text is a `ScriptText`; `agent.policy.script_languages` reads it into what the command
policy already knows how to judge (a `Translation`): shell, Python or unreadable code, paths,
command lines, and files the script runs in turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent.policy.findings import Finding
from agent.policy.interpreters import Code
from agent.policy.words import Word

Language = Literal[
    "shell", "python", "other", "awk", "sed", "make", "gdb", "lldb", "pdb", "vim", "ed", "sqlite", "sqlclient",
    "dc", "m4", "npm", "notebook", "exec"
]  # fmt: skip


@dataclass(frozen=True)
class ScriptText:
    language: Language
    code: Word
    # Where the text came from, for messages: "`gdb -ex`", "the file 'x.sh' this command wrote".
    origin: str
    # Shell code that reads text the verifier cannot see on its input (vim's `w !cmd`).
    piped: bool = False


@dataclass(frozen=True)
class FileRun:
    """A file a program runs as code: resolved against the files the same command writes."""

    path: Word
    language: Language
    origin: str


@dataclass
class Translation:
    codes: list[Code] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Files the script opens by name, judged like a command's path arguments.
    files: list[Word] = field(default_factory=list)
    runs: list[FileRun] = field(default_factory=list)
    # Command lines it runs as argument vectors (`gdb --args prog a b`).
    commands: list[tuple[Word, ...]] = field(default_factory=list)
    # Files it writes (vim's `:w f`, sqlite3's `.output f`), with text the verifier does not know.
    writes: list[Word] = field(default_factory=list)

    def extend(self, other: Translation) -> Translation:
        self.codes += other.codes
        self.findings += other.findings
        self.files += other.files
        self.runs += other.runs
        self.commands += other.commands
        self.writes += other.writes
        return self


def shell(text: str, origin: str, piped: bool = False) -> Code:
    """Shell code; `piped`: it reads text nobody can see (so a shell or interpreter in it is refused)."""
    return Code("shell", Word.literal(f"cat | {{ {text}\n}}" if piped else text), origin)


def expansion(text: str, origin: str) -> Code:
    """Text the shell expands once more, as it expands a here-document: `$(...)`, backticks,
    `$((...))` and variables in it run or read (a prompt string, `BASH_ENV`, an array subscript)."""
    delimiter = "VERIFIER_TEXT"
    while delimiter in text:
        delimiter += "_"
    # The line before the text: tree-sitter misreads a body that starts with a backslash.
    return Code("shell", Word.literal(f": <<{delimiter}\n-\n{text}\n{delimiter}\n"), origin)
