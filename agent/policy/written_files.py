"""Files a command writes and files it runs, kept for the whole command so that a payload
written and then run (`printf 'rm ...' > x.sh && sh x.sh`, `cat > Makefile <<EOF ... make`)
is judged as the code of the program that runs it.

The ledger is flow-insensitive on purpose: a write anywhere in the command (in a loop, in a
nested `sh -c`, after the run in the text) may be what a run reads. Paths are matched as
glob patterns in which a part known only at run time matches anything. A run of a file the
command did not write runs the workspace's file, which is not analysed (the sandbox contains
it); a run of a file written with text known only at run time (decoded, downloaded, another
program's output) is refused as dynamic code.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from agent.policy.file_writes import Copy, FileWrite, Part
from agent.policy.script_text import FileRun
from agent.policy.shell_model import SOMEWHERE_INSIDE
from agent.policy.words import DYNAMIC, Word

# Past this many candidate texts for one file, its text counts as unknown.
_MAX_TEXTS = 16


@dataclass(frozen=True)
class _Write:
    paths: tuple[str, ...]
    parts: tuple[Part, ...]
    cwds: frozenset[str]
    append: bool
    order: int


@dataclass(frozen=True)
class Run:
    paths: tuple[str, ...]
    run: FileRun
    cwds: frozenset[str]
    depth: int


@dataclass(frozen=True)
class Written:
    """One text a run may read: None when it is known only at run time."""

    text: str | None
    # The run's path matched the write's exactly (not through a pattern or a run-time part).
    certain: bool


@dataclass
class Ledger:
    writes: list[_Write] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    # Directories put on PATH (`PATH=.:$PATH`) and programs named without a path.
    path_dirs: set[str] = field(default_factory=set)
    bare_programs: list[tuple[str, frozenset[str], int]] = field(default_factory=list)
    # What each set of paths matches and holds, until the next write (`cp` chains reuse them).
    _matches: dict[tuple[str, ...], list[_Write]] = field(default_factory=dict)
    _copies: dict[tuple[str, ...], list[str | None]] = field(default_factory=dict)
    _resolving: set[tuple[str, ...]] = field(default_factory=set)

    def write(self, write: FileWrite, cwds: frozenset[str]) -> None:
        paths = patterns(write.target, cwds)
        self.writes.append(_Write(paths, write.parts, cwds, write.append, len(self.writes)))
        self._matches.clear()
        self._copies.clear()

    def run(self, run: FileRun, cwds: frozenset[str], depth: int) -> None:
        self.runs.append(Run(patterns(run.path, cwds), run, cwds, depth))

    def all_runs(self) -> list[Run]:
        """The runs, with programs found through a PATH the command set (`PATH=.:$PATH ls`)."""
        found = list(self.runs)
        for directory, (name, cwds, depth) in itertools.product(sorted(self.path_dirs), self.bare_programs):
            word = Word.literal(posixpath.join(directory, name))
            found.append(Run(patterns(word, cwds), FileRun(word, "exec", f"`{name}` found on PATH"), cwds, depth))
        return found

    def texts(self, run: Run) -> list[Written]:
        """The texts the run may read, from what this command wrote there; [] for a workspace file."""
        written = self._matching(run.paths)
        if not written:
            return []
        certain = all(_exact(p) for p in run.paths) and all(any(p in w.paths for p in run.paths) for w in written)
        if all(p == "*" for p in run.paths):  # nothing known of the name: only known text is worth reading
            written = [w for w in written if None not in w.parts]
        texts = self._texts_of(written)
        return [Written(t, certain) for t in texts]

    def _matching(self, paths: tuple[str, ...]) -> list[_Write]:
        if paths not in self._matches:
            self._matches[paths] = [w for w in self.writes if any(_same(p, q) for p in paths for q in w.paths)]
        return self._matches[paths]

    def _copy_of(self, paths: tuple[str, ...]) -> list[str | None]:
        """The texts a copy of `paths` may hold; a copy of itself (`cp a b; cp b a`) adds nothing."""
        if paths in self._resolving:
            return [""]
        if paths not in self._copies:
            source = self._matching(paths)
            self._resolving.add(paths)
            try:
                if source:
                    self._copies[paths] = self._texts_of(source)
                elif all(p.startswith(("/", "~")) for p in paths) and paths != ("/dev/null",):
                    # A copy of a file from outside (`cp /bin/sh x; ./x -c ...`): a program under
                    # another name, whose text is nothing the verifier can read.
                    self._copies[paths] = [None]
                else:  # a copy of the workspace's own file: its text is not read
                    self._copies[paths] = [""]
            finally:
                self._resolving.discard(paths)
        return self._copies[paths]

    def _texts_of(self, written: list[_Write]) -> list[str | None]:
        """Each whole text the file may hold: a full write and the appends after it, or the
        appends alone after the workspace's own text (which is not read)."""
        appends = [w for w in written if w.append]
        starts: list[_Write | None] = [w for w in written if not w.append]
        if appends:
            starts.append(None)
        texts: list[str | None] = []
        for start in starts:
            pieces = [start] if start is not None else []
            pieces += [a for a in appends if start is None or a.order > start.order]
            texts += self._joined([(part, piece.cwds) for piece in pieces for part in piece.parts])
            if len(texts) > _MAX_TEXTS:
                return [None]
        return list(dict.fromkeys(texts))

    def _joined(self, parts: list[tuple[Part, frozenset[str]]]) -> list[str | None]:
        options: list[list[str | None]] = []
        for part, cwds in parts:
            if isinstance(part, Copy):
                options.append(self._copy_of(patterns(part.path, cwds)))
            elif isinstance(part, tuple):
                options.append(list(part))
            else:
                options.append([part])
        texts: list[str | None] = []
        for combination in itertools.islice(itertools.product(*options), _MAX_TEXTS + 1):
            texts.append(None if None in combination else "".join(p or "" for p in combination))
        return texts if len(texts) <= _MAX_TEXTS else [None]


def patterns(word: Word, cwds: frozenset[str]) -> tuple[str, ...]:
    """The workspace paths a word may name, as glob patterns (a run-time part matches anything)."""
    texts = word.values if word.values is not None else (word.pattern,)
    found = []
    for text in (t for value in texts for t in _braces(value)):
        text = "*" if text == "{}" else text.replace(DYNAMIC, "*")
        for cwd in cwds:
            if text.startswith(("/", "~", "*")):
                found.append(posixpath.normpath(text) if not text.startswith("*") else text)
            elif cwd == SOMEWHERE_INSIDE:
                found.append("*" + posixpath.normpath(text))
            else:
                found.append(posixpath.normpath(posixpath.join(cwd, text)))
    return tuple(dict.fromkeys(found))


def _braces(text: str) -> list[str]:
    """`x.{sh,py}` is x.sh and x.py (one level, as run names are spelled)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", text)
    if match is None:
        return [text]
    return [text[: match.start()] + part + text[match.end() :] for part in match.group(1).split(",")]


def _same(a: str, b: str) -> bool:
    return a == b or fnmatchcase(a, b) or fnmatchcase(b, a)


def _exact(path: str) -> bool:
    return not any(c in path for c in "*?[")
