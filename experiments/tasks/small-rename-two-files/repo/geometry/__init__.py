"""Rectangles: their area and a one-line description."""
