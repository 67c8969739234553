"""The footer shown under each page of the order list."""

from __future__ import annotations

from shoplist.pages import Page


def page_footer(page: Page[object]) -> str:
    """E.g. "< prev | page 2 of 3 | next >"; a link is left out where there is no page to go to."""
    parts = []
    if page.has_previous:
        parts.append("< prev")
    parts.append(f"page {page.number} of {page.total_pages}")
    if page.has_next:
        parts.append("next >")
    return " | ".join(parts)
