"""Helpers for people's names."""
