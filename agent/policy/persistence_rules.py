"""Commands that plant files which run code later: the shell side of `agent.policy.runs_later`.

What a command writes is found where the shell shows it: a write redirect (`> f`, `>> f`),
`tee`, the destination of `cp`/`mv`/`install`/`ln`, `dd of=`, `sed -i`/`perl -i`, `touch`, and
`chmod` (making a file executable is how a hook is armed). The text written is known for
`echo`, `printf` and `cat` of a here-doc; otherwise it is unknown, and a rule that looks at
content applies as if it mattered. `git config` that sets a key whose value git runs (a
hooks path, a pager, an alias to a shell command, a filter) plants the same way, in
`.git/config`.
"""

from __future__ import annotations

import posixpath
import re

from agent.policy import runs_later
from agent.policy.findings import Finding
from agent.policy.interpreters import GIT_COMMAND_KEYS
from agent.policy.options import after_git_options
from agent.policy.shell_model import SOMEWHERE_INSIDE, SimpleCommand
from agent.policy.words import DYNAMIC, Word
from agent.policy.wrappers import Invocation

_COPIES = {"cp", "mv", "install", "ln", "rsync"}
_IN_PLACE = {"sed", "gsed", "perl"}
_TOUCHES = {"touch", "chmod", "truncate"}
# Keys git reads a program or more configuration from, beyond those whose value is a command.
_GIT_LOADS = re.compile(
    r"(include\.path|includeif\..*\.path|core\.worktree|core\.hookspath|submodule\..*\.update)$", re.IGNORECASE
)
# `npm pkg set scripts.postinstall=...`: npm runs these by itself.
_NPM_HOOK = re.compile(r"scripts\.(pre|post)?(install|prepare|publish|pack)\b")
_GIT_READS = {
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset", "--unset-all",
    "--remove-section", "--rename-section", "--edit", "-e", "get", "list", "unset",
}  # fmt: skip
_GIT_CONFIG_VALUED = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}


def persistence_findings(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    """A finding for each file the command writes that runs code later."""
    name = inv.name or ""
    findings = []
    for target, content in _writes(inv, command):
        for path in _workspace_paths(target, command.cwds):
            rule = runs_later.planted(path, content)
            if rule is not None:
                findings.append(Finding(runs_later.REASON, runs_later.message(rule, path)))
                break
    if name in ("npm", "pnpm") and [a.text for a in inv.args[:2]] == ["pkg", "set"]:
        for arg in inv.args[2:]:
            if _NPM_HOOK.match(arg.text or DYNAMIC):
                rule = runs_later.planted("package.json", None)
                if rule is not None:
                    findings.append(Finding(runs_later.REASON, runs_later.message(rule, "package.json")))
    if name == "git" and (key := _git_config_key(inv.args)):
        message = (
            f"`git config {key}` makes git run a program or read more configuration later, outside this run: "
            "that needs a person's approval; pass settings for one command with `git -c` instead"
        )
        findings.append(Finding(runs_later.REASON, message))
    return findings


def _writes(inv: Invocation, command: SimpleCommand) -> list[tuple[Word, str | None]]:
    """Each file the command writes, with the text written when it is known."""
    name = inv.name or ""
    args = inv.args
    printed = _printed(name, args, command)
    found: list[tuple[Word, str | None]] = [(r.target, printed) for r in command.redirects if r.writes]
    operands = [a for a in args if not (a.text or "").startswith("-")]
    if name == "tee":
        found += [(a, printed) for a in operands]
    elif name in _COPIES and len(operands) >= 2:
        destination = operands[-1]
        found.append((destination, None))
        # `cp hook .git/hooks/`: the file lands in the directory under its own name.
        for source in operands[:-1]:
            if source.text is not None and destination.text is not None:
                found.append((Word.literal(posixpath.join(destination.text, posixpath.basename(source.text))), None))
        target_dirs = [args[i + 1] for i, a in enumerate(args[:-1]) if a.text in ("-t", "--target-directory")]
        found += [(Word.literal(posixpath.join(d.text, "x")), None) for d in target_dirs if d.text is not None]
    elif name == "dd":
        found += [(Word.literal(a.text[3:]), None) for a in args if a.text and a.text.startswith("of=")]
    elif name in _IN_PLACE and any((a.text or "").startswith(("-i", "--in-place", "-pi")) for a in args):
        found += [(a, None) for a in operands[1:]]
    elif name in _TOUCHES:
        found += [(a, "" if name == "touch" else None) for a in operands[1 if name == "chmod" else 0 :]]
    return found


def _printed(name: str, args: tuple[Word, ...], command: SimpleCommand) -> str | None:
    """What `echo`/`printf` print or `cat` passes on from a here-doc, when it is known."""
    if name in ("echo", "printf") and all(a.text is not None for a in args):
        return " ".join(a.text or "" for a in args)
    if name in ("cat", "tee") and command.stdin is not None and command.stdin.kind == "text":
        return command.stdin.word.text
    return None


def _workspace_paths(word: Word, cwds: frozenset[str]) -> list[str]:
    """The workspace-relative paths the word may name; a run-time part stands for any name."""
    texts = word.values if word.values is not None else (word.pattern.replace(DYNAMIC, "x"),)
    paths = []
    for text in texts:
        for cwd in cwds:
            joined = text if cwd == SOMEWHERE_INSIDE or text.startswith("/") else posixpath.join(cwd, text)
            paths.append(posixpath.normpath(joined))
    return list(dict.fromkeys(paths))


def _git_config_key(args: tuple[Word, ...]) -> str | None:
    """The key `git config` sets, when git would run its value (or load more from it)."""
    rest = after_git_options(args)
    if not rest or rest[0].text != "config":
        return None
    operands: list[str] = []
    skip = False
    for word in rest[1:]:
        text = word.text if word.text is not None else DYNAMIC
        if skip:
            skip = False
        elif text in _GIT_READS:
            return None
        elif text in _GIT_CONFIG_VALUED:
            skip = True
        elif not text.startswith("-"):
            operands.append(text)
    if operands[:1] == ["set"]:
        operands = operands[1:]
    if len(operands) < 2:
        return None
    key, value = operands[0], operands[1]
    if key.lower().startswith("alias.") and not value.startswith(("!", DYNAMIC)):
        return None  # an alias to another git command runs no program
    if DYNAMIC in key or GIT_COMMAND_KEYS.match(key) or _GIT_LOADS.match(key):
        return key.replace(DYNAMIC, "$…")
    return None


# Python that writes files: `open(p, "w")`, `write_text`, `shutil.copy`, `os.symlink`, ...
_PYTHON_WRITES = re.compile(
    r"""open\([^)]*['"][wax]|write_text|write_bytes|shutil\.(copy|move)|os\.(symlink|link|rename|replace)|\.touch\("""
)


def python_plants(code: str, strings: list[Word], cwds: frozenset[str]) -> list[Finding]:
    """Python code that writes files, naming one that runs code later (its text unknown)."""
    if not _PYTHON_WRITES.search(code):
        return []
    for literal in strings:
        for path in _workspace_paths(literal, cwds):
            if (rule := runs_later.planted(path, None)) is not None:
                return [Finding(runs_later.REASON, runs_later.message(rule, path))]
    return []
