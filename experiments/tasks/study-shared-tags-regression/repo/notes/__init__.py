"""A small note keeper."""
