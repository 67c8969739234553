"""One kind of file that runs code later: its names, and what in its text makes it matter."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class RunsLater:
    what: str
    # Workspace-relative glob patterns (fnmatch: `*` also crosses `/`).
    paths: tuple[str, ...] = ()
    # File names, in any directory.
    names: tuple[str, ...] = ()
    # Given the written text, whether it is the kind that matters; None: any content.
    matters: Callable[[str], bool] | None = None
    # Whether the rule applies when the text is not known (a `cp`): yes for a file named for
    # the purpose; no for a rule that recognises a kind of file by its text alone.
    when_unknown: bool = True

    def covers(self, path: str) -> bool:
        name = posixpath.basename(path)
        return any(fnmatchcase(path, p) for p in self.paths) or any(fnmatchcase(name, n) for n in self.names)

    def applies(self, path: str, content: str | None) -> bool:
        if not self.covers(path):
            return False
        if content is None:
            return self.when_unknown
        return self.matters is None or self.matters(content)
