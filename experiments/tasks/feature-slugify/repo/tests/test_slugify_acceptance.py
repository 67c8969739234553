"""Acceptance tests for slugify: the behaviour the feature request asks for."""

import pytest

from textkit import slugify


def test_lowercases_and_joins_words_with_hyphens():
    assert slugify("Hello World") == "hello-world"


def test_punctuation_and_underscores_become_single_hyphens():
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("rock_n_roll -- live") == "rock-n-roll-live"


def test_accents_are_transliterated_and_other_scripts_dropped():
    assert slugify("Crème Brûlée à la carte") == "creme-brulee-a-la-carte"
    assert slugify("東京 Tokyo 2024") == "tokyo-2024"


def test_whitespace_of_every_kind_is_a_separator():
    assert slugify("  tabs\tand\nnew lines\u00a0too  ") == "tabs-and-new-lines-too"


def test_nothing_left_gives_an_empty_slug():
    assert slugify("!!! ???") == ""
    assert slugify("") == ""


def test_max_length_cuts_at_a_word_boundary():
    assert slugify("The Quick Brown Fox", max_length=15) == "the-quick-brown"
    assert slugify("The Quick Brown Fox", max_length=14) == "the-quick"
    assert slugify("The Quick Brown Fox", max_length=100) == "the-quick-brown-fox"


def test_max_length_cuts_a_single_long_word():
    assert slugify("Supercalifragilistic", max_length=5) == "super"


def test_max_length_must_be_positive():
    with pytest.raises(ValueError):
        slugify("anything", max_length=0)
