from app.server import bind_address, feature_enabled, startup_banner
from app.settings import Settings, load_settings


def test_bind_address_of_the_shipped_config():
    assert bind_address(load_settings()) == "0.0.0.0:8080"


def test_feature_flags():
    settings = load_settings()
    assert feature_enabled(settings, "reports")
    assert not feature_enabled(settings, "billing")


def test_banner():
    assert startup_banner(Settings()) == "listening on 127.0.0.1:8000 (production); features: none"
