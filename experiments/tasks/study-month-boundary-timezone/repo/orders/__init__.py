"""Receipts and monthly totals of the shop's orders."""
