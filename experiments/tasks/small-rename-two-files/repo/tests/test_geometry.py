import pytest

from geometry.report import describe
from geometry.shapes import rectangle_area


def test_rectangle_area():
    assert rectangle_area(3, 4) == 12


def test_negative_sides_are_refused():
    with pytest.raises(ValueError):
        rectangle_area(-1, 4)


def test_describe_uses_the_area():
    assert describe(2, 5) == "2 x 5 rectangle, area 10"
