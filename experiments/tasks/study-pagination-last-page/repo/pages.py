"""Splitting the order list into numbered pages, with a footer under each page."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    number: int
    total_pages: int
    items: list[str]


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill, `per_page` to a page; an empty list still has one page."""
    if per_page < 1:
        raise ValueError(f"per_page must be at least 1, not {per_page}")
    return max(1, total // per_page)


def get_page(items: list[str], number: int, per_page: int = 10) -> Page:
    """Page `number` of `items`, counting pages from 1."""
    pages = page_count(len(items), per_page)
    if not 1 <= number <= pages:
        raise ValueError(f"page {number} does not exist: there are {pages}")
    start = (number - 1) * per_page
    return Page(number=number, total_pages=pages, items=items[start : start + per_page])


def page_footer(page: Page) -> str:
    """E.g. "< prev | page 2 of 3 | next >"; a link is left out where there is no page to go to."""
    parts = ["< prev"] if page.number > 1 else []
    parts.append(f"page {page.number} of {page.total_pages}")
    if page.number < page.total_pages:
        parts.append("next >")
    return " | ".join(parts)
