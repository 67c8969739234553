"""Small text helpers."""

__all__: list[str] = []
