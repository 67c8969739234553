"""Which arguments of a command may name files.

By default every argument does (a stray `/etc/passwd` given to `echo` may still reach
`xargs cat`). The exceptions are arguments that are patterns, code or messages, which
legitimately contain slashes: grep and sed patterns, awk programs, `find -name`,
`git commit -m`, delimiters of cut/sort/tr, the code of `sh -c` and `python -c`.
"""

from __future__ import annotations

import posixpath

from agent.policy.escapes import decode_echo
from agent.policy.words import Word

_GREPS = {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git-grep"}
# Program → options whose value is not a file name.
_NOT_FILES = {
    "grep": {"-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "-d", "-D", "--label"},
    "rg": {"-e", "--regexp", "-g", "--glob", "-t", "--type", "-T", "-m", "-A", "-B", "-C", "-r", "--replace"},
    "sed": {"-e", "--expression", "-l", "--line-length"},
    "awk": {"-v", "-F", "--assign", "--field-separator", "-e", "--source"},
    "cut": {"-d", "--delimiter", "-f", "-c", "-b"},
    "sort": {"-t", "--field-separator", "-k", "--key"},
    "paste": {"-d", "--delimiters"},
    "join": {"-t"},
    "column": {"-s", "-o"},
    "seq": {"-s", "--separator", "-f", "--format"},
    "git": {"-m", "--message", "--grep", "--author", "--format", "--pretty", "-S", "-G"},
    "python": {"-c", "-m", "-W", "-X"},
    "find": {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname",
             "-ilname", "-printf", "-fprintf"},
}  # fmt: skip
for _grep in _GREPS - {"grep", "rg"}:
    _NOT_FILES[_grep] = _NOT_FILES["grep"]
for _awk in ("gawk", "mawk", "nawk"):
    _NOT_FILES[_awk] = _NOT_FILES["awk"]
_NOT_FILES["gsed"] = _NOT_FILES["sed"]
# Programs whose arguments are never files.
_NO_FILES = {"tr", "date", "kill", "trap", "alias", "watch", "expr", "sleep", "true", "false", ":"}
# The first operand is a pattern or program unless one was given with an option.
_PATTERN_FIRST: dict[str, frozenset[str]] = {
    **dict.fromkeys(_GREPS, frozenset({"-e", "--regexp", "-f", "--file"})),
    **dict.fromkeys(("sed", "gsed"), frozenset({"-e", "--expression", "-f", "--file"})),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), frozenset({"-f", "--file"})),
    "jq": frozenset({"-f", "--from-file"}),
}
_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"}


def path_words(name: str, args: tuple[Word, ...]) -> list[Word]:
    if name in _NO_FILES:
        return []
    if name == "ln":
        return _link_words(args)
    if name in ("echo", "printf"):
        # What they print, escapes decoded, may be a path for `xargs cat` downstream.
        return [*args, *(Word.literal(decode_echo(a.text)) for a in args if a.text and "\\" in a.text)]
    if name in _SHELLS:
        return _after_inline_code(args)
    skip = _NOT_FILES.get(name, set())
    kept: list[Word] = []
    skip_next = False
    pattern_pending = name in _PATTERN_FIRST and not any(a.text in _PATTERN_FIRST[name] for a in args)
    for arg in args:
        text = arg.text or ""
        if skip_next:
            skip_next = False
            continue
        if text in skip:
            skip_next = True
            continue
        if "=" in text and text.split("=", 1)[0] in skip:
            continue
        if pattern_pending and not text.startswith("-"):
            pattern_pending = False
            continue
        kept.append(arg)
    return kept


def _after_inline_code(args: tuple[Word, ...]) -> list[Word]:
    """`bash -c CODE name args...`: the code is analysed as shell; the rest are arguments."""
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text.startswith("-") and not text.startswith("--") and "c" in text:
            return [*args[:index], *args[index + 2 :]]
    return list(args)


def _link_words(args: tuple[Word, ...]) -> list[Word]:
    """`ln -s ../README.md docs/README.md`: a relative target is relative to the link's directory."""
    texts = [a.text or "" for a in args]
    symbolic = any(t.startswith("-") and not t.startswith("--") and "s" in t for t in texts) or "--symbolic" in texts
    operands = [a for a in args if not (a.text or "").startswith("-")]
    if not symbolic or len(operands) != 2 or not all(w.is_static for w in operands):
        return list(args)
    target, link = operands[0].text or "", operands[1].text or ""
    if target.startswith(("/", "~")):
        return list(args)
    directory = posixpath.dirname(link)
    return [Word(target, (posixpath.join(directory, target),), posixpath.join(directory, target)), operands[1]]
