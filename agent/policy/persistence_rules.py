"""Commands that plant files which run code later: the shell side of `agent.policy.runs_later`.

What a command writes is found where the shell shows it: a write redirect (`> f`, `>> f`),
`tee`, the destination of `cp`/`mv`/`install`/`ln`, `dd of=`, `sed -i`/`perl -i`, `touch`, and
`chmod` (making a file executable is how a hook is armed). The text written is known for
`echo`, `printf`, and `cat`/`tee`/`dd` of a here-doc or known output (`agent.policy.written_text`);
an in-place edit writes what its script inserts; otherwise the text is unknown, and a rule
that looks at content applies as if it mattered (unless it recognises its files by text alone).
A git directory copied or moved (`cp -r .git x`) carries its config and hooks along. Git's own
commands that plant (`git config`, `git init --template`: `agent.policy.git_programs`) and
other tools' (`npm pkg set`, `pre-commit install`: `agent.policy.tool_commands`) plant the same way.
"""

from __future__ import annotations

import posixpath
import re

from agent.policy import runs_later
from agent.policy.findings import Finding
from agent.policy.git_config import is_git_directory
from agent.policy.git_programs import git_plants
from agent.policy.shell_model import ROOT_CWD, SOMEWHERE_INSIDE, SimpleCommand
from agent.policy.shell_parse import parse
from agent.policy.tool_commands import tool_plants
from agent.policy.words import DYNAMIC, Word
from agent.policy.wrappers import Invocation, unwrap
from agent.policy.written_text import inserted, printed

_COPIES = {"cp", "mv", "install", "ln", "rsync"}
_IN_PLACE = {"sed", "gsed", "perl"}
_TOUCHES = {"touch", "chmod", "truncate"}


def persistence_findings(inv: Invocation, command: SimpleCommand) -> list[Finding]:
    """A finding for each file the command writes that runs code later."""
    findings = []
    for target, content in _writes(inv, command):
        for path in _workspace_paths(target, command.cwds):
            rule = runs_later.planted(path, content)
            if rule is not None:
                findings.append(Finding(runs_later.REASON, runs_later.message(rule, path)))
                break
    if (moved := _git_directory_copied(inv)) is not None:
        message = (
            f"`{inv.name}` of the git directory {moved!r} carries its configuration and hooks to where another git "
            "may read them, outside this run: that needs a person's approval"
        )
        findings.append(Finding(runs_later.REASON, message))
    return findings + git_plants(inv) + tool_plants(inv)


def _writes(inv: Invocation, command: SimpleCommand) -> list[tuple[Word, str | None]]:
    """Each file the command writes, with the text written when it is known."""
    name = inv.name or ""
    args = inv.args
    text = printed(name, args, command.stdin) if inv.argv else _list_output(command)
    found: list[tuple[Word, str | None]] = [(r.target, text) for r in command.redirects if r.writes]
    operands = [a for a in args if not (a.text or "").startswith("-")]
    if name == "tee":
        found += [(a, text) for a in operands]
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
        found += [(Word.literal(a.text[3:]), text) for a in args if a.text and a.text.startswith("of=")]
    elif name in _IN_PLACE and any((a.text or "").startswith(("-i", "--in-place", "-pi")) for a in args):
        # What the script inserts is what it writes, as `replace_in_file`'s new text is.
        edit = inserted("perl" if name == "perl" else "sed", args)
        found += [(a, edit) for a in operands[1:]]
    elif name in _TOUCHES:
        found += [(a, "" if name == "touch" else None) for a in operands[1 if name == "chmod" else 0 :]]
    return found


def _list_output(command: SimpleCommand) -> str | None:
    """What `a && printf x > f` writes: tree-sitter hangs the redirect on the whole list, so the
    parse hands it over without the command; the shell gives it to the list's last command."""
    if not command.redirects or command.raw == "":
        return None
    script = parse(command.raw, ROOT_CWD)
    last = next((c for c in reversed(script.commands) if c.words), None)
    if script.errors or last is None or last.pipes_to is not None:
        return None
    inv = unwrap(last.words, last.assignments)
    return printed(inv.name or "", inv.args, last.stdin)


def _git_directory_copied(inv: Invocation) -> str | None:
    """`cp -r .git x`, `mv sub/.git meta`, `rsync -a sub/.git/ y`: a git directory, hooks and all."""
    if inv.name not in _COPIES:
        return None
    operands = [a.text for a in inv.args if not (a.text or "-").startswith("-")]
    return next((t for t in operands[:-1] if t is not None and is_git_directory(t)), None)


def _workspace_paths(word: Word, cwds: frozenset[str]) -> list[str]:
    """The workspace-relative paths the word may name; a run-time part stands for any name."""
    texts = word.values if word.values is not None else (word.pattern.replace(DYNAMIC, "x"),)
    paths = []
    for text in texts:
        for cwd in cwds:
            joined = text if cwd == SOMEWHERE_INSIDE or text.startswith("/") else posixpath.join(cwd, text)
            paths.append(posixpath.normpath(joined))
    return list(dict.fromkeys(paths))


# Python that writes files: `open(p, "w")`, `write_text`, `shutil.copy`, `os.symlink`, ...
_PYTHON_WRITES = re.compile(
    r"""open\([^)]*['"][wax]|write_text|write_bytes|shutil\.(copy|move)|os\.(symlink|link|rename|replace)|\.touch\("""
)


# Content the literals do not show: copied, moved, linked or decoded.
_PYTHON_OPAQUE = re.compile(r"shutil\.|os\.(rename|replace|link|symlink)|b64|b32|b85|fromhex|decompress|codecs|\bchr\(")
_FILE_NAME = re.compile(r"[^\s/]*/|\w\.[A-Za-z]\w*$")


def python_plants(code: str, strings: list[Word], cwds: frozenset[str]) -> list[Finding]:
    """Python code that writes files, naming one that runs code later, or writing git
    configuration anywhere. When the code names no other file and decodes nothing, what it
    writes is judged by its other string literals, each alone (a git config, a hook body) and
    together as quoted keys (what a JSON file gets); otherwise the text counts as unknown."""
    if not _PYTHON_WRITES.search(code):
        return []
    texts = [s.text for s in strings if s.text is not None]
    for literal in strings:
        others = [t for t in texts if t != literal.text]
        known = not _PYTHON_OPAQUE.search(code) and not any(_FILE_NAME.search(t) for t in others)
        contents = [*others, " ".join(f'"{t}":' for t in others)] if known else [None]
        for path in _workspace_paths(literal, cwds):
            for content in contents:
                if (rule := runs_later.planted(path, content)) is not None:
                    return [Finding(runs_later.REASON, runs_later.message(rule, path))]
        # A literal that is itself git configuration, written wherever the code writes.
        if literal.text is not None and (rule := runs_later.planted("x", literal.text)) is not None:
            return [Finding(runs_later.REASON, runs_later.message(rule, "the file the code writes"))]
    return []
