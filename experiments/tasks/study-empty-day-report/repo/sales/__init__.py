"""The nightly sales report."""
