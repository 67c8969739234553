"""Celsius and Fahrenheit."""

from __future__ import annotations


def celsius_to_fahrenheit(celsius: float) -> float:
    """Degrees Celsius in degrees Fahrenheit.

    >>> celsius_to_fahrenheit(0)
    32.0
    >>> celsius_to_fahrenheit(100)
    180.0
    """
    return celsius * 9 / 5 + 32


def fahrenheit_to_celsius(fahrenheit: float) -> float:
    """Degrees Fahrenheit in degrees Celsius.

    >>> fahrenheit_to_celsius(212)
    100.0
    """
    return (fahrenheit - 32) * 5 / 9
