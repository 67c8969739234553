from greet import greet


def test_greet_says_hello() -> None:
    assert greet("Ada") == "Hello, Ada!"
