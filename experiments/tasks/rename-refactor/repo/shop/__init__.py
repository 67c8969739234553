"""Order pricing: line items, carts and invoices."""

from shop.cart import Cart
from shop.invoice import render_invoice
from shop.pricing import LineItem, calc_total

__all__ = ["Cart", "LineItem", "calc_total", "render_invoice"]
