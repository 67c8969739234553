"""Judging one word that names a file: a secret, outside the workspace, a device, a socket."""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.paths import Place, Where, candidates
from agent.policy.secrets import secret_in
from agent.policy.words import DYNAMIC, Word
from contracts.actions import ReasonCode

# Variables whose value tells a program which library to load into itself.
_LOADER_VARIABLES = {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"}
# Variables that hold a list of paths.
_LOOKS_LIKE_PATH = re.compile(r"^[/~]|(^|/)\.\.(/|$)")


def judge_path(word: Word, where: Where, what: str, writes: bool = False) -> list[Finding]:
    """At most one finding: a secret first, then the most specific place problem."""
    texts = candidates(word)
    secret = secret_in(word, texts)
    if secret is not None:
        return [Finding(ReasonCode.SECRET_ACCESS, f"{what} reaches {secret!r}, which holds secrets: leave it alone")]
    places = where.places(word)
    for text, place in places.items():
        shown = text.replace(DYNAMIC, "$…")
        if place is Place.SOCKET:
            return [
                Finding(
                    ReasonCode.NETWORK_ACCESS,
                    f"{what} opens a network connection through {shown!r}: commands have no network",
                )
            ]
        if place is Place.DISK and writes:
            return [
                Finding(
                    ReasonCode.DESTRUCTIVE_COMMAND,
                    f"{what} writes to the device {shown!r}: write files in the workspace",
                )
            ]
    for text, place in places.items():
        if place in (Place.OUTSIDE, Place.DISK):
            shown = text.replace(DYNAMIC, "$…")
            message = f"{what} reaches {shown!r}, outside the workspace: use paths inside the workspace"
            return [Finding(ReasonCode.PATH_OUTSIDE_WORKSPACE, message)]
    return []


def judge_assignments(assignments: tuple[tuple[str, Word], ...], where: Where) -> list[Finding]:
    findings = []
    for name, value in assignments:
        if name in _LOADER_VARIABLES:
            message = f"setting {name} makes programs load other code into themselves; leave it unset"
            findings.append(Finding(ReasonCode.PRIVILEGE_CHANGE, message))
            continue
        for piece in _pieces(value):
            findings.extend(judge_path(piece, where, f"the value of {name}"))
    return findings


def _pieces(value: Word) -> list[Word]:
    """`PATH=/x:$PATH` names /x; values are checked only where they look like paths."""
    texts = list(value.values) if value.values is not None else [value.pattern]
    texts.extend(value.hints)
    split = [p for text in texts for p in ([text] if "://" in text else text.split(":"))]
    pieces = [p for p in split if _LOOKS_LIKE_PATH.search(p) or "." in p]
    return [Word(p, None if DYNAMIC in p else (p,), p) for p in pieces]
