from shop.money import format_price
from shop.receipt import receipt_line


def test_format_price():
    assert format_price(1250) == "$12.50"
    assert format_price(5) == "$0.05"


def test_receipt_line():
    assert receipt_line("tea", 350) == "tea: $3.50"
