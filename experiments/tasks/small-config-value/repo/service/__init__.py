"""A small HTTP client's settings."""
