"""Deleting and overwriting files.

Deleting inside the workspace is normal work (`rm -rf build`). Deleting the workspace
itself (`rm -rf .`, `rm -rf *`, `find . -delete`), anything outside it, or files whose
names only exist at run time (`rm -rf $DIR`, `xargs rm`) is destructive: nobody can tell
beforehand what it takes with it. Overwriting outside the workspace (`cp x /etc/y`) is
left to the path rule, except for the programs whose whole point is destroying data.
"""

from __future__ import annotations

from agent.policy.findings import Finding
from agent.policy.paths import Place, Where
from agent.policy.words import Word
from agent.policy.wrappers import command_name
from contracts.actions import ReasonCode

# Program → options that take a value. Every operand is deleted or emptied.
_REMOVERS = {"rm": set(), "rmdir": set(), "unlink": set(), "truncate": {"-s", "--size", "-r", "--reference"}}
# Every operand is changed (chmod's first operand is the mode).
_CHANGERS = {"mv": {"-t", "--target-directory", "-S", "--suffix"}, "chmod": {"--reference"}, "tee": set()}
# Only the destination is changed.
_COPIERS = {
    "cp": {"-t", "--target-directory", "-S", "--suffix"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory", "-S"},
}
_WRITERS = {"dd", "cp", "mv", "tee", "ln", "install", "truncate"}
_FIND_NARROWING = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
_DELETING = {"rm", "shred", "unlink", "rmdir", "truncate", "mv"}


def file_findings(name: str, args: tuple[Word, ...], where: Where) -> list[Finding]:
    if name in _WRITERS and any(p is Place.DISK for a in args for p in where.places(a).values()):
        return [
            Finding(
                ReasonCode.DESTRUCTIVE_COMMAND, f"`{name}` would write to a disk device: write files in the workspace"
            )
        ]
    if name == "find":
        return _find(args, where)
    if name == "dd":
        return _dd(args, where)
    if name in _REMOVERS:
        return _removal(name, operands(args, _REMOVERS[name]), where)
    if name in _CHANGERS:
        changed = operands(args, _CHANGERS[name])
        changed = changed[1:] if name == "chmod" else changed
    elif name in _COPIERS:
        targets = [v for o, v in _option_values(args, _COPIERS[name]) if o in ("-t", "--target-directory")]
        changed = targets or operands(args, _COPIERS[name])[-1:]
    else:
        return []
    unknown = next((w for w in changed if not w.is_static), None)
    return [_unknown_files(name, unknown)] if unknown is not None else []


def _removal(name: str, targets: list[Word], where: Where) -> list[Finding]:
    for word in targets:
        if not word.is_static:
            return [_unknown_files(name, word)]
        for text, place in where.places(word).items():
            if place is Place.ROOT:
                return [
                    Finding(
                        ReasonCode.DESTRUCTIVE_COMMAND,
                        f"`{name}` would delete the whole workspace: name what to delete",
                    )
                ]
            if place in (Place.OUTSIDE, Place.DISK):
                return [
                    Finding(
                        ReasonCode.DESTRUCTIVE_COMMAND,
                        f"`{name}` would delete {text!r}, outside the workspace: delete only inside it",
                    )
                ]
    return []


def _dd(args: tuple[Word, ...], where: Where) -> list[Finding]:
    for arg in args:
        if not arg.pattern.startswith("of="):
            continue
        if not arg.is_static:
            return [_unknown_files("dd", arg)]
        target = Word.literal(arg.pattern.removeprefix("of="))
        if Place.OUTSIDE in where.places(target).values():
            message = f"`dd` would overwrite {target.text!r}, outside the workspace: write only inside it"
            return [Finding(ReasonCode.DESTRUCTIVE_COMMAND, message)]
    return []


def _find(args: tuple[Word, ...], where: Where) -> list[Finding]:
    """`find . -delete` (or `-exec rm`) with no name filter empties the workspace."""
    starts = []
    for arg in args:
        if (arg.text or "x").startswith(("-", "(", "!", ")")):
            break
        starts.append(arg)
    texts = [a.text for a in args]
    executed = [texts[i + 1] for i, t in enumerate(texts[:-1]) if t in _FIND_EXEC]
    deletes = "-delete" in texts or any(t is None or command_name(Word.literal(t)) in _DELETING for t in executed)
    if not deletes:
        return []
    narrowed = any(t in _FIND_NARROWING and texts[i + 1] not in ("*", None) for i, t in enumerate(texts[:-1]))
    for start in starts or [Word.literal(".")]:
        if not start.is_static:
            return [_unknown_files("find", start)]
        places = set(where.places(start).values())
        if places & {Place.OUTSIDE, Place.DISK} or (Place.ROOT in places and not narrowed):
            what = "the whole workspace" if Place.ROOT in places else f"files under {start.text!r}"
            return [Finding(ReasonCode.DESTRUCTIVE_COMMAND, f"`find` would delete {what}; add -name to narrow it")]
    return []


def operands(args: tuple[Word, ...], valued: set[str]) -> list[Word]:
    """Arguments that are not options or option values; run-time words count as operands."""
    found = []
    index = 0
    only_operands = False
    while index < len(args):
        text = args[index].text
        if only_operands or text is None or not text.startswith("-") or text == "-":
            found.append(args[index])
        elif text == "--":
            only_operands = True
        elif text in valued:
            index += 1
        index += 1
    return found


def _option_values(args: tuple[Word, ...], valued: set[str]) -> list[tuple[str, Word]]:
    found = []
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text in valued and index + 1 < len(args):
            found.append((text, args[index + 1]))
        elif "=" in text and text.split("=", 1)[0] in valued:
            found.append((text.split("=", 1)[0], Word.literal(text.split("=", 1)[1])))
    return found


def _unknown_files(name: str, word: Word) -> Finding:
    message = f"`{name}` gets {word.raw!r}, known only at run time, so nobody can tell which files it changes"
    return Finding(ReasonCode.DESTRUCTIVE_COMMAND, message + ": name the files")
