_KILOGRAMS_PER_UNIT = {"g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237}


def to_kilograms(value, unit):
    return value * _KILOGRAMS_PER_UNIT[unit]


def from_kilograms(kilograms, unit):
    return kilograms / _KILOGRAMS_PER_UNIT[unit]
