"""Areas of shapes."""

from __future__ import annotations


def area_of(width: float, height: float) -> float:
    """The area of a rectangle `width` wide and `height` high."""
    if width < 0 or height < 0:
        raise ValueError("a rectangle has no negative side")
    return width * height
