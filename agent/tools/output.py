"""Bounded text for tool output: models and workflow history get a head and a tail."""

from __future__ import annotations

# Every observation fits a small model's context (4,096 tokens, about 12,000 characters, in
# which the instructions, the tool list and the assignment take about 5,000): two or three full
# observations fit beside them. With its note, a cut text stays under the 2,600 characters a
# prompt keeps of a step's feedback (agent/providers/prompts.py), the runtime's status included.
MAX_OUTPUT_CHARS = 2400


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
