import math


def rectangle_area(width, height):
    if width < 0 or height < 0:
        raise ValueError("sides cannot be negative")
    return width * height


def circle_area(radius):
    if radius < 0:
        raise ValueError("radius cannot be negative")
    return math.pi * radius**2
