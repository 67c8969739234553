"""Part 2: Roman numerals (textkit/roman.py)."""

import pytest

from textkit.roman import from_roman, to_roman


@pytest.mark.parametrize(("number", "numeral"), [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")])
def test_both_ways(number, numeral):
    assert to_roman(number) == numeral
    assert from_roman(numeral) == number


@pytest.mark.parametrize("number", [0, -3, 4000])
def test_out_of_range(number):
    with pytest.raises(ValueError):
        to_roman(number)


def test_not_a_numeral():
    with pytest.raises(ValueError):
        from_roman("IIII")
