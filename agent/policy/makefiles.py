"""Makefiles (`make -f F`, the Makefile plain `make` reads, `make --eval TEXT`), read for the
shell code make runs: recipe lines, `$(shell ...)` and `!=` assignments.

Variables are expanded as make would (its built-in defaults, the makefile's own definitions,
empty when undefined), automatic variables stand for a file name, and the pure text
functions (`wildcard`, `patsubst`, ...) are replaced by their arguments. `$(eval)`, `$(call)`,
`$(value)` and `$(file)` build makefile text or write files at run time, and a `SHELL` that is
not a shell runs recipes with another program: both are refused as dynamic code.
"""

from __future__ import annotations

import posixpath
import re

from agent.policy.findings import Finding
from agent.policy.interpreters import SHELLS
from agent.policy.script_text import FileRun, Translation, shell
from agent.policy.words import Word
from contracts.actions import ReasonCode

_DEFAULTS = {"CC": "cc", "CXX": "g++", "CPP": "cc -E", "RM": "rm -f", "MAKE": "make", "SHELL": "/bin/sh"}
_DEFAULTS |= {"AR": "ar", "AS": "as", "LD": "ld", "FC": "f77", "LEX": "lex", "YACC": "yacc", "INSTALL": "install"}
_BUILDS_TEXT = {"eval", "call", "value", "file", "guile"}
_ASSIGNMENT = re.compile(r"(?:export\s+|override\s+)*([A-Za-z_.][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)")
_REFERENCE = re.compile(r"\$[({]([^$(){}]*)[)}]|\$([^({$])")
_DOLLAR = "\x01"


def read_makefile(text: str, origin: str) -> Translation:
    result = Translation()
    variables = dict(_DEFAULTS)
    recipes: list[str] = []
    for line in text.replace("\\\n", " ").split("\n"):
        if line.startswith("\t"):
            recipes.append(line[1:])
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if assignment := _ASSIGNMENT.fullmatch(stripped):
            name, operator, value = assignment.groups()
            if operator == "!=":
                result.codes.append(shell(_expand(value, variables, origin, result), f"`{name} !=` in {origin}"))
            elif operator == "+=":
                variables[name] = f"{variables.get(name, '')} {value}"
            elif operator != "?=" or name not in variables:
                variables[name] = value
        elif include := re.fullmatch(r"-?s?include\s+(.*)", stripped):
            for path in _expand(include.group(1), variables, origin, result).split():
                result.runs.append(FileRun(Word.literal(path), "make", f"`include` in {origin}"))
        else:  # a rule, maybe with its recipe after `;`; functions at the top level run as it is read
            expanded = _expand(stripped, variables, origin, result)
            if ":" in expanded and ";" in expanded.split(":", 1)[1]:
                recipes.append(stripped.split(";", 1)[1])
    program = _expand(variables.get("SHELL", "/bin/sh"), variables, origin, result).split()
    if not program or posixpath.basename(program[0]) not in SHELLS:
        message = f"{origin} runs its recipes with SHELL={' '.join(program)!r}, not a shell the verifier reads"
        result.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    for recipe in recipes:
        command = _expand(recipe.lstrip("@-+ \t"), variables, origin, result)
        result.codes.append(shell(command, f"a recipe in {origin}"))
    return result


def _expand(text: str, variables: dict[str, str], origin: str, result: Translation) -> str:
    """Make's expansion, innermost reference first; `$$` is a literal dollar for the shell."""
    text = text.replace("$$", _DOLLAR)
    for _ in range(64):
        match = _REFERENCE.search(text)
        if match is None:
            break
        text = text[: match.start()] + _reference(match, variables, origin, result) + text[match.end() :]
    return text.replace(_DOLLAR, "$")


def _reference(match: re.Match[str], variables: dict[str, str], origin: str, result: Translation) -> str:
    inside = match.group(1) if match.group(1) is not None else match.group(2)
    function, _, arguments = inside.partition(" ")
    if arguments and function == "shell":
        result.codes.append(shell(arguments, f"`$(shell ...)` in {origin}"))
        return "x"
    if arguments and function in _BUILDS_TEXT:
        message = f"`$({function} ...)` in {origin} builds make code or files at run time: write the rules out"
        result.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
        return "x"
    if arguments and re.fullmatch(r"[a-z-]+", function):
        return arguments.replace(",", " ")
    name = inside.split(":", 1)[0]
    if name[:1] in "@<^?*+|%":
        return "target"
    return variables.get(name, "").replace("$$", _DOLLAR)
