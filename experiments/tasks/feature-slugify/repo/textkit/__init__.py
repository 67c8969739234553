"""Text helpers for titles and labels."""

from textkit.strings import collapse_whitespace, shorten, word_count

__all__ = ["collapse_whitespace", "shorten", "word_count"]
