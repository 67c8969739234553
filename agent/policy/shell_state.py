"""What the walker knows at one point of a script: variable values and the current directory.

The walk is flow-sensitive but conservative: wherever the shell may take one of several
paths (`&&`, `if`, loops), the states of all paths are merged, and a variable whose value
is not the same known set on every path becomes unknown.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from agent.policy.shell_model import SOMEWHERE_INSIDE
from agent.policy.words import MAX_VALUES, Word

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Builtins that assign the variables named by their arguments.
_ASSIGNING_BUILTINS = {"read", "mapfile", "readarray", "getopts", "let", "printf", "wait"}


@dataclass
class State:
    # Variables the script set to a known set of values; anything else is unknown.
    env: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cwds: frozenset[str] = frozenset({"."})
    # Where the shell is if the last statement succeeded, when that is narrower than cwds:
    # after `cd x`, x (the cd may have failed, so cwds holds both); for `cd x && ...`.
    last_cd: frozenset[str] | None = None

    def copy(self) -> State:
        return State(dict(self.env), self.cwds, self.last_cd)

    def absorb(self, other: State) -> None:
        """Become the merge of self and other: either path may have been taken."""
        merged = {}
        for name, values in self.env.items():
            theirs = other.env.get(name)
            if theirs is not None:
                union = tuple(dict.fromkeys(values + theirs))
                if len(union) <= MAX_VALUES:
                    merged[name] = union
        self.env = merged
        self.cwds = self.cwds | other.cwds
        self.last_cd = None

    def forget(self, names: set[str]) -> None:
        for name in names:
            self.env.pop(name, None)

    def assign(self, name: str, value: Word) -> None:
        if value.values is None:
            self.env.pop(name, None)
        else:
            self.env[name] = value.values

    def change_directory(self, target: Word | None) -> None:
        """`cd target`: the shell ends up in the new directory, or stays if cd fails."""
        if target is None:
            new = frozenset({"~"})  # plain `cd` goes to $HOME
        elif target.values is None or target.text == "-":
            new = frozenset({SOMEWHERE_INSIDE})
        else:
            new = frozenset(enter(cwd, value) for cwd in self.cwds for value in target.values)
        self.cwds = self.cwds | new
        self.last_cd = new


def enter(cwd: str, target: str) -> str:
    """The directory `cd target` leads to from cwd, as a normalised path relative to the root."""
    if target.startswith(("/", "~")):
        return posixpath.normpath(target)
    if cwd == SOMEWHERE_INSIDE:
        return SOMEWHERE_INSIDE
    return posixpath.normpath(posixpath.join(cwd, target))


def assigned_by(words: tuple[Word, ...]) -> set[str]:
    """Variables a builtin such as `read x y` or `printf -v x` may set."""
    if not words or words[0].text not in _ASSIGNING_BUILTINS:
        return set()
    return {w.text for w in words[1:] if w.text is not None and _IDENTIFIER.fullmatch(w.text)}


def identifiers_in(text: str) -> set[str]:
    """Every name that could be a variable assigned somewhere in this text (over-approximate)."""
    return set(_IDENTIFIER.findall(text))
