"""What the parser hands to the rules: a shell script flattened into simple commands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.policy.words import Word

# The workspace root, as a current directory relative to itself.
ROOT_CWD: frozenset[str] = frozenset({"."})
# A current directory somewhere inside the workspace that the parse cannot pin down
# (after `cd` in a loop, a function call, `source`); treated as the root for `..` checks.
SOMEWHERE_INSIDE = "?"


@dataclass(frozen=True)
class Redirect:
    operator: str
    target: Word

    @property
    def writes(self) -> bool:
        return ">" in self.operator


@dataclass(frozen=True)
class Stdin:
    """What a command reads on standard input, which matters when it is an interpreter.

    "text": a here-doc, a here-string, or a pipe from `echo`/`printf`/`cat <<EOF` whose
    output is known; "pipe": another command's output; "file": a `< file` redirect.
    """

    kind: Literal["text", "pipe", "file"]
    word: Word


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    stdin: Stdin | None = None
    # Every directory (relative to the workspace root) the command may run in.
    cwds: frozenset[str] = ROOT_CWD
    # The function whose body holds the command, if any.
    function: str | None = None
    # Runs in the background or as one stage of a pipeline: a new process each time.
    spawns: bool = False
    raw: str = ""
    # The next stage of its pipeline, which reads what this command prints (`yes | head`);
    # a compound stage (`| while read l; do ...; done`) stands here as a command without words.
    pipes_to: SimpleCommand | None = None

    @property
    def name(self) -> Word | None:
        return self.words[0] if self.words else None


@dataclass(frozen=True)
class Loop:
    raw: str
    infinite: bool
    starts_jobs: bool
    # A `break` of this loop, `exit` or `return` in its body: an infinite loop can still end.
    leaves: bool = False
    # At least how many rounds a `for` loop runs, when that is known.
    iterations: float | None = None


@dataclass(frozen=True)
class Script:
    commands: tuple[SimpleCommand, ...]
    functions: frozenset[str]
    loops: tuple[Loop, ...]
    # Every variable the script expands ("!" for an indirect `${!name}`).
    variables: frozenset[str]
    # Source snippets tree-sitter could not parse, or constructs the walker does not know.
    errors: tuple[str, ...]
