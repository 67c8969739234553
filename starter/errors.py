"""Errors the starter reports to a person as one line and a non-zero exit."""


class StarterError(Exception):
    """A problem with the user's input or environment; its message is the whole report."""
