"""Layer 4, the package's public API: everything importable from `bookmarks` itself."""

import bookmarks


def test_the_public_names():
    assert set(bookmarks.__all__) == {
        "Bookmark",
        "BookmarkStore",
        "DuplicateBookmark",
        "normalize_url",
        "save_bookmark",
        "search",
        "tag_counts",
    }


def test_a_round_trip_through_the_public_api():
    store = bookmarks.BookmarkStore()
    bookmarks.save_bookmark(store, "https://example.com/tea", "Tea", tags=["drinks"])
    found = bookmarks.search(store, tag="drinks")
    assert [b.url for b in found] == [bookmarks.normalize_url("HTTPS://example.com/tea/")]
    assert bookmarks.tag_counts(store) == {"drinks": 1}
