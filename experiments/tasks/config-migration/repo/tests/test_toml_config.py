"""Acceptance tests for the move to TOML: the settings file is config/app.toml, read with
tomllib, and gives the application exactly the values it had before."""

import tomllib

from app import settings as config


def test_the_settings_file_is_toml():
    assert config.CONFIG_PATH.name == "app.toml"
    data = tomllib.loads(config.CONFIG_PATH.read_text(encoding="utf-8"))
    assert data["server"]["port"] == 8080
    assert data["server"]["debug"] is False
    assert data["features"]["enabled"] == ["reports", "exports"]


def test_the_loaded_values_are_unchanged():
    assert config.load_settings() == config.Settings(
        host="0.0.0.0",
        port=8080,
        debug=False,
        database_url="postgresql://app@db.internal:5432/app",
        pool_size=10,
        timeout_s=30.0,
        features=("reports", "exports"),
    )


def test_toml_text_is_parsed_with_defaults_for_the_rest():
    parsed = config.parse_settings('[server]\nport = 9000\n\n[features]\nenabled = ["search"]\n')
    assert parsed == config.Settings(port=9000, features=("search",))
    assert config.parse_settings("") == config.Settings()
