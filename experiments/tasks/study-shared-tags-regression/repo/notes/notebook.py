"""The notes kept, found by tag."""

from __future__ import annotations

from notes.model import Note, new_note


class Notebook:
    def __init__(self) -> None:
        self.notes: list[Note] = []

    def add(self, title: str, tags: list[str] | None = None) -> Note:
        note = new_note(title) if tags is None else new_note(title, tags)
        self.notes.append(note)
        return note

    def tagged(self, label: str) -> list[str]:
        """The titles of the notes tagged `label`, in the order they were added."""
        return [note.title for note in self.notes if label.lower() in note.tags]
