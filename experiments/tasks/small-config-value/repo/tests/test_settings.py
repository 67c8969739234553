from service.settings import load_settings


def test_http_timeout_is_30_seconds():
    timeout = load_settings()["http"]["timeout_seconds"]
    assert timeout == 30, f"timeout_seconds in [http] of config/service.toml must be 30, not {timeout}"


def test_the_other_settings_are_unchanged():
    settings = load_settings()
    assert settings["http"]["base_url"] == "https://api.example.com"
    assert settings["http"]["retries"] == 3
    assert settings["log"]["level"] == "info"
