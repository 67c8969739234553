"""A small web service: its settings and startup helpers."""
