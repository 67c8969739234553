"""How a shell loop ends: whether its body can leave it, and how many rounds a `for` runs.

`while true; do ...; done` is endless only when nothing in its body leaves it: a `break`
of this loop, `exit` or `return`. A `for` over `$(seq 1000000)` or `{1..1000000}` ends,
but only after a million rounds, each one at least a process or a file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from tree_sitter import Node

from agent.policy.shell_model import SimpleCommand
from agent.policy.sizes import brace_words, seq_count, seq_operands
from agent.policy.syntax import text

_LOOPS = {"while_statement", "for_statement", "c_style_for_statement"}
# An `exit` or `break` inside these leaves only them: they run in a subshell, or later.
_OWN_SCOPE = {"subshell", "command_substitution", "process_substitution", "function_definition", "pipeline"}
_START = re.compile(r"(\w+)\s*=\s*(-?\d+)")
_BOUND = re.compile(r"(\w+)\s*(<=|<|>=|>)\s*(-?\d+)")
_STEP = re.compile(r"(\w+)\s*(\+\+|--)|(\+\+|--)\s*(\w+)|(\w+)\s*([+-])=\s*(\d+)")


def leaves(body: Node, levels: int = 1) -> bool:
    """Whether a command in `body` leaves the loop `levels` loops out from it."""
    for child in body.children:
        if child.type in _OWN_SCOPE:
            continue
        if child.type == "command" and _leaves_by_itself(child, levels):
            return True
        if leaves(child, levels + 1 if child.type in _LOOPS else levels):
            return True
    return False


def for_iterations(values: Sequence[Node], emitted: Sequence[SimpleCommand]) -> float | None:
    """At least how many rounds `for x in VALUES` runs; None when no value's size is known.

    `emitted` are the commands read from the values: `$(seq 1000000)` is counted from the
    words of that `seq` (a variable the loop mentions is unknown there, as the walker
    forgets what a loop may change).
    """
    counts = [_value_count(node, emitted) for node in values]
    known = [count for count in counts if count is not None]
    return sum(known) if known else None


def c_style_iterations(initializer: str, condition: str, update: str) -> float | None:
    """Rounds of `for ((i=START; i<BOUND; i+=STEP))`, for that plain counting shape only."""
    start, bound, step = _START.fullmatch(initializer), _BOUND.fullmatch(condition), _STEP.fullmatch(update)
    if start is None or bound is None or step is None:
        return None
    variable, first = start.group(1), float(start.group(2))
    stepped = step.group(1) or step.group(4) or step.group(5)
    if bound.group(1) != variable or stepped != variable:
        return None
    operator, limit = bound.group(2), float(bound.group(3))
    sign = step.group(2) or step.group(3) or step.group(6)
    amount = float(step.group(7) or 1) * (1 if sign.startswith("+") else -1)
    if amount == 0 or (amount > 0) != operator.startswith("<"):
        return math.inf if _holds(first, operator, limit) else 0.0
    inclusive = 1 if operator in ("<=", ">=") else 0
    return max(0.0, math.ceil((limit - first + inclusive * (1 if amount > 0 else -1)) / amount))


def _holds(value: float, operator: str, limit: float) -> bool:
    return {"<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit}[operator]


def _leaves_by_itself(command: Node, levels: int) -> bool:
    name = text(command.child_by_field_name("name"))
    if name in ("exit", "return"):
        return True
    if name != "break":
        return False
    arguments = [text(a) for a in command.children_by_field_name("argument")]
    count = float(arguments[0]) if arguments and arguments[0].isdigit() else 1.0
    return count >= levels


def _value_count(node: Node, emitted: Sequence[SimpleCommand]) -> float | None:
    if node.type in ("brace_expression", "concatenation"):
        return float(brace_words(text(node)))
    if node.type == "word" and any(mark in text(node) for mark in "*?["):
        return None  # a glob: as many rounds as files
    if node.type in ("word", "string", "raw_string", "number"):
        return 1.0
    inner = node.named_children
    if node.type != "command_substitution" or len(inner) != 1 or inner[0].type != "command":
        return None
    command = next((c for c in emitted if c.raw == text(inner[0])), None)
    if command is None or not command.words or command.words[0].text != "seq":
        return None
    args = [word.text for word in command.words[1:]]
    if any(arg is None for arg in args):
        return None
    return seq_count(seq_operands([arg for arg in args if arg is not None]))
