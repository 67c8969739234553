"""One-line descriptions of rectangles."""

from __future__ import annotations

from geometry.shapes import area_of


def describe(width: float, height: float) -> str:
    return f"{width} x {height} rectangle, area {area_of(width, height)}"
