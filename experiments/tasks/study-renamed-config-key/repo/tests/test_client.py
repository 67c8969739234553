import pytest

from fetcher.client import FetchFailed, fetch_with_retries
from fetcher.settings import HttpSettings


def test_retries_until_an_answer():
    answers = [OSError("reset"), OSError("reset"), b"prices"]

    def fetch(url, timeout):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert fetch_with_retries(fetch, "eur.csv", HttpSettings(base_url="https://x.test")) == b"prices"


def test_gives_up_after_max_retries():
    calls = []

    def fetch(url, timeout):
        calls.append(url)
        raise OSError("down")

    with pytest.raises(FetchFailed, match="after 4 attempts"):
        fetch_with_retries(fetch, "eur.csv", HttpSettings(base_url="https://x.test", max_retries=3))
    assert calls == ["https://x.test/eur.csv"] * 4
