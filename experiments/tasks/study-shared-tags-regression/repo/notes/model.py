"""A note and the ways it changes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Note:
    title: str
    tags: list[str]


def new_note(title: str, tags: list[str] = []) -> Note:
    """A note titled `title` (spaces around it dropped) with `tags`."""
    return Note(title=title.strip(), tags=tags)


def add_tag(note: Note, label: str) -> None:
    """Tag `note` with `label` (lower-cased), once."""
    label = label.lower()
    if label not in note.tags:
        note.tags.append(label)
