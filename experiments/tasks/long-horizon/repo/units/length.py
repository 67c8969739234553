_METRES_PER_UNIT = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344}


def to_metres(value, unit):
    return value * _METRES_PER_UNIT[unit]


def from_metres(metres, unit):
    return metres / _METRES_PER_UNIT[unit]
