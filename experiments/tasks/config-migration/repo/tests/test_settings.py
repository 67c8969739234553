from app.settings import Settings, load_settings, parse_settings


def test_the_shipped_config_loads():
    settings = load_settings()
    assert settings.host == "0.0.0.0"
    assert settings.port == 8080
    assert settings.debug is False
    assert settings.database_url == "postgresql://app@db.internal:5432/app"
    assert settings.pool_size == 10
    assert settings.features == ("reports", "exports")


def test_missing_keys_take_their_defaults():
    assert load_settings().timeout_s == 30.0
    assert parse_settings("") == Settings()


def test_values_are_typed():
    text = "[server]\nport = 9000\ndebug = yes\n\n[database]\ntimeout_s = 2.5\n"
    settings = parse_settings(text)
    assert settings.port == 9000
    assert settings.debug is True
    assert settings.timeout_s == 2.5
    assert settings.host == "127.0.0.1"


def test_features_list():
    text = "[features]\nenabled = search, billing\n"
    assert parse_settings(text).features == ("search", "billing")
