"""The top of a report: what produced its figures (experiments.provenance), or that the result
predates the record of it, and a warning when the code had changes that were not committed."""

from __future__ import annotations

from collections.abc import Sequence

from experiments.provenance import Provenance
from experiments.resume import Part

# A dirty tree's files named in the report; the rest counted.
_SHOWN_FILES = 10


def provenance_lines(recorded: Provenance | None, parts: Sequence[Part] = ()) -> list[str]:
    """Markdown paragraphs for the report's top."""
    if recorded is None:
        return [
            "**Provenance not recorded**: this result predates the record of what produced it "
            "(commit, uncommitted changes, versions, machine, model file, config hash); read its "
            "date against the project's history before comparing it with a later one."
        ]
    said = []
    if recorded.dirty:
        shown = ", ".join(f"`{name}`" for name in recorded.uncommitted[:_SHOWN_FILES])
        more = len(recorded.uncommitted) - _SHOWN_FILES
        said.append(
            f"**Uncommitted changes**: the code that ran was commit `{recorded.commit[:12]}` with "
            f"{len(recorded.uncommitted)} changed files: {shown}{f' and {more} more' if more > 0 else ''}. "
            "It cannot be checked out again as it was."
        )
    model = (
        f"; model `{recorded.model.name}` (sha256 `{recorded.model.sha256[:16]}`, llama-cpp-python "
        f"{recorded.model.llama_cpp_python})"
        if recorded.model is not None
        else ""
    )
    said.append(
        f"Produced by commit `{recorded.commit[:12]}`{' (with uncommitted changes)' if recorded.dirty else ''}; "
        f"Python {recorded.python}, temporalio {recorded.temporalio}, {recorded.temporal_cli}; "
        f"{recorded.cpu}, {recorded.cores} cores{model}; config sha256 `{recorded.config_sha256[:16]}`."
    )
    if len(parts) > 1:
        said.append(_parts_line(parts))
    return said


def _parts_line(parts: Sequence[Part]) -> str:
    """An experiment resumed: when each part began, and any whose code was not the first's."""
    told = []
    for number, part in enumerate(parts[1:], start=2):
        line = f"part {number} from {part.started:%Y-%m-%d %H:%M} UTC, after {part.trials_before} finished trials"
        if part.code_changed:
            dirty = ", uncommitted changes" if part.provenance.dirty else ""
            line += f" **on other code** (commit `{part.provenance.commit[:12]}`{dirty}; --allow-commit-change)"
        told.append(line)
    return f"**Resumed**: run in {len(parts)} parts; " + "; ".join(told) + "."


def provenance_line(recorded: Provenance | None) -> str:
    """One line for a terminal's summary."""
    if recorded is None:
        return "Provenance: not recorded (the result predates it: its commit, versions, machine and model are unknown)"
    dirty = f", with {len(recorded.uncommitted)} uncommitted changed files" if recorded.dirty else ""
    return f"Produced by commit {recorded.commit[:12]}{dirty}, on {recorded.cpu} ({recorded.cores} cores)"
