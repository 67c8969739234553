"""Part 3: words (textkit/words.py)."""

from textkit.words import truncate_words, word_count


def test_word_count_splits_on_any_whitespace():
    assert word_count("  one two\tthree\nfour ") == 4
    assert word_count("") == 0


def test_truncate_keeps_short_text():
    assert truncate_words("a b c", 3) == "a b c"


def test_truncate_adds_an_ellipsis():
    assert truncate_words("the quick brown fox jumps", 3) == "the quick brown…"
