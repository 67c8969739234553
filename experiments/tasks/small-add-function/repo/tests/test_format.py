from names.format import full_name, initials


def test_full_name():
    assert full_name("Ada", "Lovelace") == "Ada Lovelace"


def test_initials_of_two_words():
    assert initials("Ada Lovelace") == "A.L."


def test_initials_are_upper_case():
    assert initials("grace brewster hopper") == "G.B.H."


def test_initials_ignore_extra_spaces():
    assert initials("  alan   turing ") == "A.T."


def test_initials_of_nothing_is_empty():
    assert initials("") == ""
