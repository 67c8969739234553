"""Resource exhaustion in inline Python: huge numbers and allocations, endless loops, threads
started in loops without bound, regexes that backtrack without end.

Sizes come from `python_sizes` (estimated, never computed); names are resolved through the
imports (`resolve` gives `re.match` for `from re import match; match(...)`).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator

from agent.policy.findings import Finding
from agent.policy.python_sizes import Number, Sequence, Sizer
from agent.policy.regex_risk import catastrophic_part
from agent.policy.sizes import GIB, shown_bytes
from contracts.actions import ReasonCode

Resolve = Callable[[ast.AST], str | None]
Problem = tuple[str, str]  # (kind of harm, what the code does)

# An integer past this many bits (about three million digits) takes seconds to compute.
MOST_BITS = 10**7
# Memory a value may take, and rounds a loop may run (about a minute of Python).
MOST_BYTES = GIB
MOST_ITERATIONS = 10**9
# Threads started in one loop before it is a bomb.
MOST_THREADS = 1000

_BUILTINS = {"range", "list", "tuple", "set", "sorted", "sum", "max", "min", "any", "all", "bytearray", "bytes",
             "exit", "quit"}  # fmt: skip
_REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
_THREADS = {"threading.Thread", "threading.Timer", "_thread.start_new_thread", "_thread.start_new"}
_EXITS = {"sys.exit", "os._exit", "os.abort", "exit", "quit"}
_ENDLESS_ITERATORS = {"itertools.count", "itertools.cycle"}
# Calls that make a value of the size of their argument, in bytes per unit.
_ALLOCATORS = {
    "bytearray": 1, "bytes": 1, "os.urandom": 1, "random.randbytes": 1, "secrets.token_bytes": 1,
    "secrets.token_hex": 2, "numpy.zeros": 8, "numpy.ones": 8, "numpy.empty": 8, "numpy.full": 8,
}  # fmt: skip
# Calls that make a file of the size of their last argument; `f.truncate(n)` too.
_FILE_SIZERS = {"os.truncate", "os.ftruncate", "os.posix_fallocate"}
_PADDERS = {"ljust", "rjust", "center", "zfill"}
_COLLECTORS = {"list", "tuple", "set", "sorted"}
_CONSUMERS = {"sum", "max", "min", "any", "all"}


def python_resource_findings(tree: ast.AST, resolve: Resolve, origin: str) -> list[Finding]:
    found: dict[str, str] = {}  # one finding of each kind is enough to act on
    try:
        for kind, message in _Checker(tree, resolve).problems():
            found.setdefault(kind, message)
    except RecursionError:
        # Only names whose values name later names, and so on, get here; the file tools
        # call this too (agent.policy.runs_later), so it must answer, not raise.
        message = "nests names too deeply to size: simplify it"
        return [Finding(ReasonCode.UNANALYZABLE_COMMAND, f"the Python code of {origin} {message}")]
    prefix = f"the Python code of {origin} "
    return [Finding(ReasonCode.RESOURCE_EXHAUSTION, prefix + message) for message in found.values()]


class _Checker:
    def __init__(self, tree: ast.AST, resolve: Resolve) -> None:
        self.tree = tree
        self.resolve = resolve
        self.sizer = Sizer(tree)

    def problems(self) -> Iterator[Problem]:
        for node in _post_order(self.tree):
            if isinstance(node, ast.UnaryOp):
                self.sizer.size(node)  # sized now, so that its parent need not recurse
            elif isinstance(node, ast.BinOp):
                yield from self.binary(node)
            elif isinstance(node, ast.Call):
                yield from self.call(node)
            elif isinstance(node, ast.While | ast.For):
                yield from self.loop(node)
            elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
                yield from self.comprehension(node)

    def binary(self, node: ast.BinOp) -> Iterator[Problem]:
        size = self.sizer.size(node)
        if isinstance(size, Number) and size.log2 > MOST_BITS:
            yield "number", f"computes a number of about {_digits(size)} digits (`{_shown(node)}`): use smaller numbers"
        elif isinstance(size, Sequence) and size.bytes > MOST_BYTES:
            yield "memory", f"builds {shown_bytes(size.bytes)} in memory (`{_shown(node)}`): keep data under 1 GiB"

    def call(self, node: ast.Call) -> Iterator[Problem]:
        name = self.name(node.func)
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        first = node.args[0] if node.args else None
        if name in _ALLOCATORS and first is not None:
            amount = self.amount(first)
            if amount is not None and amount * _ALLOCATORS[name] > MOST_BYTES:
                made = shown_bytes(amount * _ALLOCATORS[name])
                yield "memory", f"allocates {made} (`{_shown(node)}`): keep data under 1 GiB"
        if (name in _FILE_SIZERS or method == "truncate") and node.args:
            amount = self.sizer.number(node.args[-1])
            if amount is not None and amount > MOST_BYTES:
                yield "file", f"makes a file of {shown_bytes(amount)} (`{_shown(node)}`): keep files under 1 GiB"
        if method in _PADDERS and first is not None:
            amount = self.sizer.number(first)
            if amount is not None and amount > MOST_BYTES:
                yield "memory", f"builds {shown_bytes(amount)} in memory (`{_shown(node)}`): keep data under 1 GiB"
        if name in _COLLECTORS | _CONSUMERS and first is not None:
            rounds = self.rounds(first)
            if rounds is not None and (rounds > MOST_ITERATIONS or (name in _COLLECTORS and rounds * 8 > MOST_BYTES)):
                yield "rounds", f"goes through {rounds:,.0f} items (`{_shown(node)}`): use fewer"
        if name is not None and name.split(".")[0] in ("re", "regex") and name.split(".")[-1] in _REGEX_FUNCTIONS:
            yield from self.regex(node)
        if name == "concurrent.futures.ThreadPoolExecutor":
            workers = next((k.value for k in node.keywords if k.arg == "max_workers"), first)
            count = self.sizer.number(workers) if workers is not None else None
            if count is not None and count > MOST_THREADS:
                yield "threads", f"starts a pool of {count:,.0f} threads: use a few"

    def loop(self, node: ast.While | ast.For) -> Iterator[Problem]:
        if isinstance(node, ast.While):
            rounds = math.inf if _always_true(node.test) else None
            many = True  # how often a `while` runs is only known when it has run
        else:
            rounds = self.rounds(node.iter)
            many = rounds is not None and rounds > MOST_THREADS
        if rounds is not None and rounds > MOST_ITERATIONS and not self.leaves(node.body):
            if isinstance(node, ast.While):
                what, length = f"`while {_shown(node.test)}:`", "never ends"
            else:
                what = f"over `{_shown(node.iter)}`"
                length = "never ends" if math.isinf(rounds) else f"runs {rounds:,.0f} rounds"
            yield "loop", f"has a loop {what} that {length}: give it a condition or a `break`"
        if many:
            yield from self.threads(node.body)

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Iterator[Problem]:
        rounds = [self.rounds(generator.iter) for generator in node.generators]
        known = [r for r in rounds if r is not None]
        if any(r > MOST_ITERATIONS for r in known):
            length = "without end" if math.isinf(max(known)) else f"{max(known):,.0f} times"
            yield "rounds", f"iterates {length} (`{_shown(node)}`): iterate less"
        if any(r > MOST_THREADS for r in known):
            yield from self.threads(node)

    def threads(self, where: list[ast.stmt] | ast.AST) -> Iterator[Problem]:
        nodes = where if isinstance(where, list) else [where]
        for call in (n for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)):
            if self.name(call.func) in _THREADS:
                yield "threads", f"starts a thread (`{_shown(call.func)}`) in every round of a long loop: start a few"
                return

    def regex(self, node: ast.Call) -> Iterator[Problem]:
        pattern = next((k.value for k in node.keywords if k.arg == "pattern"), node.args[0] if node.args else None)
        if isinstance(pattern, ast.Name):
            pattern = self.sizer.value_of(pattern.id)
        if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str | bytes):
            text = pattern.value if isinstance(pattern.value, str) else pattern.value.decode("latin-1")
            reason = catastrophic_part(text)
            if reason is not None:
                message = f"uses the pattern {text!r}, which backtracks without end ({reason}): avoid nested repeats"
                yield "regex", message

    def rounds(self, node: ast.AST) -> float | None:
        """How many items `range(...)` gives, or inf for an endless iterator; None if unknown."""
        if not isinstance(node, ast.Call):
            return None
        name = self.name(node.func)
        if name in _ENDLESS_ITERATORS or (name == "itertools.repeat" and len(node.args) == 1):
            return math.inf
        bounds = [self.sizer.number(arg) for arg in node.args]
        numbers = [bound for bound in bounds if bound is not None]
        if name != "range" or not 1 <= len(numbers) == len(bounds) <= 3:
            return None
        start, stop = (0.0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
        step = numbers[2] if len(numbers) == 3 else 1.0
        return max(0.0, (stop - start) / step) if step else None

    def amount(self, node: ast.AST) -> float | None:
        """A count, or a shape (`np.zeros((10**5, 10**5))`): the number of items."""
        if not isinstance(node, ast.Tuple | ast.List):
            return self.sizer.number(node)
        counts = [self.sizer.number(element) for element in node.elts]
        known = [count for count in counts if count is not None]
        return math.prod(known) if len(known) == len(counts) else None

    def leaves(self, body: list[ast.stmt]) -> bool:
        """A `break` of this loop, a `return`, a `raise`, or a call to `sys.exit()` in the body."""
        for node in (n for statement in body for n in _own_nodes(statement)):
            if isinstance(node, ast.Break | ast.Return | ast.Raise):
                return True
            if isinstance(node, ast.Call) and self.name(node.func) in _EXITS:
                return True
        return False

    def name(self, node: ast.AST) -> str | None:
        resolved = self.resolve(node)
        if resolved is None and isinstance(node, ast.Name) and node.id in _BUILTINS:
            return node.id
        return resolved


def _post_order(tree: ast.AST) -> Iterator[ast.AST]:
    """Children before parents, earlier statements before later ones: sizing a node then
    finds what it depends on already sized, so it never recurses deep (`x = 1 + ... + 1`,
    `b = a + 1; c = b + 1; ...`)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            yield node
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(list(ast.iter_child_nodes(node))))


def _own_nodes(statement: ast.AST) -> Iterator[ast.AST]:
    """The nodes that act on the loop around them: a nested function's `return` does not,
    nor a nested loop's `break` (its exits still do)."""
    stack: list[tuple[ast.AST, bool]] = [(statement, False)]
    while stack:
        node, in_inner_loop = stack.pop()
        if not (in_inner_loop and isinstance(node, ast.Break)):
            yield node
        inner = in_inner_loop or isinstance(node, ast.For | ast.While | ast.AsyncFor)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                stack.append((child, inner))


def _always_true(test: ast.expr) -> bool:
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Constant):
        return not test.operand.value
    return False


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _digits(size: Number) -> str:
    digits = size.log2 * math.log10(2)
    if math.isinf(digits):
        return "countless"
    return f"10^{math.log10(digits):.0f}" if digits > 1e12 else f"{digits:,.0f}"
