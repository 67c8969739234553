import pytest

from pages import get_page, page_count, page_footer

ORDERS = [f"A-{number}" for number in range(1001, 1026)]  # 25 orders


def test_first_page():
    page = get_page(ORDERS, 1)
    assert page.items == ORDERS[:10]
    assert page_footer(page) == "page 1 of 3 | next >"


def test_the_last_orders_are_on_a_page_of_their_own():
    page = get_page(ORDERS, 3)
    assert page.items == ["A-1021", "A-1022", "A-1023", "A-1024", "A-1025"]
    assert page_footer(page) == "< prev | page 3 of 3"


def test_footer_of_a_middle_page():
    assert page_footer(get_page(ORDERS, 2)) == "< prev | page 2 of 3 | next >"


def test_page_count_rounds_up():
    assert page_count(25, 10) == 3
    assert page_count(30, 10) == 3
    assert page_count(1, 10) == 1


def test_an_empty_list_has_one_empty_page():
    assert page_count(0, 10) == 1
    assert get_page([], 1).items == []
    assert page_footer(get_page(ORDERS[:4], 1)) == "page 1 of 1"


def test_a_page_past_the_end_is_refused():
    with pytest.raises(ValueError, match="page 4 does not exist: there are 3"):
        get_page(ORDERS, 4)
