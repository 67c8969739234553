from temps.convert import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_water_freezes_at_32_fahrenheit():
    assert celsius_to_fahrenheit(0) == 32


def test_water_boils_at_212_fahrenheit():
    assert celsius_to_fahrenheit(100) == 212


def test_the_conversions_are_inverse():
    assert fahrenheit_to_celsius(celsius_to_fahrenheit(37)) == 37
