"""Vim's Ex commands, as `vim -c CMD`, `+CMD`, `--cmd CMD`, `ex` or `vim -es` fed a script, or
a file given to `-S`/`-u`, read for the code they run.

`:!cmd`, `:r !cmd`, `:w !cmd`, `:terminal`, `:grep` and `system()` run shell commands (analysed
like the command itself); `:python` runs Python (analysed); `:lua`, `:perl`, `:execute`, `:make`,
`eval()` and options that name a program run code the verifier cannot read (refused as dynamic
code). Editing commands (`:%s`, `:g`, `:d`, `:wq`, `:set ff=unix`, `:normal` keys) are allowed;
a command this reader does not know is refused rather than guessed at.
"""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.interpreters import Code
from agent.policy.script_text import FileRun, Translation, shell
from agent.policy.secrets import is_secret_variable
from agent.policy.words import Word
from contracts.actions import ReasonCode

# Command → (shortest abbreviation, kind).
_COMMANDS: dict[str, tuple[int, str]] = {
    **{c: (len(c), "plain") for c in ("wq", "wqa", "wqall", "xa", "xall", "cq", "cquit", "x", "xit", "exit")},
    "quit": (1, "plain"), "qall": (2, "plain"), "quitall": (5, "plain"), "substitute": (1, "plain"),
    "delete": (1, "plain"), "move": (1, "plain"), "t": (1, "plain"), "copy": (2, "plain"), "join": (1, "plain"),
    "yank": (1, "plain"), "put": (2, "plain"), "print": (1, "plain"), "number": (2, "plain"), "list": (1, "plain"),
    "z": (1, "plain"), "left": (2, "plain"), "right": (2, "plain"), "center": (2, "plain"), "retab": (3, "plain"),
    "sort": (3, "plain"), "undo": (1, "plain"), "redo": (3, "plain"), "mark": (2, "plain"), "k": (1, "plain"),
    "nohlsearch": (3, "plain"), "bnext": (2, "plain"), "bprevious": (2, "plain"), "buffer": (1, "plain"),
    "bdelete": (2, "plain"), "ls": (2, "plain"), "files": (5, "plain"), "buffers": (7, "plain"),
    "next": (1, "plain"), "previous": (4, "plain"), "first": (3, "plain"), "last": (3, "plain"),
    "diffupdate": (5, "plain"), "diffthis": (5, "plain"), "diffoff": (5, "plain"), "syntax": (2, "plain"),
    "filetype": (5, "plain"), "setfiletype": (4, "plain"), "update": (2, "write"), "write": (1, "write"),
    "wall": (2, "write"), "saveas": (3, "write"), "wnext": (2, "write"), "read": (1, "read"), "edit": (1, "edit"),
    "enew": (3, "plain"), "new": (3, "edit"), "vnew": (3, "edit"), "split": (2, "edit"), "vsplit": (2, "edit"),
    "tabedit": (4, "edit"), "global": (1, "global"), "vglobal": (1, "global"), "normal": (4, "normal"),
    "set": (2, "set"), "setlocal": (4, "set"), "setglobal": (4, "set"), "echo": (2, "expr"), "echon": (5, "expr"),
    "echomsg": (5, "expr"), "echoerr": (5, "expr"), "let": (3, "expr"), "const": (4, "expr"), "unlet": (3, "expr"),
    "call": (3, "expr"), "if": (2, "expr"), "elseif": (5, "expr"), "else": (2, "plain"), "endif": (2, "plain"),
    "while": (2, "expr"), "endwhile": (4, "plain"), "for": (3, "expr"), "endfor": (4, "plain"), "try": (3, "plain"),
    "endtry": (4, "plain"), "return": (4, "expr"), "execute": (3, "dynamic"), "python": (2, "python"),
    "python3": (3, "python"), "pythonx": (3, "python"), "pyfile": (3, "pyfile"), "py3file": (4, "pyfile"),
    "pyxfile": (4, "pyfile"), "source": (2, "source"), "terminal": (3, "terminal"), "grep": (2, "grep"),
    "lgrep": (3, "grep"), "shell": (2, "dynamic"), "make": (3, "dynamic"), "lmake": (4, "dynamic"),
    "runtime": (2, "dynamic"), "redir": (5, "redir"), "append": (1, "text"), "insert": (1, "text"),
    "change": (1, "text"), "windo": (5, "each"), "bufdo": (5, "each"), "argdo": (5, "each"), "tabdo": (5, "each"),
    "cdo": (3, "each"), "ldo": (3, "each"), "cfdo": (4, "each"), "lfdo": (4, "each"),
}  # fmt: skip
_FOREIGN = ("lua", "luafile", "luado", "perl", "perldo", "ruby", "rubyfile", "rubydo", "tcl", "tcldo", "tclfile")
_MODIFIERS = (("silent", 3), ("keepjumps", 5), ("keeppatterns", 5), ("keepalt", 5), ("keepmarks", 3))
_MODIFIERS += (("noautocmd", 3), ("lockmarks", 3), ("vertical", 4), ("unsilent", 3), ("noswapfile", 3))
_MODIFIERS += (("confirm", 4), ("browse", 3), ("sandbox", 3), ("topleft", 2), ("botright", 2))
_RANGE = re.compile(r"""(?:[\s,;%.$+\-0-9]|'[\w<>'"\[\]^.]|/(?:[^/\\]|\\.)*/?|\?(?:[^?\\]|\\.)*\??|\\[/?&])*""")
# Options that hold file formats and layout, not programs or expressions.
_PLAIN_OPTIONS = {
    "ff", "fileformat", "ffs", "fileformats", "et", "expandtab", "ts", "tabstop", "sw", "shiftwidth", "sts",
    "softtabstop", "tw", "textwidth", "fenc", "fileencoding", "enc", "encoding", "bomb", "eol", "endofline",
    "fixeol", "fixendofline", "ic", "ignorecase", "scs", "smartcase", "magic", "more", "nu", "number", "list",
    "paste", "ai", "autoindent", "si", "smartindent", "ci", "cindent", "wrap", "ws", "wrapscan", "hls",
    "hlsearch", "is", "incsearch", "bk", "backup", "swf", "swapfile", "wb", "writebackup", "report", "ul",
    "undolevels", "bin", "binary", "ml", "modeline", "cp", "compatible", "ft", "filetype", "syn", "syntax",
    "spell", "ro", "readonly", "ma", "modifiable", "lz", "lazyredraw", "ve", "virtualedit", "js", "joinspaces",
    "sol", "startofline", "wrapmargin", "wm", "fo", "formatoptions", "cpo", "cpoptions", "bs", "backspace",
}  # fmt: skip
_RUNS_SHELL = {"system", "systemlist", "job_start", "jobstart", "term_start", "termopen"}
_EVALUATES = {"eval", "execute", "feedkeys", "libcall", "libcallnr", "luaeval", "pyeval", "py3eval", "pyxeval"}
_EVALUATES |= {"perleval", "rubyeval", "timer_start", "ch_open", "remote_send", "remote_expr", "environ"}
_FILE_FUNCTIONS = {"writefile", "readfile", "readblob", "delete", "rename", "mkdir", "filecopy", "readdir"}
_PY_HEREDOC = re.compile(r"\s*:?\s*(py|python|py3|python3|pyx|pythonx)\s*<<\s*(?:trim\s+)?(\S*)\s*$")


def read_vim(text: str, origin: str) -> Translation:
    """Every line of an Ex script (a `-c` value is a one-line script)."""
    result = Translation()
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        heredoc = _PY_HEREDOC.match(lines[index])
        if heredoc:  # `python3 << EOF` ... `EOF`
            end = heredoc.group(2) or "."
            body = []
            index += 1
            while index < len(lines) and lines[index].strip() != end:
                body.append(lines[index])
                index += 1
            result.codes.append(Code("python", Word.literal("\n".join(body)), f"Python in {origin}"))
        elif _commands(lines[index], origin, result):
            while index + 1 < len(lines) and lines[index + 1].strip() != ".":
                index += 1  # the text an `:append`/`:insert` adds, up to its `.`
            index += 1
        index += 1
    return result


def _commands(line: str, origin: str, result: Translation) -> bool:
    """The bar-separated commands of one line; True when the last starts a block of text."""
    rest: str | None = line
    text_mode = False
    for _ in range(64):
        if rest is None:
            break
        rest, text_mode = _one(rest, origin, result)
    return text_mode


def _one(text: str, origin: str, result: Translation) -> tuple[str | None, bool]:
    """Judge the first command of `text`; the text after its bar, if another command follows."""
    stripped = _strip_modifiers(text.lstrip(" \t:"))
    span = _RANGE.match(stripped).end()  # type: ignore[union-attr]
    command = stripped[span:].lstrip(" \t:")
    if not command or command.startswith('"'):
        return None, False
    if command[0] == "!":  # `:!cmd`, or `:{range}!filter` (the lines piped in): the rest of the line
        result.codes.append(shell(command[1:], f"`:!` in {origin}", piped=bool(stripped[:span].strip())))
        return None, False
    if command[0] in "&~<>=#":
        return _after_bar(command[1:]), False
    name = re.match(r"[A-Za-z]+(?:[0-9][A-Za-z]*)?|.", command).group()  # type: ignore[union-attr]
    argument = command[len(name) :]
    argument = argument[1:] if argument.startswith("!") else argument
    kind = _kind(name)
    if kind == "plain":
        return _after_bar(argument), False
    if kind == "text":
        return None, True
    if kind in ("write", "read") and argument.lstrip().startswith("!"):
        code = argument.lstrip()[1:]
        result.codes.append(shell(code, f"`:{name} !` in {origin}", piped=kind == "write"))
        return None, False
    if kind in ("write", "read", "edit", "redir"):
        rest = _after_bar(argument)
        words = (argument if rest is None else argument[: len(argument) - len(rest) - 1]).split()
        named = [Word.literal(w.lstrip(">=")) for w in words if not w.startswith("++") and w.lstrip(">=")]
        result.files += named
        if kind in ("write", "redir"):
            result.writes += named
        return rest, False
    if kind == "global":
        body = argument.lstrip()
        if body:
            end = _delimited_end(body)
            _commands(body[end:], origin, result)
        return None, False
    if kind == "each":
        _commands(argument, origin, result)
        return None, False
    if kind == "normal":
        if re.search(r"[\x00-\x1f\x7f]", argument):
            result.findings.append(_dynamic(f"`:normal` with control keys in {origin}"))
        return None, False
    if kind == "set":
        rest = _after_bar(argument)
        for option in (argument if rest is None else argument[: len(argument) - len(rest) - 1]).split():
            bare = re.sub(r"^(no|inv)|[!&?]$|[-+^]?[=:].*$", "", option)
            if bare not in _PLAIN_OPTIONS:
                result.findings.append(_dynamic(f"`:set {option}` in {origin} (an option that may name a program)"))
        return rest, False
    if kind == "expr":
        rest = _after_bar(argument, quotes=True)
        _expression(argument if rest is None else argument[: len(argument) - len(rest) - 1], origin, result)
        return rest, False
    if kind == "python":
        result.codes.append(Code("python", Word.literal(argument), f"`:{name}` in {origin}"))
    elif kind == "pyfile":
        result.runs.append(FileRun(Word.literal(argument.strip()), "python", f"`:{name}` in {origin}"))
    elif kind == "source":
        result.runs.append(FileRun(Word.literal(argument.strip()), "vim", f"`:source` in {origin}"))
    elif kind == "terminal":
        result.codes.append(shell(re.sub(r"^(\s*\+\+\w+(=\S*)?)*", "", argument), f"`:terminal` in {origin}"))
    elif kind == "grep":
        result.codes.append(shell(f"grep -n {argument}", f"`:{name}` in {origin}"))
    elif kind == "foreign" or name.lower() in _FOREIGN:
        result.codes.append(Code("other", Word.literal(argument), f"`:{name}` in {origin}"))
    else:
        result.findings.append(_dynamic(f"the vim command `:{name}` in {origin}"))
    return None, False


def _kind(name: str) -> str:
    lowered = name.lower()
    if lowered in _FOREIGN:
        return "foreign"
    for full, (shortest, kind) in _COMMANDS.items():
        if len(lowered) >= shortest and full.startswith(lowered):
            return kind
    return "unknown"


def _strip_modifiers(command: str) -> str:
    for _ in range(8):
        match = re.match(r"([a-z]+)!?\s+", command)
        word = match.group(1) if match else ""
        if not any(len(word) >= shortest and full.startswith(word) for full, shortest in _MODIFIERS):
            return command
        command = command[match.end() :].lstrip(" \t:")  # type: ignore[union-attr]
    return command


def _after_bar(text: str, quotes: bool = False) -> str | None:
    """The text after the first unescaped `|` (outside strings, for expressions)."""
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" or (char == "\x16"):
            index += 2
            continue
        if quotes and char in "'\"" and (not quote or quote == char):
            quote = "" if quote else char
        elif char == "|" and not quote:
            return text[index + 1 :]
        index += 1
    return None


def _delimited_end(body: str) -> int:
    """Past `/pattern/` (any delimiter) at the start of a `:g` argument."""
    delimiter = body[0]
    index = 1
    while index < len(body) and body[index] != delimiter:
        index += 2 if body[index] == "\\" else 1
    return index + 1


def _expression(expression: str, origin: str, result: Translation) -> None:
    for match in re.finditer(r"(?<![\w:#.])([A-Za-z_][\w:#.]*)\s*\(", expression):
        function = match.group(1).lower().rsplit(":", 1)[-1]
        literal = _string_at(expression, match.end())
        if function in _RUNS_SHELL:
            if literal is None:
                result.findings.append(_dynamic(f"`{function}()` of a computed command in {origin}"))
            else:
                result.codes.append(shell(literal, f"`{function}()` in {origin}"))
        elif function in _EVALUATES:
            result.findings.append(_dynamic(f"`{function}()` in {origin}"))
        elif function in _FILE_FUNCTIONS and literal is not None:
            result.files.append(Word.literal(literal))
        if function == "writefile":  # writefile(lines, 'name'): the last string is the file
            target = re.match(r"[^)]*?,\s*(['\"])(.*?)\1", expression[match.end() :])
            if target is not None:
                result.writes.append(Word.literal(target.group(2)))
    for name in re.findall(r"\$([A-Za-z_]\w*)", expression):
        if is_secret_variable(name):
            message = f"{origin} reads ${name}, which may hold a secret: leave secrets alone"
            result.findings.append(Finding(ReasonCode.SECRET_ACCESS, message))


def _string_at(text: str, index: int) -> str | None:
    """The vim string literal that starts at `index` (after spaces), if one does."""
    match = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')""").match(text, index)
    if match is None:
        return None
    literal = match.group(1)
    if literal[0] == "'":
        return literal[1:-1].replace("''", "'")
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def _dynamic(what: str) -> Finding:
    return Finding(ReasonCode.DYNAMIC_CODE, f"{what} runs code the verifier cannot read: edit with plain commands")
