"""Unit conversions and formatting: one module per kind of quantity."""
