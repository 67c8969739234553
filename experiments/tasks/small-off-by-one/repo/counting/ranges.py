"""Counting from 1."""

from __future__ import annotations


def numbers_up_to(n: int) -> list[int]:
    """The whole numbers from 1 to n, both included: numbers_up_to(3) == [1, 2, 3]."""
    return list(range(1, n))


def total_up_to(n: int) -> int:
    """The sum 1 + 2 + ... + n."""
    return sum(numbers_up_to(n))
