"""The tree-sitter-bash parser and the few node helpers the walker needs."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

_PARSER = Parser(Language(tree_sitter_bash.language()))

WORD_TYPES = {
    "word", "string", "raw_string", "ansi_c_string", "concatenation", "number", "simple_expansion",
    "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "extglob_pattern",
}  # fmt: skip


@lru_cache(maxsize=16)
def parse_tree(source: str) -> Tree:
    # Cached: a script is read by the walker and, right after, by the expansion rule
    # (agent.policy.expansions); the trees are only read, never edited.
    return _PARSER.parse(source.encode())


def text(node: Node | None) -> str:
    return node.text.decode(errors="replace") if node is not None and node.text is not None else ""


def descendants(node: Node, kind: str, accept: Callable[[Node], bool] = lambda _: True) -> list[Node]:
    found = [node] if node.type == kind and accept(node) else []
    for child in node.children:
        found.extend(descendants(child, kind, accept))
    return found


def first_child(node: Node, kind: str) -> Node | None:
    return next((c for c in node.children if c.type == kind), None)


def error_snippets(root: Node) -> list[str]:
    """Where tree-sitter gave up (ERROR) or had to invent a token (MISSING)."""
    snippets = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            shown = text(node)[:40]
            snippets.append(f"cannot parse near {shown!r}" if shown else f"missing {node.type!r}")
        stack.extend(node.children)
    return snippets or ["cannot parse"]


def test_leaves(node: Node) -> list[Node]:
    """The words inside a `[ ]`/`[[ ]]` test expression."""
    if node.type in WORD_TYPES:
        return [node]
    return [leaf for child in node.named_children if child.type != "regex" for leaf in test_leaves(child)]
