import pytest

from textstats import mean, median, word_lengths


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_odd_length():
    assert median([5, 1, 3]) == 3


def test_median_even_length():
    assert median([1, 2, 3, 4]) == 2.5


def test_median_unsorted_even_length():
    assert median([10, 2, 8, 4]) == 6


def test_empty_lists_are_refused():
    with pytest.raises(ValueError):
        median([])
    with pytest.raises(ValueError):
        mean([])


def test_word_lengths():
    assert word_lengths("the quick brown fox") == [3, 5, 5, 3]
