ABSOLUTE_ZERO_C = -273.15


def to_kelvin(value, scale="C"):
    if scale == "C":
        kelvin = value - ABSOLUTE_ZERO_C
    elif scale == "F":
        kelvin = (value - 32) * 5 / 9 - ABSOLUTE_ZERO_C
    else:
        raise ValueError(f"unknown scale {scale!r}")
    if kelvin < 0:
        raise ValueError("below absolute zero")
    return kelvin


def from_kelvin(kelvin, scale="C"):
    if scale == "C":
        return kelvin + ABSOLUTE_ZERO_C
    if scale == "F":
        return (kelvin + ABSOLUTE_ZERO_C) * 9 / 5 + 32
    raise ValueError(f"unknown scale {scale!r}")
