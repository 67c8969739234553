"""Temperature conversions."""
