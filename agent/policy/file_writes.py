"""What a simple command writes to files, and the text it writes when the command shows it.

Redirects carry what `echo`, `printf` (its format applied), `cat` of a here-doc or of files,
`tee` and `:` print; `cp`/`mv`/`ln`/`install`/`dd` give the target the text of their source;
`sed -i` adds the text of its replacements to a file's own. Any other program's output is
known only at run time. `agent.policy.written_files` keeps these writes for the runs they
meet in the same command.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from dataclasses import dataclass

from agent.policy.escapes import decode_echo
from agent.policy.shell_model import SimpleCommand
from agent.policy.tool_scripts import AWKS, SEDS
from agent.policy.words import Word
from agent.policy.wrappers import Invocation


@dataclass(frozen=True)
class Copy:
    """The text of another file, whatever it holds when the command runs."""

    path: Word


# A piece of a written file: known text (or one of several), another file's text, or None for text
# known only at run time.
Part = str | tuple[str, ...] | Copy | None


@dataclass(frozen=True)
class FileWrite:
    target: Word
    parts: tuple[Part, ...]
    append: bool = False


_MAX_COMBINATIONS = 16
_COPIES = {"cp", "mv", "install", "ln"}
_STDIN_PATHS = {"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"}
_COPY_VALUED = {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"}
_EDITORS = {"vi", "vim", "ex", "ed", "red", "nvim", "view", "vim.basic", "vim.tiny"}
_SED_VALUED = {"-e", "--expression", "-f", "--file", "-l", "--line-length"}
_CONVERSION = re.compile(r"%[-+ #0]*\d*(?:\.\d*)?([a-zA-Z])")
# Options whose value is a file the program writes.
_OUTPUT_OPTIONS = {
    "sort": ("-o", "--output"),
    "iconv": ("-o", "--output"),
    "uudecode": ("-o", "--output-file"),
    "openssl": ("-out",),
    "patch": ("-o", "--output"),
    "gpg": ("-o", "--output"),
}
_AWK_OUTPUT = re.compile(r'>>?\s*"([^"]+)"')
# `w file`, `1w file`, `/x/w file`, `s/a/b/w file`.
_SED_OUTPUT = re.compile(r"(?:^|[;\n{}\d$/])\s*w\s+([^;\n}]+)")
_SUBSTITUTION = re.compile(r"s(.)(?:(?!\1)[^\\]|\\.)*\1((?:(?!\1)[^\\]|\\.)*)\1")


def writes_of(inv: Invocation, command: SimpleCommand) -> list[FileWrite]:
    name = inv.name or ""
    args = inv.args
    texts = [a.text for a in args]
    printed = printed_by(name, args, command) if inv.argv else (None,)
    found = [FileWrite(r.target, printed, ">>" in r.operator) for r in command.redirects if r.writes]
    operands = [a for a in args if not (a.text or "").startswith("-")]
    if name == "tee":
        append = any(t in ("-a", "--append") for t in texts)
        found += [FileWrite(a, _stdin_parts(command), append) for a in operands]
    elif name in _COPIES:
        found += [FileWrite(w.target, _source(w.parts[0], command, name == "ln")) for w in _copies(name, args)]
    elif name == "dd":
        source = next((Copy(Word.literal(t[3:])) for t in texts if t and t.startswith("if=")), None)
        parts = _source(source, command) if source is not None else _stdin_parts(command)
        found += [FileWrite(Word.literal(t[3:]), parts) for t in texts if t and t.startswith("of=")]
    elif name in ("sed", "gsed", "perl") and any(
        (t or "").startswith(("-i", "--in-place", "-pi", "-ni")) for t in texts
    ):
        scripts, files = _sed_operands(args)
        added = "\n".join(_inserted(s.text) for s in scripts) if all(s.text is not None for s in scripts) else None
        found += [FileWrite(f, (added,), append=True) for f in files]
    elif name in _EDITORS:
        found += [FileWrite(a, (None,), append=True) for a in operands if not (a.text or "+").startswith("+")]
    found += [FileWrite(target, (None,)) for target in _program_outputs(name, args)]
    return found


def _program_outputs(name: str, args: tuple[Word, ...]) -> list[Word]:
    """Files a program writes by its own options or script (`sort -o f`, awk's `print > "f"`), text unknown."""
    texts = [a.text or "" for a in args]
    found = [args[i + 1] for i, t in enumerate(texts[:-1]) if t in _OUTPUT_OPTIONS.get(name, ())]
    found += [
        Word.literal(t.split("=", 1)[1]) for t in texts if "=" in t and t.split("=")[0] in _OUTPUT_OPTIONS.get(name, ())
    ]
    if name == "xxd" and "-r" in texts:
        found += [a for a in args if not (a.text or "-").startswith("-")][1:2]
    if name in AWKS or name in SEDS:
        pattern = _AWK_OUTPUT if name in AWKS else _SED_OUTPUT  # the program is one of the words
        found += [Word.literal(target.strip()) for text in texts for target in pattern.findall(text)]
    return found


def printed_by(name: str, args: tuple[Word, ...], command: SimpleCommand) -> tuple[Part, ...]:
    """What the command prints on its standard output, as far as the command line shows it."""
    if name in (":", "true", "false"):
        return ("",)
    if name in ("echo", "printf") and all(a.values is not None for a in args):
        # Each combination of the words' values (`echo "echo $i"` in `for i in 1 2`), up to a few.
        combinations = list(itertools.islice(itertools.product(*(a.values or () for a in args)), _MAX_COMBINATIONS + 1))
        if len(combinations) > _MAX_COMBINATIONS or (name == "printf" and args[:1] and args[0].text == "-v"):
            return (None,) if len(combinations) > _MAX_COMBINATIONS else ("",)
        texts = tuple(dict.fromkeys(_printed(name, list(words)) for words in combinations))
        return (texts[0] if len(texts) == 1 else texts,)
    if name == "cat":
        operands = [a for a in args if not (a.text or "").startswith("-") or a.text == "-"]
        if not operands:
            return _stdin_parts(command)
        return tuple(p for a in operands for p in _source(Copy(a), command))
    if name == "tee":
        return _stdin_parts(command)
    return (None,)


def _printed(name: str, words: list[str]) -> str:
    if name == "printf":
        return printf_output(words[1:] if words[:1] == ["--"] else words)
    flags = ""
    while words and re.fullmatch(r"-[neE]+", words[0]):
        flags += words.pop(0)
    return decode_echo(" ".join(words)) + ("" if "n" in flags else "\n")


def printf_output(words: list[str]) -> str:
    """What printf prints: the format applied to the arguments, again while arguments remain."""
    if not words:
        return ""
    template = decode_echo(words[0].replace("%%", "\x02"))
    arguments = words[1:]
    output = []
    for _ in range(64):
        pieces = []
        used = 0
        for index, piece in enumerate(_CONVERSION.split(template)):
            # split() alternates text and the conversion letter it captured.
            if index % 2 == 0:
                pieces.append(piece)
                continue
            value = arguments[used] if used < len(arguments) else ""
            used += 1
            pieces.append(decode_echo(value) if piece == "b" else value[:1] if piece == "c" else value)
        output.append("".join(pieces))
        arguments = arguments[used:]
        if not arguments or used == 0:
            break
    return "".join(output).replace("\x02", "%")


def _source(part: Part, command: SimpleCommand, linked: bool = False) -> tuple[Part, ...]:
    """A copy's text: standard input's for `/dev/stdin` and `-`, the named file's otherwise. A link
    to a descriptor (`ln -s /dev/stdin x`) and a copy of a process substitution hold text only
    known when they are read."""
    if not isinstance(part, Copy):
        return (part,)
    if part.path.raw.startswith(("<(", ">(")) or (linked and (part.path.text or "").startswith(("/dev/", "/proc/"))):
        return (None,)
    if part.path.text in _STDIN_PATHS:
        return _stdin_parts(command)
    return (part,)


def _stdin_parts(command: SimpleCommand) -> tuple[Part, ...]:
    stdin = command.stdin
    if stdin is None:
        return ("",)  # /dev/null, where the lab runs commands
    if stdin.kind == "file":
        return (Copy(stdin.word),)
    return (stdin.word.text if stdin.kind == "text" else None,)


def _copies(name: str, args: tuple[Word, ...]) -> list[FileWrite]:
    operands: list[Word] = []
    directory: Word | None = None
    skip = False
    for index, arg in enumerate(args):
        text = arg.text or ""
        if skip:
            skip = False
        elif text in _COPY_VALUED:
            skip = True
            if text in ("-t", "--target-directory") and index + 1 < len(args):
                directory = args[index + 1]
        elif text.startswith("--target-directory="):
            directory = Word.literal(text.split("=", 1)[1])
        elif not text.startswith("-") or arg.text is None:
            operands.append(arg)
    if directory is None and len(operands) < 2:
        return []
    destination = directory or operands.pop()
    symbolic = name == "ln" and any(re.fullmatch(r"-\w*s\w*|--symbolic", a.text or "") for a in args)
    found = []
    for source in operands:
        base = posixpath.basename(source.text or "x")
        targets = [Word.literal(posixpath.join(destination.text, base))] if destination.text is not None else []
        if directory is None:
            targets.append(destination)
        for target in targets:
            origin = source
            if symbolic and source.text is not None and target.text is not None and not source.text.startswith("/"):
                origin = Word.literal(posixpath.join(posixpath.dirname(target.text), source.text))
            found.append(FileWrite(target, (Copy(origin),)))
    return found


def _sed_operands(args: tuple[Word, ...]) -> tuple[list[Word], list[Word]]:
    """The scripts of `sed -i`/`perl -pi -e` and the files they edit."""
    scripts: list[Word] = []
    files: list[Word] = []
    given = any((a.text or "") in ("-e", "--expression", "-f", "--file") for a in args)
    skip: str | None = None
    for arg in args:
        text = arg.text or ""
        if skip is not None:
            if skip in ("-e", "--expression"):
                scripts.append(arg)
            skip = None
        elif text in _SED_VALUED or re.fullmatch(r"-\w*e", text):
            skip = "-e" if text.endswith("e") else text
        elif text.startswith("-") and arg.text is not None:
            continue
        elif not given and not scripts:
            scripts.append(arg)
        else:
            files.append(arg)
    return scripts, files


def _inserted(script: str) -> str:
    """The text a sed or perl edit puts into a file that reads as a command of its own: lines it
    appends, and replacements of more than one word (`s#/usr/local#/opt#` swaps a fragment of
    a line; `s#echo hi#rm -f x#` writes a command)."""
    added = [m.group(2) for m in _SUBSTITUTION.finditer(script) if len(m.group(2).split()) > 1]
    added += re.findall(r"(?:^|[;\n}]|\d|\$|/)\s*[aic]\\?\s*(.+)$", script, flags=re.MULTILINE)
    return "\n".join(added)
