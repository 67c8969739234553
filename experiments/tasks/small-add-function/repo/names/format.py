"""Formatting people's names."""

from __future__ import annotations


def full_name(first: str, last: str) -> str:
    """First and last name joined by one space: full_name("Ada", "Lovelace") == "Ada Lovelace"."""
    return f"{first} {last}"
