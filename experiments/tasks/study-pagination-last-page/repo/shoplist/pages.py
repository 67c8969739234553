"""Splitting a long list into numbered pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    number: int
    total_pages: int
    items: list[T]

    @property
    def has_next(self) -> bool:
        return self.number < self.total_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill, `per_page` to a page; an empty list still has one page."""
    if per_page < 1:
        raise ValueError(f"per_page must be at least 1, not {per_page}")
    return max(1, total // per_page)


def get_page(items: list[T], number: int, per_page: int = 10) -> Page[T]:
    """Page `number` of `items`, counting pages from 1."""
    pages = page_count(len(items), per_page)
    if not 1 <= number <= pages:
        raise ValueError(f"page {number} does not exist: there are {pages}")
    start = (number - 1) * per_page
    return Page(number=number, total_pages=pages, items=items[start : start + per_page])
