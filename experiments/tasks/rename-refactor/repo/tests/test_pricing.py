from shop.pricing import LineItem, calc_total


def test_total_of_nothing_is_zero():
    assert calc_total([]) == 0


def test_total_sums_line_items():
    items = [LineItem("apple", 50, 3), LineItem("pear", 75)]
    assert calc_total(items) == 225


def test_discount_never_goes_below_zero():
    assert calc_total([LineItem("gum", 100)], discount_cents=500) == 0


def test_tax_rounds_half_up():
    assert calc_total([LineItem("pen", 150)], tax_rate=0.1) == 165
    assert calc_total([LineItem("pin", 5)], tax_rate=0.1) == 6
