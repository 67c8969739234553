from decimal import Decimal

from billing.invoice import Invoice, Line
from billing.money import euros


def test_an_invoice_adds_up():
    invoice = Invoice([Line("bread", Decimal("4.50"), Decimal("0.07")), Line("mug", Decimal("12.00"), Decimal("0.19"))])
    assert invoice.net == Decimal("16.50")
    assert invoice.vat == Decimal("2.60")
    assert invoice.total == Decimal("19.10")


def test_vat_is_rounded_half_up_to_the_cent():
    invoice = Invoice([Line("sticker", Decimal("0.50"), Decimal("0.25"))])
    assert invoice.vat == Decimal("0.13")
    assert invoice.total == Decimal("0.63")


def test_a_credit_note_rounds_like_an_invoice():
    credit = Invoice([Line("returned sticker", Decimal("-0.50"), Decimal("0.25"))])
    assert credit.vat == Decimal("-0.13")


def test_euros():
    assert euros(Decimal("3.5")) == "3.50 EUR"
