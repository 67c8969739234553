from notes.model import add_tag, new_note
from notes.notebook import Notebook


def test_new_note_strips_the_title():
    assert new_note("  Groceries ").title == "Groceries"


def test_tags_are_lower_case_and_kept_once():
    note = new_note("Dentist")
    add_tag(note, "Health")
    add_tag(note, "health")
    assert note.tags == ["health"]


def test_notes_created_without_tags_do_not_share_them():
    groceries = new_note("Groceries")
    dentist = new_note("Dentist")
    add_tag(groceries, "home")
    assert dentist.tags == []


def test_tagging_a_note_leaves_the_callers_list_alone():
    labels = ["work"]
    note = new_note("Standup", labels)
    add_tag(note, "daily")
    assert labels == ["work"]
    assert note.tags == ["work", "daily"]


def test_notebook_finds_notes_by_tag():
    book = Notebook()
    add_tag(book.add("Groceries"), "home")
    book.add("Dentist")
    book.add("Rent", ["home", "money"])
    assert book.tagged("Home") == ["Groceries", "Rent"]
    assert book.tagged("money") == ["Rent"]
