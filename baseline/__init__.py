"""The baseline runtime: a conventional model-driven tool loop, no durability."""

from baseline.loop import BaselineLoop

__all__ = ["BaselineLoop"]
