"""Tiny helpers for counting."""
