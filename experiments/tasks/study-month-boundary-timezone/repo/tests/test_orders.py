from orders import Order, month_of, monthly_totals, parse_time, receipt_header

ORDERS = [
    Order("A-1041", parse_time("2024-06-12T09:15:00Z"), 2400),
    Order("A-1042", parse_time("2024-06-30T17:40:00Z"), 1150),
    Order("A-1043", parse_time("2024-06-30T22:30:00Z"), 3200),  # 00:30 on 1 July, shop time
    Order("A-1044", parse_time("2024-07-02T08:05:00Z"), 990),
]


def test_receipt_shows_shop_time():
    assert receipt_header(ORDERS[2]) == "Order A-1043, 01.07.2024 00:30"


def test_an_order_in_the_middle_of_a_month():
    assert month_of(ORDERS[0]) == "2024-06"


def test_an_order_just_after_midnight_belongs_to_the_new_month():
    assert month_of(ORDERS[2]) == "2024-07"


def test_monthly_totals():
    assert monthly_totals(ORDERS) == {"2024-06": 3550, "2024-07": 4190}
