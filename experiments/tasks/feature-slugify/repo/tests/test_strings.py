import pytest

from textkit import collapse_whitespace, shorten, word_count


def test_collapse_whitespace():
    assert collapse_whitespace("  a\t b\n\nc  ") == "a b c"


def test_word_count():
    assert word_count("the quick  brown\tfox") == 4
    assert word_count("   ") == 0


def test_shorten_keeps_short_text():
    assert shorten("hello world", 20) == "hello world"


def test_shorten_cuts_at_a_word_boundary():
    assert shorten("the quick brown fox", 13) == "the quick..."


def test_shorten_refuses_a_width_below_the_placeholder():
    with pytest.raises(ValueError):
        shorten("hello", 2)
