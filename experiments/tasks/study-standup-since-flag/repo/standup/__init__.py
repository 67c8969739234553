"""The team's stand-up log."""
