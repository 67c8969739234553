"""The command line's argument types: each turns a bad value into argparse's one-line error."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable


def port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return int(text)


def non_negative_int(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a step number (0 or more): {text!r}")
    return int(text)


def identifier(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", text):
        raise argparse.ArgumentTypeError(f"letters, digits, '.', '_' and '-' only: {text!r}")
    return text


def sha256_digest(text: str) -> str:
    """A proposal's arguments digest as `pending` prints it: 64 hex digits."""
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise argparse.ArgumentTypeError(f"not a sha256 digest (64 hex digits, as `pending` shows it): {text!r}")
    return text.lower()


def _positive(convert: Callable[[str], float], kind: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {value}")
        return value

    return parse


positive_float = _positive(float, "a number")
positive_int = _positive(int, "an integer")
