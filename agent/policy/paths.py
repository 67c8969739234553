"""Where a path argument points: inside the workspace, its root, outside, or a device.

Relative paths are resolved from every directory the command may run in; with no `cd`
that is the workspace root, where the executor starts every command. The walker tracks
`cd` conservatively: after `cd sub; ...` the shell is in sub *or* still at the root (the
cd may fail), so `cd sub; cat ../x` is refused, while `cd sub && cat ../x` only runs in
sub and is allowed. A directory the walker cannot pin down ("?", e.g. after a `cd` in a
loop) counts as the root: a path that does not climb above the root from there cannot
climb above it from anywhere deeper. When the workspace is known, symlinks are followed
as `agent.tools.paths` does, so a link to the outside is outside.

Where the sandbox gives each command a /tmp of its own (bubblewrap's and Docker's tmpfs,
`Sandbox.private_tmp`, with /dev/shm), /tmp and what is under it count as inside: nothing of
the host is there, and it is gone when the command ends. The caller says so; with a plain process /tmp is
the host's, and outside. Only the normalised path counts (`/tmp/../etc` is /etc), and the
sandbox's /tmp is not the host's, so nothing there is looked up on disk.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import Path

from agent.policy.shell_model import SOMEWHERE_INSIDE
from agent.policy.words import DYNAMIC, Word

HARMLESS_DEVICES = {
    "/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/urandom", "/dev/random", "/dev/tty",
}  # fmt: skip
_FD_DEVICE = re.compile(r"/dev/fd/\d+$")
_DISK = re.compile(r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|loop|dm-|md\d|sr\d|disk|mapper/|mem$|kmem$|port$)")
_SOCKET = re.compile(r"/dev/(tcp|udp)/")
_GLOB = re.compile(r"[*?\[]")
# What a sandbox with a private /tmp (Where.private_tmp) gives each command of its own.
PRIVATE_DIRS = ("/tmp", "/dev/shm")
# Standard places for programs: `/usr/bin/python3` is python3, not a path argument.
SYSTEM_BIN_DIRS = {"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"}


class Place(Enum):
    INSIDE = "inside"
    ROOT = "root"  # the workspace root itself, or everything in it (`.`, `*`, `./*`)
    OUTSIDE = "outside"
    DEVICE = "device"  # /dev/null and friends
    DISK = "disk"  # a block device or kernel memory
    SOCKET = "socket"  # bash's /dev/tcp/host/port


@dataclass(frozen=True)
class Where:
    """Where a command runs: the directories it may start in, and the workspace (if known)."""

    cwds: frozenset[str]
    workspace: Path | None = None
    # Whether the sandbox gives commands a private /tmp, which then counts as inside.
    private_tmp: bool = False

    def places(self, word: Word) -> dict[str, Place]:
        """Each static text the word may stand for, and where it points."""
        return {text: place_of(text, self.cwds, self.workspace, self.private_tmp) for text in candidates(word)}


def candidates(word: Word) -> list[str]:
    """Every static text the word may stand for, as the paths a command could receive.

    Values are also split on whitespace (an unquoted variable is split into several
    arguments), brace lists are expanded (bash turns `{..,x}` into `..` and `x`), and
    `--opt=value` / `-Ivalue` forms contribute their value.
    """
    texts: list[str] = []
    if word.values is not None:
        texts.extend(word.values)
    else:
        texts.append(word.pattern)
    texts.extend(word.hints)
    # Only an expansion is split into several arguments; a literal "a /b" is one argument.
    splits = "$" in word.raw or "`" in word.raw
    found: list[str] = []
    for text in texts:
        for piece in dict.fromkeys([text, *(text.split() if splits else ())]):
            for expanded in _expand_braces(piece):
                found.append(expanded)
                found.extend(_option_value(expanded))
    return list(dict.fromkeys(found))


def place_of(text: str, cwds: frozenset[str], workspace: Path | None = None, private_tmp: bool = False) -> Place:
    """The most worrying place `text` may point to, from any of the directories in cwds."""
    if DYNAMIC in text:
        text = _static_view(text)
        if not text:
            return Place.INSIDE
    if text.startswith("/"):
        return _absolute(posixpath.normpath(text) if not text.startswith("//") else text, private_tmp)
    if text.startswith("~"):
        return Place.OUTSIDE
    places = {_relative(text, cwd, workspace, private_tmp) for cwd in cwds}
    for worst in (Place.OUTSIDE, Place.ROOT):
        if worst in places:
            return worst
    return Place.INSIDE


def _absolute(text: str, private_tmp: bool = False) -> Place:
    if private_tmp and any(text == private or text.startswith(private + "/") for private in PRIVATE_DIRS):
        return Place.INSIDE
    if text in HARMLESS_DEVICES or _FD_DEVICE.match(text):
        return Place.DEVICE
    if _SOCKET.match(text):
        return Place.SOCKET
    if _DISK.match(text):
        return Place.DISK
    return Place.OUTSIDE


def _relative(text: str, cwd: str, workspace: Path | None, private_tmp: bool = False) -> Place:
    if cwd.startswith("/"):  # after `cd /tmp/build`: where the path leads from there
        return _absolute(posixpath.normpath(posixpath.join(cwd, text)), private_tmp)
    if cwd.startswith("~") or cwd == ".." or cwd.startswith("../"):
        return Place.OUTSIDE  # after a `cd` out of the workspace (itself refused)
    base = "." if cwd == SOMEWHERE_INSIDE else cwd
    parts = [".." if _may_match_parent(part) else part for part in text.split("/")]
    joined = posixpath.normpath(posixpath.join(base, *parts))
    if joined == ".." or joined.startswith("../"):
        return Place.OUTSIDE
    if workspace is not None and cwd != SOMEWHERE_INSIDE and _leaves_by_symlink(workspace, base, parts):
        return Place.OUTSIDE
    everything = joined.rsplit("/", 1)
    if joined == "." or (len(everything) == 1 and _matches_everything(joined)):
        return Place.ROOT
    if len(everything) == 2 and everything[0] == "." and _matches_everything(everything[1]):
        return Place.ROOT
    return Place.INSIDE


def _leaves_by_symlink(workspace: Path, base: str, parts: list[str]) -> bool:
    """Resolve with symlinks followed, up to the first glob component."""
    fixed = []
    for part in parts:
        if _GLOB.search(part):
            break
        fixed.append(part)
    root = workspace.resolve()
    try:
        target = (root / base / "/".join(fixed)).resolve()
    except (RuntimeError, OSError):  # a symlink loop: nothing a command should use
        return True
    return not target.is_relative_to(root)


def _static_view(pattern: str) -> str:
    """The part of a run-time word that can be judged before it runs.

    `/etc/$X` is outside whatever X is; `$X/../..` climbs two levels from wherever X is;
    and `$X/secret` may be `/secret`, since an unset variable expands to nothing.
    """
    head, _, _ = pattern.partition(DYNAMIC)
    if head.startswith(("/", "~")):
        return head
    if pattern.startswith(DYNAMIC) and pattern.lstrip(DYNAMIC).startswith("/") and len(pattern.strip(DYNAMIC)) > 1:
        return pattern.lstrip(DYNAMIC).split(DYNAMIC)[0]
    relative = pattern.replace(DYNAMIC, "x")
    return relative if ".." in relative.split("/") else ""


def _may_match_parent(part: str) -> bool:
    # In dash (the executor's /bin/sh) `.*` also matches `..`.
    return part != ".." and part.startswith(".") and bool(_GLOB.search(part)) and fnmatchcase("..", part)


def _matches_everything(part: str) -> bool:
    return bool(_GLOB.search(part)) and all(fnmatchcase(name, part) for name in ("src", "tests", "setup.py"))


def _expand_braces(text: str, limit: int = 64) -> list[str]:
    """`a{b,c}` → `a{b,c}`, `ab`, `ac` (bash brace expansion), at most `limit` results."""
    results = [text]
    pending = [text]
    while pending and len(results) < limit:
        match = re.search(r"\{([^{}]*,[^{}]*)\}", pending.pop())
        if match is None:
            continue
        for option in match.group(1).split(","):
            expanded = match.string[: match.start()] + option + match.string[match.end() :]
            results.append(expanded)
            pending.append(expanded)
    return results[:limit]


def _option_value(text: str) -> list[str]:
    """`--output=/x` → `/x`; `of=/dev/sda` → `/dev/sda`; `-I/usr/include` → `/usr/include`."""
    match = re.match(r"-{0,2}[\w.-]*=(.+)$", text)
    if match:
        return [match.group(1)]
    match = re.match(r"-[A-Za-z]([/~].+|\.\./.*)$", text)
    return [match.group(1)] if match else []
