"""The order list of the back office, page by page."""
