"""Code that a command carries for an interpreter: `sh -c CODE`, `python -c CODE`, a here-doc
fed to `bash`, `echo ... | sh`, `trap CODE`, `alias x=CODE`, `watch CODE`, and the like.

Shell and Python code is analysed like the command itself; code for other interpreters
(`perl -e`, `node -e`) is not, and the rules refuse it as dynamic code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.policy.shell_model import Stdin
from agent.policy.words import Word

SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash"}
# Interpreter → the options that take a line of code.
INLINE_CODE = {
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "nodejs": "ep",
    "php": "r",
    "lua": "e",
    "luajit": "e",
    "Rscript": "e",
    "julia": "e",
    "osascript": "e",
    "pwsh": "c",
    "powershell": "c",
    "bun": "e",
    "deno": "",
    "tclsh": "",
    "wish": "",
    "expect": "c",
    "gnuplot": "e",
}
_LONG_INLINE = {"--eval", "--print", "-Command", "--command"}
_SHELL_VALUED = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
_PYTHON_VALUED = {"-W", "-X", "--check-hash-based-pycs"}


# Settings whose value is a command line that some program later runs through a shell.
COMMAND_VARIABLES = {
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS", "SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE",
    "PROMPT_COMMAND", "BROWSER", "GIT_PROXY_COMMAND",
}  # fmt: skip
GIT_COMMAND_KEYS = re.compile(
    r"(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath)|sequence\.editor|diff\.external"
    r"|.*\.(textconv|command|driver|clean|smudge|process|program|cmd|helper|uploadpack|receivepack)"
    r"|credential\.helper|pager\..*|alias\..*)$",
    re.IGNORECASE,
)
# tar/zip/rsync options whose value is a command line.
_COMMAND_OPTIONS = {
    "tar": ("--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--rsh-command",
            "--info-script", "-F", "--new-volume-script"),
    "zip": ("-TT", "--unzip-command"),
    "rsync": ("-e", "--rsh"),
}  # fmt: skip


# A perl program that is one substitution or transliteration, with no `e` flag (which would
# evaluate the replacement) and no code blocks, interpolation or backticks anywhere in it.
_PERL_SUBSTITUTION = re.compile(
    r"\s*(?:s|tr|y)(?P<d>[/|#,!])(?:(?!(?P=d))[^$@`\\]|\\[^\n]){0,400}(?P=d)"
    r"(?:(?!(?P=d))[^$@`\\]|\\[^\n]){0,400}(?P=d)[gimsxrcdu]*\s*;?\s*"
)


def _plain_substitution(program: str) -> bool:
    # `(?{ ... })` and `(??{ ... })` run perl code from inside a pattern.
    return _PERL_SUBSTITUTION.fullmatch(program) is not None and "(?{" not in program and "(??{" not in program


@dataclass(frozen=True)
class Code:
    language: Literal["shell", "python", "other"]
    code: Word
    # Where the code came from, for messages: "`bash -c`", "a here-doc fed to `python`".
    origin: str


def embedded_code(name: str | None, args: tuple[Word, ...], stdin: Stdin | None) -> list[Code]:
    if name in SHELLS:
        return _shell(name, args, stdin)
    if name == "python":
        return _python(args, stdin)
    if name in INLINE_CODE:
        return _other(name, args, stdin)
    if name == "trap" and args and args[0].text not in ("-p", "-l"):
        return [Code("shell", args[0], "`trap`")]
    if name == "alias":
        return [Code("shell", _value_after_equals(a), "`alias`") for a in args if "=" in a.pattern]
    if name == "watch":
        return _watch(args)
    if name in ("script", "flock", "su"):
        values = [args[i + 1] for i, a in enumerate(args[:-1]) if a.text in ("-c", "--command")]
        return [Code("shell", v, f"`{name} -c`") for v in values]
    return []


def settings_code(name: str | None, args: tuple[Word, ...], assignments: tuple[tuple[str, Word], ...]) -> list[Code]:
    """Command lines hidden in settings: `GIT_SSH_COMMAND=...`, `git -c core.pager=...`, `tar --to-command=...`."""
    found = [
        # LESSOPEN='|cmd %s': a leading bar only says "read cmd's output".
        Code("shell", _strip_bars(value) if key.startswith("LESS") else value, f"the {key} setting")
        for key, value in assignments
        if key in COMMAND_VARIABLES
    ]
    texts = [a.text for a in args]
    if name == "git":
        for index, text in enumerate(texts):
            pair = texts[index + 1] if text == "-c" and index + 1 < len(texts) else None
            if pair and "=" in pair and GIT_COMMAND_KEYS.match(pair.split("=", 1)[0]):
                found.append(Code("shell", Word.literal(pair.split("=", 1)[1].lstrip("!")), f"`git -c {pair}`"))
        if "config" in texts:
            operands = [a for a in args[texts.index("config") + 1 :] if not (a.text or "").startswith("-")]
            key = operands[0].text if operands else None
            if len(operands) >= 2 and key and GIT_COMMAND_KEYS.match(key):
                value = operands[1]
                value = Word.literal(value.text.lstrip("!")) if value.text is not None else value
                found.append(Code("shell", value, f"`git config {key}`"))
    for option in _COMMAND_OPTIONS.get(name or "", ()):
        for index, text in enumerate(texts):
            if text == option and index + 1 < len(args):
                found.append(Code("shell", args[index + 1], f"`{name} {option}`"))
            elif text and text.startswith(option + "="):
                value = text.split("=", 1)[1]
                value = value.split("exec=", 1)[1] if "exec=" in value else value
                found.append(Code("shell", Word.literal(value), f"`{name} {option}`"))
    return found


def _shell(name: str, args: tuple[Word, ...], stdin: Stdin | None) -> list[Code]:
    inline = reads_stdin = False
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None or not text.startswith(("-", "+")) or text in ("-", "--"):
            break
        if text in _SHELL_VALUED:
            index += 1
        elif not text.startswith("--"):
            inline |= "c" in text
            reads_stdin |= "s" in text
        index += 1
    operands = args[index:]
    if operands and operands[0].text == "--":
        operands = operands[1:]
    if inline:
        return [Code("shell", operands[0], f"`{name} -c`")] if operands else []
    if reads_stdin or not operands or operands[0].text == "-":
        return _from_stdin("shell", name, stdin)
    return []  # a script file: a path argument like any other


def _python(args: tuple[Word, ...], stdin: Stdin | None) -> list[Code]:
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None or not text.startswith("-") or text == "-":
            break
        if text in _PYTHON_VALUED:
            index += 2
            continue
        flags = text[1:]
        if flags[0] in "WX":  # -Werror::DeprecationWarning, -Xdev: a value attached
            index += 1
            continue
        if not text.startswith("--") and ("c" in flags or "m" in flags):
            letter = next(ch for ch in flags if ch in "cm")
            attached = flags.split(letter, 1)[1]
            code = Word.literal(attached) if attached else (args[index + 1] if index + 1 < len(args) else None)
            if letter == "m" or code is None:
                return []  # `-m module` is judged by the rules
            return [Code("python", code, "`python -c`")]
        index += 1
    if index < len(args) and args[index].text != "-":
        return []  # a script file
    return _from_stdin("python", "python", stdin)


def _other(name: str, args: tuple[Word, ...], stdin: Stdin | None) -> list[Code]:
    letters = INLINE_CODE[name]
    for index, arg in enumerate(args):
        text = arg.text or ""
        short = text.startswith("-") and not text.startswith("--") and any(ch in letters for ch in text[1:])
        if short or text in _LONG_INLINE or (name == "deno" and text == "eval"):
            code = args[index + 1] if index + 1 < len(args) else Word.literal("")
            if name == "perl" and code.text is not None and _plain_substitution(code.text):
                return []  # `perl -pi -e 's/a/b/g'`: a substitution runs no code
            return [Code("other", code, f"`{name} {text}`")]
    if not any(not (a.text or "-").startswith("-") for a in args):
        return _from_stdin("other", name, stdin)
    return []


def _from_stdin(language: Literal["shell", "python", "other"], name: str, stdin: Stdin | None) -> list[Code]:
    if stdin is None or stdin.kind == "file":
        return []  # /dev/null in the executor, or a script file
    source = "a here-doc or piped text" if stdin.kind == "text" else "a pipe"
    return [Code(language, stdin.word, f"{source} fed to `{name}`")]


def _watch(args: tuple[Word, ...]) -> list[Code]:
    index = 0
    while index < len(args) and (args[index].text or "").startswith("-"):
        index += 2 if args[index].text in ("-n", "--interval", "-d", "-q") else 1
    rest = args[index:]
    if not rest:
        return []
    if any(w.values is None for w in rest):
        return [Code("shell", Word.unknown(" ".join(w.raw for w in rest)), "`watch`")]
    return [Code("shell", Word.literal(" ".join(w.text or "" for w in rest)), "`watch`")]


def _value_after_equals(word: Word) -> Word:
    if word.values is None:
        return Word.unknown(word.raw)
    return Word(word.raw, tuple(re.sub(r"^[^=]*=", "", v, count=1) for v in word.values), word.pattern)


def _strip_bars(word: Word) -> Word:
    if word.values is None:
        return word
    return Word(word.raw, tuple(v.lstrip("|") for v in word.values), word.pattern.lstrip("|"))
