"""Part 1: URL slugs (textkit/slug.py)."""

import pytest

from textkit.slug import slugify


def test_words_are_lowercased_and_joined_by_hyphens():
    assert slugify("Hello World") == "hello-world"


def test_punctuation_and_runs_of_separators_collapse():
    assert slugify("  Tea, Coffee & -- Cake!  ") == "tea-coffee-cake"


def test_accents_are_dropped():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_nothing_left_is_an_error():
    with pytest.raises(ValueError):
        slugify("?!")
