"""Fetches the shop's price feeds."""
