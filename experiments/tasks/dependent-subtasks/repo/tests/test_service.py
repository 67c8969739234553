"""Layer 3, the service: bookmarks.service, on top of the model and the store."""

from bookmarks.models import Bookmark
from bookmarks.service import save_bookmark, search, tag_counts
from bookmarks.store import BookmarkStore


def test_save_creates_a_bookmark():
    store = BookmarkStore()
    saved = save_bookmark(store, "https://example.com/tea/", "Tea", tags=["Drinks"])
    assert saved == Bookmark.create("https://example.com/tea", "Tea", tags=["drinks"])
    assert store.all() == [saved]


def test_saving_a_known_url_again_merges_tags_and_keeps_one_bookmark():
    store = BookmarkStore()
    save_bookmark(store, "https://example.com/tea", "Tea", tags=["drinks"])
    merged = save_bookmark(store, "HTTPS://example.com/tea/", "Tea, updated", tags=["tea"])
    assert merged.title == "Tea, updated"
    assert merged.tags == frozenset({"drinks", "tea"})
    assert store.all() == [merged]


def test_search_by_tag_and_text():
    store = BookmarkStore()
    tea = save_bookmark(store, "https://example.com/tea", "Green tea", tags=["drinks"])
    coffee = save_bookmark(store, "https://example.com/coffee", "Coffee", tags=["drinks"])
    teapot = save_bookmark(store, "https://shop.example/teapot", "Teapots", tags=["shop"])
    assert search(store, tag="drinks") == [tea, coffee]
    assert search(store, text="TEA") == [tea, teapot]
    assert search(store, tag="drinks", text="tea") == [tea]
    assert search(store) == [tea, coffee, teapot]


def test_tag_counts_most_used_first_then_by_name():
    store = BookmarkStore()
    save_bookmark(store, "https://a.example", "A", tags=["b", "a"])
    save_bookmark(store, "https://b.example", "B", tags=["c", "b"])
    save_bookmark(store, "https://c.example", "C", tags=["a", "b"])
    assert list(tag_counts(store).items()) == [("b", 3), ("a", 2), ("c", 1)]
