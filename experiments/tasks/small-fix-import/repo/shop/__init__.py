"""Prices in cents and the lines of a receipt."""
