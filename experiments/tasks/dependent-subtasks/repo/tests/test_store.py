"""Layer 2, storage: bookmarks.store.BookmarkStore keeps Bookmark models by URL."""

import pytest

from bookmarks.models import Bookmark
from bookmarks.store import BookmarkStore, DuplicateBookmark


def make(url, title="Page", tags=()):
    return Bookmark.create(url, title, tags=tags)


def test_add_then_get_by_any_spelling_of_the_url():
    store = BookmarkStore()
    tea = make("https://example.com/tea", "Tea")
    store.add(tea)
    assert store.get("HTTPS://EXAMPLE.com/tea/") == tea
    assert store.get("https://example.com/coffee") is None
    assert len(store) == 1


def test_the_same_url_twice_is_a_duplicate():
    store = BookmarkStore()
    store.add(make("https://example.com/tea"))
    with pytest.raises(DuplicateBookmark):
        store.add(make("https://example.com/tea/", "Again"))
    assert len(store) == 1


def test_all_in_insertion_order_and_by_tag():
    store = BookmarkStore()
    first = make("https://a.example", tags=["x"])
    second = make("https://b.example", tags=["y"])
    third = make("https://c.example", tags=["x", "y"])
    for bookmark in (first, second, third):
        store.add(bookmark)
    assert store.all() == [first, second, third]
    assert store.with_tag("X") == [first, third]
    assert store.with_tag("z") == []


def test_replace_and_remove():
    store = BookmarkStore()
    store.add(make("https://example.com", "Old"))
    store.replace(make("https://example.com", "New"))
    assert store.get("https://example.com").title == "New"
    assert store.remove("https://example.com/") is True
    assert store.remove("https://example.com/") is False
    assert len(store) == 0


def test_replacing_an_unknown_bookmark_is_refused():
    with pytest.raises(KeyError):
        BookmarkStore().replace(make("https://example.com"))
