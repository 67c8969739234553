import pytest

from fetcher.settings import HttpSettings, load_settings, parse_settings


def test_the_shipped_config():
    assert load_settings() == HttpSettings(base_url="https://feeds.example.com", timeout_s=4.5, max_retries=5)


def test_defaults():
    assert parse_settings('[http]\nbase_url = "https://x.test"\n') == HttpSettings(base_url="https://x.test")


def test_max_retries_is_read():
    text = '[http]\nbase_url = "https://x.test"\nmax_retries = 0\n'
    assert parse_settings(text).max_retries == 0


def test_a_missing_base_url_is_refused():
    with pytest.raises(ValueError, match="base_url"):
        parse_settings("[http]\ntimeout_s = 1\n")
