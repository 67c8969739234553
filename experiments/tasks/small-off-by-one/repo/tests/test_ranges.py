from counting.ranges import numbers_up_to, total_up_to


def test_numbers_up_to_must_include_n_itself():
    assert numbers_up_to(3) == [1, 2, 3], "numbers_up_to(n) must include n: range(1, n) stops one short of n"


def test_numbers_up_to_zero_is_empty():
    assert numbers_up_to(0) == []


def test_total_up_to_adds_n_too():
    assert total_up_to(4) == 10, "total_up_to(4) is 1 + 2 + 3 + 4 = 10"
