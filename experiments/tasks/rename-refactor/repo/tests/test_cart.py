from shop import Cart, LineItem, calc_total, render_invoice


def test_cart_total_matches_pricing():
    cart = Cart(tax_rate=0.2)
    cart.add("book", 1200, 2)
    cart.apply_discount(400)
    assert cart.total_cents() == calc_total(cart.items, 0.2, 400) == 2400


def test_invoice_shows_total():
    text = render_invoice("Ada", [LineItem("book", 1200, 2)])
    assert "Invoice for Ada" in text
    assert "24.00" in text
