"""Layer 1, the data model: bookmarks.models.Bookmark."""

import dataclasses

import pytest

from bookmarks.models import Bookmark


def test_create_normalises_url_tags_and_title():
    bookmark = Bookmark.create("HTTPS://Example.com/tea/", "  Tea guide ", tags=["Drinks", " tea", "drinks"])
    assert bookmark.url == "https://example.com/tea"
    assert bookmark.title == "Tea guide"
    assert bookmark.tags == frozenset({"drinks", "tea"})


def test_tags_default_to_none():
    assert Bookmark.create("https://example.com", "Example").tags == frozenset()


def test_bookmarks_are_immutable():
    bookmark = Bookmark.create("https://example.com", "Example")
    with pytest.raises(dataclasses.FrozenInstanceError):
        bookmark.title = "Changed"


@pytest.mark.parametrize("title", ["", "   "])
def test_a_title_is_required(title):
    with pytest.raises(ValueError):
        Bookmark.create("https://example.com", title)


def test_tags_are_single_words():
    with pytest.raises(ValueError):
        Bookmark.create("https://example.com", "Example", tags=["two words"])


def test_an_invalid_url_is_refused():
    with pytest.raises(ValueError):
        Bookmark.create("example.com", "Example")
