"""Programs git runs because its options or environment say so, and git commands that plant
configuration or hooks for later.

Now: `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS` and
`git --config-env` are `git -c` by other names; `difftool -x`, `rebase --exec`, `bisect run`,
`submodule foreach`, `filter-branch --*-filter`, `send-email --*-cmd`, `archive --exec` and
the `--upload-pack`-style options of the transports take a command line. Each is handed back
as code, and analysed like the command itself: running `rm -f /x` through git is running it.

Later: `git config` (and `git clone --config`) setting a key git runs (`agent.policy.git_config`),
and `git init`/`git clone` from a template directory, which copies its hooks and config in.
"""

from __future__ import annotations

import re
import shlex

from agent.policy.findings import Finding
from agent.policy.git_config import runs_program
from agent.policy.interpreters import Code
from agent.policy.options import after_git_options
from agent.policy.words import DYNAMIC, Word
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

# The editors `rebase -i` hands its todo list to, and what an `exec` (or `x`) line there runs.
_EDITORS = {"GIT_SEQUENCE_EDITOR", "GIT_EDITOR", "EDITOR", "VISUAL"}
_EDITOR_KEYS = {"sequence.editor", "core.editor"}
_TODO_EXEC = re.compile(r"(?:\bexec|(?:^|\n|\\n|[0-9$/][aic]\\?)\s*x)\s+([^\n'\"\\]+)")
_COUNTED = re.compile(r"GIT_CONFIG_(KEY|VALUE)_(\d+)")
# `'key'='value'` (git 2.31 on) or `'key=value'`, space separated, each part shell-quoted.
_PARAMETER = re.compile(r"'((?:[^']|'\\'')*)'(?:='((?:[^']|'\\'')*)')?")
# Subcommand -> options whose value is a command line git runs.
_COMMAND_OPTIONS = {
    "difftool": ("-x", "--extcmd"),
    "rebase": ("-x", "--exec"),
    "filter-branch": (
        *(f"--{kind}-filter" for kind in ("env", "tree", "index", "parent", "msg", "commit", "tag-name")),
        "--setup",
    ),
    "send-email": ("--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"),
    "archive": ("--exec",),
    "instaweb": ("-d", "--httpd"),
    "daemon": ("--access-hook",),
}
_TRANSPORT_OPTIONS = ("--upload-pack", "--receive-pack", "--exec")
_TRANSPORTS = {"fetch", "pull", "clone", "ls-remote", "push", "remote"}
_GIT_READS = {
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset", "--unset-all",
    "--remove-section", "--rename-section", "--edit", "-e", "get", "list", "unset",
}  # fmt: skip
_GIT_CONFIG_VALUED = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}


def git_code(inv: Invocation) -> list[Code]:
    """Command lines git will run for this command: from the environment it is given (any
    command's assignments, `export`), and, for git itself, from its options."""
    codes = _environment_code(inv.assignments)
    if inv.name != "git":
        return codes
    args = inv.args
    texts = [a.text for a in args]
    for index, text in enumerate(texts[:-1]):
        if text != "-c":
            continue
        pair = args[index + 1]
        key, _, value = pair.pattern.partition("=")
        if DYNAMIC not in key and pair.text is None:  # `-c core.pager=$(...)`: a known key, a value at run time
            codes += _setting_code(key, None, f"`git -c {key}`", Word.unknown(pair.raw))
        elif pair.text is not None and "=" in pair.text:
            key, value = pair.text.split("=", 1)
            codes += _setting_code(key, value, f"`git -c {key}`")
    for text in texts:
        if text is not None and text.startswith("--config-env="):
            key, _, variable = text.removeprefix("--config-env=").partition("=")
            value = dict(inv.assignments).get(variable, Word.unknown(f"${variable}"))
            codes += _setting_code(key, value.text, f"`git --config-env {key}`", value)
    rest = after_git_options(args)
    if not rest:
        return codes
    sub, sub_args = rest[0].text or "", rest[1:]
    for option in _COMMAND_OPTIONS.get(sub, ()) + (_TRANSPORT_OPTIONS if sub in _TRANSPORTS else ()):
        codes += [Code("shell", value, f"`git {sub} {option}`") for value in _values(sub_args, option)]
    if sub == "bisect" and sub_args and sub_args[0].text == "run":
        codes += _argv_code(sub_args[1:], "`git bisect run`")
    if sub == "submodule":
        words = list(sub_args)
        while words and (words[0].text or "").startswith("-"):
            words = words[1:]
        if words and words[0].text == "foreach":
            command = words[1:]
            while command and command[0].text in ("--recursive", "-q", "--quiet"):
                command = command[1:]
            codes += _argv_code(tuple(command), "`git submodule foreach`")
    if sub in ("clone", "init"):
        for pair in _values(sub_args, "-c") + _values(sub_args, "--config"):
            if pair.text is not None and "=" in pair.text:
                codes += _setting_code(*pair.text.split("=", 1), f"`git {sub} --config`")
    return codes


def git_plants(inv: Invocation) -> list[Finding]:
    """Git commands that leave configuration or hooks behind for a later git to run."""
    if inv.name != "git":
        return []
    rest = after_git_options(inv.args)
    sub = rest[0].text if rest else None
    planted = None
    if sub == "config":
        key = _config_key(rest[1:])
        planted = key and f"`git config {key}` makes git run a program or read more configuration later"
    elif sub in ("clone", "init"):
        template = _values(rest[1:], "--template") or [v for n, v in inv.assignments if n == "GIT_TEMPLATE_DIR"]
        configs = [p.text or DYNAMIC for p in _values(rest[1:], "-c") + _values(rest[1:], "--config")]
        running = [c.split("=", 1)[0] for c in configs if DYNAMIC in c or runs_program(*_pair(c))]
        if template:
            planted = f"`git {sub}` from a template directory copies its hooks and configuration in"
        elif running:
            planted = f"`git {sub} --config {running[0]}` leaves a setting git runs a program from"
    if planted is None:
        return []
    message = (
        f"{planted}, outside this run: that needs a person's approval; pass settings for one command with `git -c`"
    )
    return [Finding(ReasonCode.PLANTED_PERSISTENCE, message)]


def _environment_code(assignments: tuple[tuple[str, Word], ...]) -> list[Code]:
    keys: dict[str, Word] = {}
    values: dict[str, Word] = {}
    codes = []
    for name, value in assignments:
        if match := _COUNTED.fullmatch(name):
            (keys if match.group(1) == "KEY" else values)[match.group(2)] = value
        elif name == "GIT_CONFIG_PARAMETERS":
            codes += _parameters_code(value)
        elif name in _EDITORS and value.text is not None:
            codes += _todo_commands(value.text, f"`{name}`")
    for number, value in values.items():
        key = keys.get(number)
        # A key set elsewhere (an earlier `export`) is not known here: judge the value as code.
        codes += _setting_code(key.text if key is not None else None, value.text, f"`GIT_CONFIG_VALUE_{number}`", value)
    return codes


def _parameters_code(value: Word) -> list[Code]:
    if value.text is None:
        return [Code("shell", Word.unknown(value.raw), "`GIT_CONFIG_PARAMETERS`")]
    codes = []
    for match in _PARAMETER.finditer(value.text):
        key, setting = match.group(1), match.group(2)
        if setting is None:
            key, _, setting = key.partition("=")
        codes += _setting_code(key.replace("'\\''", "'"), setting.replace("'\\''", "'"), "`GIT_CONFIG_PARAMETERS`")
    return codes


def _setting_code(key: str | None, value: str | None, origin: str, word: Word | None = None) -> list[Code]:
    """The value of a setting git runs, as shell code (an alias's leading `!` dropped); with
    the key unknown (None), any value."""
    if key is not None and DYNAMIC not in key and not runs_program(key, value):
        return []
    if value is None:
        return [Code("shell", word or Word.unknown(origin), origin)]
    todo = _todo_commands(value, origin) if key is not None and key.lower() in _EDITOR_KEYS else []
    return [Code("shell", Word.literal(value.strip().removeprefix("!")), origin), *todo]


def _todo_commands(editor: str, origin: str) -> list[Code]:
    """`exec` lines an editor command writes into `rebase -i`'s todo list (`sed -i '1i exec
    cmd'`): git runs each as a shell command."""
    return [
        Code("shell", Word.literal(match.group(1).strip()), f"an `exec` line {origin} puts in a rebase's todo list")
        for match in _TODO_EXEC.finditer(editor)
    ]


def _argv_code(words: tuple[Word, ...], origin: str) -> list[Code]:
    """Words git hands to a shell: the first as the shell reads it, the rest as arguments."""
    if not words:
        return []
    texts = [w.text if w.text is not None else w.raw for w in words]
    quoted = [texts[0]] + [
        shlex.quote(t) if w.text is not None else t for t, w in zip(texts[1:], words[1:], strict=True)
    ]
    return [Code("shell", Word.literal(" ".join(quoted)), origin)]


def _values(args: tuple[Word, ...] | list[Word], option: str) -> list[Word]:
    """Every value of `option`: the next word, after `=`, or attached to a short option."""
    found = []
    for index, arg in enumerate(args):
        text = arg.text
        if text is None:
            continue
        if text == option and index + 1 < len(args):
            found.append(args[index + 1])
        elif option.startswith("--") and text.startswith(option + "="):
            found.append(Word.literal(text.split("=", 1)[1]))
        elif len(option) == 2 and text.startswith(option) and len(text) > 2 and not text.startswith("--"):
            found.append(Word.literal(text[2:]))
    return found


def _pair(setting: str) -> tuple[str, str | None]:
    key, equals, value = setting.partition("=")
    return key, value if equals else None


def _config_key(args: list[Word]) -> str | None:
    """The key `git config` sets, when git would run its value (or load more from it)."""
    operands: list[str] = []
    skip = False
    for word in args:
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
    if DYNAMIC in key or runs_program(key, None if DYNAMIC in value else value):
        return key.replace(DYNAMIC, "$…")
    return None
