"""Regular expressions that backtrack catastrophically: `(a+)+$`, `(a|a)*$`, `(.*a){20}`.

A backtracking engine (Python's `re`, `grep -P`) tries every way a repeated group can split
its input before it gives up, so a group that can match the same text in more than one way
takes time exponential in the input. The pattern is read with the parser `re` itself uses
(parsing is linear; nothing is matched), and a repeat is refused when the text one round
of it can end with could also start the next round, or a part of it can be matched twice:

    (a+)+     `a+` may stop anywhere: the next round takes over
    (\\w+\\s?)+  `\\s?` is optional, so `\\w+` meets the next round's `\\w`
    (\\w+\\.)+   safe: every round ends at a `.`, which `\\w+` cannot take

Unbounded repeats in a row that can take the same characters (`.*.*.*=`, `\\s*\\s*\\s*$`) are
the same trouble spread along the pattern: before what follows them fails, every way of sharing
the text among k of them is tried, n**k. Two in a row (`\\w+\\d+`) cost n**2, as `.*x` already
does; three or more, with something after them that can fail, are refused.
"""

from __future__ import annotations

import re

# `re._parser` is private, but it is the parser `re.compile` runs, so it reads a pattern
# exactly as Python would; a pattern it rejects cannot run at all.
from re import _constants as sre
from re import _parser
from typing import Any

# A bounded repeat this long makes a polynomial of this degree: `(.*a){20}` is n**20.
MIN_ROUNDS = 10
# Unbounded repeats in a row over the same characters, past which the cost is n**3 and more.
MAX_CHAINED = 2
# Characters a class is tested against: Latin-1, enough to tell `\w` from `\s` from `.`,
# and one that stands for every character past it.
_OTHER = 256
_ALPHABET = frozenset(range(_OTHER + 1))
_CATEGORIES = {
    sre.CATEGORY_DIGIT: frozenset(range(48, 58)),
    sre.CATEGORY_SPACE: frozenset(b" \t\n\r\f\v"),
    sre.CATEGORY_WORD: frozenset(c for c in range(256) if chr(c).isalnum() or c == 95) | {_OTHER},
}
_CATEGORIES[sre.CATEGORY_NOT_DIGIT] = _ALPHABET - _CATEGORIES[sre.CATEGORY_DIGIT]
_CATEGORIES[sre.CATEGORY_NOT_SPACE] = _ALPHABET - _CATEGORIES[sre.CATEGORY_SPACE]
_CATEGORIES[sre.CATEGORY_NOT_WORD] = _ALPHABET - _CATEGORIES[sre.CATEGORY_WORD]
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT}

# (opcode, argument) as `re._parser` gives them; the argument's shape depends on the opcode.
Item = tuple[Any, Any]


def catastrophic_part(pattern: str) -> str | None:
    """Why the pattern backtracks without end, or None."""
    try:
        parsed = _parser.parse(pattern)
        return _search(list(parsed.data), parsed.state)
    except (re.error, RecursionError, OverflowError):
        return None  # a pattern re cannot read (or nest) cannot run either


def _search(items: list[Item], state: object) -> str | None:
    if _chained(items, state):
        return f"more than {MAX_CHAINED} unbounded repeats in a row can share the same text in many ways"
    for op, av in items:
        if op in _REPEATS:
            _, high, body = av
            if high >= MIN_ROUNDS and _ambiguous(list(body.data), state):
                rounds = "repeated without bound" if high == sre.MAXREPEAT else f"repeated {high} times"
                return f"a group {rounds} can match the same text in many ways"
            found = _search(list(body.data), state)
        elif op == sre.SUBPATTERN:
            found = _search(list(av[3].data), state)
        elif op == sre.BRANCH:
            found = next((f for alt in av[1] if (f := _search(list(alt.data), state))), None)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found = _search(list(av[1].data), state)
        else:  # atomic groups and possessive repeats never backtrack into themselves
            found = None
        if found:
            return found
    return None


def _chained(items: list[Item], state: object) -> bool:
    """Whether more than MAX_CHAINED unbounded repeats follow one another, each able to take
    characters the one before it takes (only parts that may match nothing between them), with
    something after them that can make the match fail and so start the sharing over."""
    flat = _flatten(items)
    chain = 0
    taken: frozenset[int] = frozenset()
    for index, item in enumerate(flat):
        if item[0] in _REPEATS and item[1][1] >= MIN_ROUNDS:
            chars = _chars(item)
            chain = chain + 1 if chars & taken else 1
            taken = chars
            if chain > MAX_CHAINED and index + 1 < len(flat):
                return True
        elif _width([item], state)[0] > 0:
            chain, taken = 0, frozenset()
    return False


def _ambiguous(body: list[Item], state: object) -> bool:
    """Whether one round of a repeat can be split, or run into the next round, in two ways."""
    items = _flatten(body)
    starts, _ = _first(items, state)
    for index, item in enumerate(items):
        if item[0] == sre.BRANCH and _alternatives_overlap(item, state):
            return True
        low, high = _width([item], state)
        if low == high or item[0] in (sre.ATOMIC_GROUP, sre.POSSESSIVE_REPEAT):
            continue  # a fixed width, or a part that never gives back what it took
        taken = _chars(item)
        for after in items[index + 1 :]:
            first, nullable = _first([after], state)
            if first & taken:
                return True
            if not nullable:
                break
        else:
            if starts & taken:  # the round may end here, and the next round start
                return True
    return False


def _flatten(items: list[Item]) -> list[Item]:
    """A group's items in line with the items around it: `((a+)b?)` is `a+ b?`."""
    flat: list[Item] = []
    for op, av in items:
        if op == sre.SUBPATTERN:
            flat.extend(_flatten(list(av[3].data)))
        else:
            flat.append((op, av))
    return flat


def _alternatives_overlap(branch: Item, state: object) -> bool:
    """`a|a`, `\\w|\\d`, two empty alternatives: both may match the same text."""
    alternatives = [_first(_flatten(list(alt.data)), state) for alt in branch[1][1]]
    for index, (first, nullable) in enumerate(alternatives):
        for other, other_nullable in alternatives[index + 1 :]:
            if first & other or (nullable and other_nullable):
                return True
    return False


def _first(items: list[Item], state: object) -> tuple[frozenset[int], bool]:
    """The characters a sequence can start with, and whether it can match nothing."""
    chars: frozenset[int] = frozenset()
    for item in items:
        op, av = item
        if op in _REPEATS or op == sre.POSSESSIVE_REPEAT:
            first, _ = _first(_flatten(list(av[2].data)), state)
        elif op == sre.BRANCH:
            starts = [_first(_flatten(list(alt.data)), state) for alt in av[1]]
            first = frozenset().union(*(s for s, _ in starts))
        elif op == sre.ATOMIC_GROUP:
            first, _ = _first(_flatten(list(av.data)), state)
        else:
            first = _chars(item)
        chars |= first
        if _width([item], state)[0] > 0:
            return chars, False
    return chars, True


def _chars(item: Item) -> frozenset[int]:
    """Every character an item can match anywhere in it."""
    op, av = item
    if op == sre.LITERAL:
        return frozenset({min(av, _OTHER)})
    if op == sre.NOT_LITERAL:
        return _ALPHABET - {av}
    if op == sre.ANY:
        return _ALPHABET - {10}
    if op == sre.IN:
        return _class(av)
    if op == sre.GROUPREF:
        return _ALPHABET
    found: frozenset[int] = frozenset()
    for nested in _nested(item):
        found |= _chars(nested)
    return found


def _nested(item: Item) -> list[Item]:
    op, av = item
    if op in _REPEATS or op == sre.POSSESSIVE_REPEAT:
        return list(av[2].data)
    if op == sre.SUBPATTERN:
        return list(av[3].data)
    if op == sre.BRANCH:
        return [nested for alt in av[1] for nested in alt.data]
    if op == sre.ATOMIC_GROUP:
        return list(av.data)
    return []


def _class(members: list[Item]) -> frozenset[int]:
    chars: set[int] = set()
    negate = False
    for op, av in members:
        if op == sre.NEGATE:
            negate = True
        elif op == sre.LITERAL:
            chars.add(min(av, _OTHER))
        elif op == sre.RANGE:
            chars.update(range(min(av[0], _OTHER), min(av[1], _OTHER) + 1))
        elif op == sre.CATEGORY:
            chars.update(_CATEGORIES.get(av, _ALPHABET))
    found = frozenset(chars) & _ALPHABET
    return _ALPHABET - found if negate else found


def _width(items: list[Item], state: object) -> tuple[int, int]:
    return _parser.SubPattern(state, items).getwidth()
