import math

import pytest

from units.area import circle_area, rectangle_area
from units.duration import format_duration, parse_duration
from units.formatting import format_quantity, plural
from units.length import from_metres, to_metres
from units.mass import from_kilograms, to_kilograms
from units.speed import kmh_to_mps, pace_per_km
from units.temperature import from_kelvin, to_kelvin
from units.volume import gallons_to_litres, litres_to_gallons


def test_length():
    assert to_metres(5, "km") == 5000
    assert from_metres(1609.344, "mi") == pytest.approx(1)


def test_mass():
    assert to_kilograms(500, "g") == 0.5
    assert from_kilograms(1, "lb") == pytest.approx(2.20462, rel=1e-5)


def test_temperature():
    assert to_kelvin(0) == 273.15
    assert from_kelvin(to_kelvin(212, "F"), "C") == pytest.approx(100)
    with pytest.raises(ValueError):
        to_kelvin(-300)


def test_duration():
    assert parse_duration("1h 30m") == 5400
    assert format_duration(3725) == "1h 2m 5s"
    assert format_duration(0) == "0s"
    with pytest.raises(ValueError):
        parse_duration("ninety minutes")


def test_volume():
    assert gallons_to_litres(1) == pytest.approx(3.785411784)
    assert litres_to_gallons(gallons_to_litres(2.5)) == pytest.approx(2.5)


def test_speed():
    assert kmh_to_mps(36) == 10
    assert pace_per_km(1650, 5) == "5:30 /km"


def test_area():
    assert rectangle_area(3, 4) == 12
    assert circle_area(1) == pytest.approx(math.pi)


def test_formatting():
    assert format_quantity(1234.5, "km") == "1,234.50 km"
    assert format_quantity(2, "kg", places=0) == "2 kg"
    assert plural("file", 1) == "1 file"
    assert plural("box", 3, suffix="es") == "3 boxes"
