from shoplist.listing import page_footer
from shoplist.pages import get_page

ORDERS = [f"A-{number}" for number in range(1001, 1026)]  # 25 orders


def test_footer_of_a_middle_page():
    assert page_footer(get_page(ORDERS, 2)) == "< prev | page 2 of 3 | next >"


def test_footer_of_the_only_page():
    assert page_footer(get_page(ORDERS[:4], 1)) == "page 1 of 1"
