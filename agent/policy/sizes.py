"""Numbers written in command arguments, as the programs read them: byte sizes (`bs=1M`,
`-s 100G`), durations (`sleep 1h`), how many lines `seq` prints, how many words a brace
expansion (`{1..1000000}`) makes.

Every function returns None when the text is not such a number (a variable, a typo): the
rules only refuse what they can measure.
"""

from __future__ import annotations

import math
import re

from agent.policy.options import operands as without_options

GIB = 1024**3
# Binary multiples (`K`, `KiB`) and decimal ones (`KB`), as GNU coreutils reads them.
_POWERS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6, "Z": 7, "Y": 8}
_SIZE = re.compile(r"(\d+(?:\.\d*)?)([KMGTPEZY]?)(iB|B)?", re.IGNORECASE)
# dd's own units: `c` bytes, `w` two-byte words, `b` 512-byte blocks.
_DD_UNITS = {"c": 1, "w": 2, "b": 512}
_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?|[+-]?inf(inity)?|0x[0-9a-f]+", re.IGNORECASE)
_BRACE_RANGE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


def byte_size(text: str) -> float | None:
    """`100G` (GiB), `10MB` (decimal), `1MiB`, `2x1M` (dd's product), `512b` (dd's blocks)."""
    if "x" in text:
        factors = [byte_size(part) for part in text.split("x")]
        known = [factor for factor in factors if factor is not None]
        return math.prod(known) if len(known) == len(factors) else None
    if text[-1:] in _DD_UNITS and text[:-1].isdigit():
        return float(text[:-1]) * _DD_UNITS[text[-1]]
    match = _SIZE.fullmatch(text)
    if match is None:
        return None
    number, prefix, suffix = match.groups()
    base = 1000 if suffix and suffix.upper() == "B" and prefix else 1024
    return float(number) * base ** _POWERS[prefix.upper()]


def shown_bytes(size: float) -> str:
    """`100 GiB`, for messages."""
    if math.isinf(size):
        return "an amount without bound"
    for unit, scale in (("TiB", 1024**4), ("GiB", GIB)):
        if size >= scale:
            return f"{size / scale:,.0f} {unit}"
    return f"{size:,.0f} bytes"


def duration_seconds(words: list[str]) -> float | None:
    """What `sleep` waits: the sum of its arguments (`sleep 1h 30m`), `infinity` included."""
    total = 0.0
    for word in words:
        match = re.fullmatch(r"(\d+(?:\.\d*)?(?:e\d+)?|\.\d+|inf|infinity)([smhd]?)", word, re.IGNORECASE)
        if match is None:
            return None
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]
    return total


def seq_count(operands: list[str]) -> float | None:
    """How many numbers `seq [FIRST [INCREMENT]] LAST` prints (inf for an unbounded one)."""
    numbers = [_number(text) for text in operands]
    values = [number for number in numbers if number is not None]
    if not 1 <= len(values) == len(numbers) <= 3:
        return None
    last = values[-1]
    first = values[0] if len(values) > 1 else 1.0
    step = values[1] if len(values) == 3 else 1.0
    if step == 0 or math.isnan(first + step + last):
        return None  # seq refuses a zero increment
    span = (last - first) / step
    if math.isinf(span):
        return math.inf
    return max(0.0, math.floor(span) + 1)


def seq_operands(args: list[str]) -> list[str]:
    """`seq`'s numbers, without its options (`-w`, `-s SEP`, `-f FMT`); `-5` is a number."""
    valued = ("-s", "-f", "--separator", "--format")
    return without_options(args, valued, is_option=lambda arg: arg.startswith("-") and _number(arg) is None)


def brace_words(raw: str) -> float:
    """How many words the brace expansions of an unquoted shell word make (1 without any).

    `f{1..1000}` makes 1000 and `{a,b}{1..3}` six; quoted braces expand to nothing.
    """
    count = 1.0
    for group in _brace_groups(raw):
        range_match = _BRACE_RANGE.fullmatch(group)
        if range_match is not None:
            count *= _range_size(*range_match.groups())
        elif "," in group:
            count *= group.count(",") + 1
    return count


def _number(text: str) -> float | None:
    if _NUMBER.fullmatch(text) is None:
        return None
    return float(int(text, 16)) if text.lower().startswith("0x") else float(text)


def _range_size(start: str, end: str, step: str | None) -> float:
    if start.lstrip("-").isdigit() != end.lstrip("-").isdigit():
        return 1.0  # `{1..z}` is not a range: the shell leaves it as it is
    # Floats, not ints: a range may be written with more digits than int() accepts.
    low, high = (float(start), float(end)) if start.lstrip("-").isdigit() else (ord(start), ord(end))
    span = abs(high - low) / max(1.0, abs(float(step or 1)))
    return math.inf if math.isinf(span) else math.floor(span) + 1.0


def _brace_groups(raw: str) -> list[str]:
    """The innermost `{...}` groups outside quotes; nested groups are counted from the inside."""
    groups: list[str] = []
    opened: list[int] = []
    quote = ""
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            opened.append(-1 if raw[index - 1 : index] == "$" else index)  # `${x}` is no expansion
        elif char == "}" and opened:
            start = opened.pop()
            if start >= 0:
                groups.append(raw[start + 1 : index])
        index += 1
    return groups
