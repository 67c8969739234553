"""Shell features that evaluate text as code: prompt strings (`PS4` under `bash -x`, `${x@P}`),
the start-up file names `BASH_ENV` and `ENV` (expanded before use), functions imported from
the environment (`BASH_FUNC_f%%=() {...}`), and the names and arithmetic bash evaluates, whose
array subscripts run command substitutions (`x='a[$(cmd)]'; echo $((x))`, `[[ $x -eq 1 ]]`,
`let`, `declare -i`, `declare -n`, `printf -v`, `read`, `${!x}`).

Text that reaches one of these is analysed as the shell expands it (as a here-document: its
`$(...)`, backticks and variables count). A variable's texts are every value the script gives
it, wherever (the same flow-insensitive view the file ledger takes); a prompt expansion of a
value known only at run time is refused as dynamic code. Arithmetic on a value the script
never shows (`read n < file; echo $((n))`) is not refused: the workspace's text is the
sandbox's to contain, as its scripts are.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from agent.policy.file_writes import printf_output
from agent.policy.interpreters import Code
from agent.policy.script_text import expansion
from agent.policy.shell_model import Script
from agent.policy.syntax import parse_tree, text
from agent.policy.words import Word

_EXPANDED_SETTINGS = {"PS0", "PS1", "PS2", "PS3", "PS4", "BASH_ENV", "ENV"}
_ARITHMETIC_TESTS = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"}
_DECLARATIONS = {"declare", "typeset", "local", "export", "readonly"}
# Builtins whose operands (from the given one on) are variable names: a subscript in one is evaluated.
_NAMING = {"read": 0, "mapfile": 0, "readarray": 0, "unset": 0, "getopts": 1}
# Options whose value is a variable name.
_NAME_OPTIONS = {"read": "-a", "printf": "-v", "wait": "-p"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# (The look-behind starts a match only where a name starts: linear on a long word.)
_SUBSCRIPT_CODE = re.compile(r"(?<!\w)[A-Za-z_]\w*\[[^\]]*(\$\(|`)")


def setting_codes(assignments: tuple[tuple[str, Word], ...]) -> list[Code]:
    """Settings the shell expands again (prompts, `BASH_ENV`) or runs (`BASH_FUNC_f%%`)."""
    codes = []
    for key, value in assignments:
        if key in _EXPANDED_SETTINGS:
            origin = f"the {key} setting, which the shell expands"
            if value.values is None:
                codes.append(Code("shell", Word.unknown(value.raw), origin))
            codes += [expansion(v, origin) for v in value.values or ()]
        elif key.startswith("BASH_FUNC_"):
            origin = f"the function {key} a shell imports from the environment"
            word = Word(value.raw, tuple(f"f{v}" for v in value.values), value.pattern) if value.values else value
            codes.append(Code("shell", word, origin))
    return codes


def evaluated_codes(script: Script, source: str) -> list[Code]:
    """The texts this script hands to bash's arithmetic, its name lookup, or prompt expansion."""
    values = _values(script)
    names, texts, prompted = _tree_contexts(parse_tree(source).root_node)
    command_names, command_texts = _command_contexts(script)
    texts += command_texts
    texts += [t for name in names | command_names for t in values.get(name, ())]
    texts += _subscripted(script)
    codes = [expansion(t, "text bash evaluates as arithmetic or a name") for t in dict.fromkeys(texts) if _runs(t)]
    for name in sorted(prompted):
        known = values.get(name)
        origin = f"the prompt expansion ${{{name}@P}}"
        codes += [expansion(t, origin) for t in known] if known else [Code("shell", Word.unknown(name), origin)]
    return codes


def _subscripted(script: Script) -> list[str]:
    """Quoted text shaped like an array element with a substitution in its subscript (`'a[$(cmd)]'`):
    whatever hands it to bash's arithmetic or name lookup later (an argument, a function's `$1`,
    `read`), that is what it is there for, so it is read as code wherever it appears."""
    texts = []
    for command in script.commands:
        words = [*command.words, *(value for _, value in command.assignments)]
        words += [command.stdin.word] if command.stdin is not None and command.stdin.kind == "text" else []
        texts += [t for word in words for t in _candidates(word) if _SUBSCRIPT_CODE.search(t)]
    return texts


def _runs(text: str) -> bool:
    return "$(" in text or "`" in text


def _candidates(word: Word) -> list[str]:
    return [*(word.values or ()), *word.hints]


def _values(script: Script) -> dict[str, list[str]]:
    """Every text the script may give each variable: assignments, `read` of known input, `printf -v`."""
    values: dict[str, list[str]] = {}
    for command in script.commands:
        for name, word in command.assignments:
            values.setdefault(name, []).extend(_candidates(word))
        words = [w.text for w in command.words]
        if not words or None in words:
            continue
        if words[0] in ("read", "mapfile", "readarray") and command.stdin and command.stdin.kind == "text":
            for name in _operands(words[1:]):
                values.setdefault(name, []).extend(_candidates(command.stdin.word))
        if words[0] == "printf" and words[1:2] == ["-v"] and len(words) > 3:
            values.setdefault(words[2] or "", []).append(printf_output([w or "" for w in words[3:]]))
    return values


def _tree_contexts(root: Node) -> tuple[set[str], list[str], set[str]]:
    """Names evaluated in arithmetic, subscripts and `${!x}`; literal operands of `[[ -eq ]]`;
    names whose value is prompt-expanded (`${x@P}`)."""
    names: set[str] = set()
    texts: list[str] = []
    prompted: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "arithmetic_expansion" or (kind == "compound_statement" and _starts(node, "((")):
            names |= _identifiers(node)
        elif kind in ("c_style_for_statement", "subscript"):
            # The loop's header, not its body; the index, not the array's own name.
            parts = node.children[1:] if kind == "subscript" else node.children
            names |= {n for c in parts if c.type not in ("do_group", "compound_statement") for n in _identifiers(c)}
        elif kind == "binary_expression" and any(text(c) in _ARITHMETIC_TESTS for c in node.children):
            for operand in node.named_children:
                names |= _identifiers(operand)
                if operand.type == "raw_string":
                    texts.append(text(operand)[1:-1])
        elif kind == "expansion":
            operators = [text(c) for c in node.children if not c.is_named]
            variables = [text(c) for c in node.children if c.type == "variable_name"]
            if "!" in operators or ":" in operators:
                names |= set(variables[:1] if "!" in operators else variables[1:])
            if "@" in operators and any(text(c) == "P" for c in node.children):
                prompted |= set(variables[:1])
        stack.extend(node.children)
    return names, texts, prompted


def _starts(node: Node, token: str) -> bool:
    return bool(node.children) and node.children[0].type == token


def _identifiers(node: Node) -> set[str]:
    found = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("variable_name", "word") and _IDENTIFIER.fullmatch(text(current)):
            found.add(text(current))
        stack.extend(current.children)
    return found


def _command_contexts(script: Script) -> tuple[set[str], list[str]]:
    """Operands builtins take as names or arithmetic: `let`, `declare -i/-n`, `printf -v`, `read`,
    `test -v`, and both sides of `[[ a -eq b ]]`."""
    names: set[str] = set()
    texts: list[str] = []
    for command in script.commands:
        words = command.words
        first = words[0].text if words else None
        if first == "let":
            texts += [t for w in words[1:] for t in _candidates(w)]
            names |= {n for w in words[1:] for t in _candidates(w) for n in _IDENTIFIER.findall(t)}
        elif first in _DECLARATIONS:
            options = "".join((w.text or "")[1:] for w in words[1:] if (w.text or "").startswith("-"))
            if "i" in options or "n" in options:
                names |= {name for name, _ in command.assignments}
                names |= {w.text for w in words[1:] if w.text and _IDENTIFIER.fullmatch(w.text)}
                texts += [t for _, value in command.assignments for t in _candidates(value)]
                names |= {
                    n for _, value in command.assignments for t in _candidates(value) for n in _IDENTIFIER.findall(t)
                }
            texts += [t for w in words[1:] for t in _candidates(w) if "[" in t]
        elif first in _NAMING or first in _NAME_OPTIONS:
            operands = [w for w in words[1:] if not (w.text or "").startswith("-")] if first in _NAMING else []
            named = [words[i + 1] for i, w in enumerate(words[:-1]) if w.text == _NAME_OPTIONS.get(first)]
            texts += [t for w in [*operands[_NAMING.get(first, 0) :], *named] for t in _candidates(w)]
        elif first in ("[", "test"):
            for index, word in enumerate(words):
                if word.text == "-v" and index + 1 < len(words):
                    texts += _candidates(words[index + 1])
                if word.text in _ARITHMETIC_TESTS and command.raw.startswith("[["):
                    texts += [t for w in words[index - 1 : index + 2 : 2] for t in _candidates(w)]
    return names, texts


def _operands(words: list[str | None]) -> list[str]:
    """The variable names `read -r -d '' a b` assigns (option values left out)."""
    found = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word is not None and word.startswith("-"):
            skip = word in ("-d", "-n", "-N", "-p", "-t", "-u", "-a", "-i")
        elif word is not None:
            found.append(word)
    return found
