from report import render
from summary import Sale, Summary, summarize

SATURDAY = [Sale("sourdough", 450), Sale("croissant", 180), Sale("sourdough", 450), Sale("coffee", 320)]


def test_summary_of_a_day_with_sales():
    assert summarize(SATURDAY) == Summary(orders=4, revenue_cents=1400, average_cents=350, best_seller="sourdough")


def test_report_of_a_day_with_sales():
    text = render("2024-06-01", summarize(SATURDAY))
    assert "revenue: 14.00" in text
    assert "best seller: sourdough" in text


def test_a_day_without_sales_is_reported_not_a_crash():
    assert summarize([]) == Summary(orders=0, revenue_cents=0, average_cents=0, best_seller=None)
    text = render("2024-06-02", summarize([]))
    assert "orders: 0" in text
    assert "revenue: 0.00" in text
    assert "best seller: none" in text
