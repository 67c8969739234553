"""Bounded text for tool output: models and workflow history get a head and a tail."""

from __future__ import annotations

MAX_OUTPUT_CHARS = 8000


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> tuple[str, bool]:
    """`text` cut to about `limit` characters, keeping its start and its end (where errors are)."""
    if len(text) <= limit:
        return text, False
    head = limit * 3 // 4
    tail = limit - head
    omitted = len(text) - head - tail
    return f"{text[:head]}\n... [{omitted} characters omitted] ...\n{text[-tail:]}", True


def decode(data: bytes) -> str:
    """Tool output as text; bytes that are not UTF-8 are replaced, never an exception."""
    return data.decode("utf-8", errors="replace")
