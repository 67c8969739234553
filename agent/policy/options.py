"""Reading a program's options the way getopt does: `-c 100`, `-c100`, `--bytes=100`, `-fn 20`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from agent.policy.words import Word

# git's own options that take the next word, before its subcommand (`git -C dir status`).
_GIT_VALUED = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}


def _is_option(arg: str) -> bool:
    return arg.startswith("-") and len(arg) > 1


def operands(args: list[str], valued: Collection[str] = (), is_option: Callable[[str], bool] = _is_option) -> list[str]:
    """The words that are neither options nor the value of one (`-m 5`: `5` is -m's); `valued`
    names the options that take the next word."""
    found: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif is_option(arg):
            skip = arg in valued
        else:
            found.append(arg)
    return found


def option_values(args: list[str], *names: str) -> list[str]:
    """Every value given to one of the options `names` (`-c`, `--bytes`, xxd's `-len`)."""
    values: list[str] = []
    for index, arg in enumerate(args):
        if arg in names:
            if index + 1 < len(args):
                values.append(args[index + 1])
            continue
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                values.append(arg[len(name) + 1 :])
            elif len(name) == 2 and arg.startswith(name) and not arg.startswith("--"):
                values.append(arg[2:])
    return values


def word_values(args: Sequence[Word], flags: Collection[str]) -> list[Word]:
    """Every value of the options `flags` among parsed words: `-f F`, `--file=F`, `-fF`."""
    found = []
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text in flags and index + 1 < len(args):
            found.append(args[index + 1])
        elif "=" in text and text.split("=", 1)[0] in flags:
            found.append(Word.literal(text.split("=", 1)[1]))
        elif len(text) > 2 and text[:2] in flags and not text.startswith("--"):
            found.append(Word.literal(text[2:]))
    return found


def short_letters(args: list[str], valued: str) -> set[str]:
    """The one-letter options used, clusters split (`-bn1` is b and n); `valued` letters take
    a value, which ends the cluster or is the next word."""
    letters: set[str] = set()
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if not arg.startswith("-") or arg.startswith("--") or arg == "-":
            continue
        for position, letter in enumerate(arg[1:], start=1):
            letters.add(letter)
            if letter in valued:
                skip = position == len(arg) - 1  # `-n 5`: the value is the next word
                break
    return letters


def after_git_options(args: Sequence[Word]) -> list[Word]:
    """git's words from its subcommand on: `git -C sub -c x=y config k v` -> `config k v`."""
    rest = list(args)
    while rest and (rest[0].text or "").startswith("-"):
        rest = rest[2:] if rest[0].text in _GIT_VALUED else rest[1:]
    return rest
