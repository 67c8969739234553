import pytest

from bookmarks.urls import normalize_url


def test_scheme_and_host_are_lowercased():
    assert normalize_url("HTTPS://Example.COM/Docs") == "https://example.com/Docs"


def test_default_port_fragment_and_trailing_slash_go():
    assert normalize_url("http://example.com:80/a/#top") == "http://example.com/a"
    assert normalize_url("https://example.com:8443/") == "https://example.com:8443"


def test_query_is_kept():
    assert normalize_url("https://example.com/search?q=tea") == "https://example.com/search?q=tea"


@pytest.mark.parametrize("url", ["example.com", "ftp://example.com/file", "https://"])
def test_non_http_urls_are_refused(url):
    with pytest.raises(ValueError):
        normalize_url(url)
