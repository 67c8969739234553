"""A small bookmark manager."""

from bookmarks.urls import normalize_url

__all__ = ["normalize_url"]
