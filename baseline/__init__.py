"""The baseline runtime: a conventional model-driven tool loop, no durability; and the same loop
with a journal of its calls (`StepJournal`), durable the lightweight way."""

from baseline.journal import StepJournal
from baseline.loop import BaselineLoop

__all__ = ["BaselineLoop", "StepJournal"]
