"""How big the values of constant Python expressions are, without computing them.

`10**10**10` has ten billion digits: computing it to check it would be the attack. Numbers
are carried as the base-2 logarithm of their size, sequences (`'a' * 10**10`, `[0] * n`)
as a length and the bytes of one item, so every operation is a float addition or product.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

# What one item of a list or tuple holds at the least: a pointer.
_POINTER_BYTES = 8


@dataclass(frozen=True)
class Number:
    # log2 of the absolute value: 1000 bits for 2**1000; -inf for zero.
    log2: float
    negative: bool = False

    @property
    def value(self) -> float:
        magnitude = 2.0**self.log2 if self.log2 < 1000 else math.inf
        return -magnitude if self.negative else magnitude

    @property
    def bytes(self) -> float:
        return max(self.log2, 0.0) / 8


@dataclass(frozen=True)
class Sequence:
    length: float
    item_bytes: int

    @property
    def bytes(self) -> float:
        return self.length * self.item_bytes


Size = Number | Sequence


class Sizer:
    """Sizes of expressions; a name is followed to its value when it is assigned only once."""

    def __init__(self, tree: ast.AST) -> None:
        values: dict[str, ast.expr] = {}
        # Every binding counts (`n *= 2`, `for n in ...`, a parameter n): a name bound twice
        # has no one value.
        bindings: dict[str, int] = {}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)) or isinstance(node, ast.arg):
                name = node.id if isinstance(node, ast.Name) else node.arg
                bindings[name] = bindings.get(name, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values[node.targets[0].id] = node.value
        self._values = {name: value for name, value in values.items() if bindings.get(name) == 1}
        self._following: set[str] = set()
        # Sizes already worked out, by node: `b = a*a; c = b*b; ...` must not double at every name.
        self._known: dict[int, Size | None] = {}

    def size(self, node: ast.AST) -> Size | None:
        key = id(node)
        if key not in self._known:
            self._known[key] = self._size(node)
        return self._known[key]

    def _size(self, node: ast.AST) -> Size | None:
        if isinstance(node, ast.Constant):
            return _constant(node.value)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return Sequence(len(node.elts), _POINTER_BYTES)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.size(node.operand)
            if isinstance(operand, Number) and isinstance(node.op, ast.USub):
                return Number(operand.log2, not operand.negative)
            return operand
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Name) and node.id in self._values and node.id not in self._following:
            self._following.add(node.id)  # `n = n * 2` must not loop
            try:
                return self.size(self._values[node.id])
            finally:
                self._following.discard(node.id)
        return None

    def value_of(self, name: str) -> ast.expr | None:
        """The one expression assigned to a name, if it is assigned once."""
        return self._values.get(name)

    def number(self, node: ast.AST) -> float | None:
        """The value of an expression that is a number (possibly inf), else None."""
        size = self.size(node)
        return size.value if isinstance(size, Number) else None

    def _binary(self, node: ast.BinOp) -> Size | None:
        left, right = self.size(node.left), self.size(node.right)
        if left is None or right is None:
            return None
        op = node.op
        if isinstance(left, Number) and isinstance(right, Number):
            return _arithmetic(op, left, right, self.number(node.right))
        if isinstance(op, ast.Mult):  # `'a' * n`, `n * [0]`
            sequence, count = (left, right) if isinstance(left, Sequence) else (right, left)
            if isinstance(sequence, Sequence) and isinstance(count, Number):
                return Sequence(sequence.length * count.value, sequence.item_bytes)
        if isinstance(op, ast.Add) and isinstance(left, Sequence) and isinstance(right, Sequence):
            return Sequence(left.length + right.length, max(left.item_bytes, right.item_bytes))
        return None


def _constant(value: object) -> Size | None:
    if isinstance(value, str | bytes):
        return Sequence(len(value), 1)
    if isinstance(value, bool | int | float) and not (isinstance(value, float) and math.isnan(value)):
        magnitude = abs(float(value)) if not isinstance(value, int) else abs(value)
        return Number(math.log2(magnitude) if magnitude else -math.inf, value < 0)
    return None


def _arithmetic(op: ast.operator, left: Number, right: Number, exponent: float | None) -> Number | None:
    if isinstance(op, ast.Pow):
        if exponent is None or left.log2 == -math.inf:
            return None
        if left.log2 == 0:  # 1 ** anything, (-1) ** anything
            return Number(0.0)
        return Number(_product(left.log2, exponent), left.negative)
    if isinstance(op, ast.Mult):
        return Number(left.log2 + right.log2, left.negative != right.negative)
    if isinstance(op, ast.LShift):
        return Number(left.log2 + (exponent if exponent is not None else math.inf))
    if isinstance(op, ast.Add | ast.Sub):
        if math.isfinite(left.value) and math.isfinite(right.value):  # small enough to add
            total = left.value + right.value if isinstance(op, ast.Add) else left.value - right.value
            return Number(math.log2(abs(total)) if total else -math.inf, total < 0)
        larger, smaller = (left, right) if left.log2 >= right.log2 else (right, left)
        return Number(larger.log2 + math.log2(1 + 2.0 ** (smaller.log2 - larger.log2)), larger.negative)
    if isinstance(op, ast.FloorDiv | ast.Div):
        return Number(left.log2 - right.log2)
    return None


def _product(log2: float, exponent: float) -> float:
    """log2(a ** b) = b * log2(a), without the overflow of inf * 0 or of a huge b."""
    if math.isinf(exponent):
        return math.copysign(math.inf, exponent * log2)
    return exponent * log2
