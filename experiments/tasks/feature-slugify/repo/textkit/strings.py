"""String helpers: whitespace, word counts, shortening."""

from __future__ import annotations


def collapse_whitespace(text: str) -> str:
    """Every run of whitespace becomes one space; none at either end."""
    return " ".join(text.split())


def word_count(text: str) -> int:
    return len(text.split())


def shorten(text: str, width: int, placeholder: str = "...") -> str:
    """At most `width` characters, cut at a word boundary, with `placeholder` when cut."""
    if width < len(placeholder):
        raise ValueError("width is smaller than the placeholder")
    text = collapse_whitespace(text)
    if len(text) <= width:
        return text
    words = text.split(" ")
    kept = ""
    for word in words:
        candidate = f"{kept} {word}" if kept else word
        if len(candidate) + len(placeholder) > width:
            break
        kept = candidate
    return kept + placeholder
