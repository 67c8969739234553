"""Clients and workers connect as Temporal's envconfig says: TOML profiles and the standard
TEMPORAL_* variables (address, namespace, TLS files, API key) become `Client.connect`'s
keyword arguments; a bad setting is one line and exit 2, before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.service import TLSConfig

from contracts.errors import SettingsError
from host import client as host_client
from host import temporal_config
from host.converter import DATA_CONVERTER
from settings import PROJECT_ROOT


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A CA, a client certificate and key (their bytes only matter here), and a config file."""
    for name in ("ca.pem", "client.pem", "client.key"):
        (tmp_path / name).write_text(f"-----BEGIN {name}-----\n")
    (tmp_path / "temporal.toml").write_text(
        f"""
[profile.default]
address = "localhost:7233"

[profile.mtls]
address = "temporal.internal:7233"
namespace = "agents"
[profile.mtls.tls]
server_name = "temporal.internal"
server_ca_cert_path = "{tmp_path / "ca.pem"}"
client_cert_path = "{tmp_path / "client.pem"}"
client_key_path = "{tmp_path / "client.key"}"

[profile.cloud]
address = "agents.a1b2c.tmprl.cloud:7233"
namespace = "agents.a1b2c"
api_key = "from-the-file"
[profile.cloud.grpc_meta]
team = "lab"
"""
    )
    (tmp_path / "empty.toml").write_text("")
    return tmp_path


def test_nothing_configured_is_the_labs_own_dev_server(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LAB_DEV_PORT", "7299")
    options = temporal_config.load({"TEMPORAL_CONFIG_FILE": str(files / "empty.toml")})
    assert options.client_kwargs() == {"target_host": "localhost:7299", "namespace": "default", "tls": False}
    assert not options.explicit  # so the starter may start its embedded server there


def test_an_mtls_profile_gives_the_certificates_and_the_server_name(files: Path) -> None:
    env = {"TEMPORAL_CONFIG_FILE": str(files / "temporal.toml"), "TEMPORAL_PROFILE": "mtls"}
    options = temporal_config.load(env)
    kwargs = options.client_kwargs()
    assert kwargs["target_host"] == "temporal.internal:7233" and kwargs["namespace"] == "agents"
    assert kwargs["tls"] == TLSConfig(
        domain="temporal.internal",
        server_root_ca_cert=b"-----BEGIN ca.pem-----\n",
        client_cert=b"-----BEGIN client.pem-----\n",
        client_private_key=b"-----BEGIN client.key-----\n",
    )
    assert "api_key" not in kwargs and options.explicit
    assert options.describe() == "temporal.internal:7233 (namespace agents, mTLS)"


def test_an_api_key_profile_turns_tls_on_and_the_variables_override_it(files: Path) -> None:
    env = {"TEMPORAL_CONFIG_FILE": str(files / "temporal.toml"), "TEMPORAL_PROFILE": "cloud"}
    assert temporal_config.load(env).client_kwargs() == {
        "target_host": "agents.a1b2c.tmprl.cloud:7233",
        "namespace": "agents.a1b2c",
        "api_key": "from-the-file",
        "tls": True,
        "rpc_metadata": {"team": "lab"},
    }
    overridden = temporal_config.load({**env, "TEMPORAL_API_KEY": "from-the-env", "TEMPORAL_NAMESPACE": "other"})
    assert overridden.api_key == "from-the-env" and overridden.namespace == "other" and overridden.tls is True


def test_the_variables_alone_configure_tls_paths_and_a_key(files: Path) -> None:
    env = {
        "TEMPORAL_CONFIG_FILE": str(files / "empty.toml"),
        "TEMPORAL_ADDRESS": "temporal.internal:7233",
        "TEMPORAL_TLS_CLIENT_CERT_PATH": str(files / "client.pem"),
        "TEMPORAL_TLS_CLIENT_KEY_PATH": str(files / "client.key"),
        "TEMPORAL_TLS_SERVER_CA_CERT_PATH": str(files / "ca.pem"),
    }
    tls = temporal_config.load(env).tls
    assert isinstance(tls, TLSConfig) and tls.client_cert == b"-----BEGIN client.pem-----\n"
    # A key over plain gRPC only when asked for (a local proxy that terminates TLS, say).
    plain = temporal_config.load({**env, "TEMPORAL_API_KEY": "k", "TEMPORAL_TLS": "false"})
    assert plain.tls is False and plain.api_key == "k"


async def test_every_client_connects_with_these_options(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """host.client.connect is the one place the lab makes a client (starter, workers, experiments)."""
    calls: list[dict[str, Any]] = []

    async def fake_connect(**kwargs: Any) -> str:
        calls.append(kwargs)
        return "client"

    monkeypatch.setattr(Client, "connect", fake_connect)
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(files / "temporal.toml"))
    monkeypatch.setenv("TEMPORAL_PROFILE", "cloud")
    await host_client.connect()
    await host_client.connect("127.0.0.1:7300")  # a dev server the lab started itself: no key, no TLS
    assert calls[0]["api_key"] == "from-the-file" and calls[0]["tls"] is True
    assert calls[0]["target_host"] == "agents.a1b2c.tmprl.cloud:7233"
    assert calls[1] == {
        "target_host": "127.0.0.1:7300",
        "namespace": "default",
        "tls": False,
        "data_converter": DATA_CONVERTER,
    }
    assert calls[0]["data_converter"] is DATA_CONVERTER
    configured = temporal_config.load()
    assert configured.explicit and configured.namespace == "agents.a1b2c"


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"TEMPORAL_CONFIG_FILE": "{files}/temporal.toml", "TEMPORAL_PROFILE": "staging"}, "'staging' not found"),
        ({"TEMPORAL_CONFIG_FILE": "{files}/absent.toml"}, "TEMPORAL_CONFIG_FILE={files}/absent.toml: no such file"),
        ({"TEMPORAL_CONFIG_FILE": "{files}/broken.toml"}, "TOML parse error at line 1"),
        ({"TEMPORAL_ADDRESS": "t:7233", "TEMPORAL_TLS_CLIENT_CERT_PATH": "{files}/client.pem"}, "needs its key"),
        (
            {
                "TEMPORAL_ADDRESS": "t:7233",
                "TEMPORAL_TLS_CLIENT_CERT_PATH": "{files}/gone.pem",
                "TEMPORAL_TLS_CLIENT_KEY_PATH": "{files}/client.key",
            },
            "cannot read TLS file {files}/gone.pem: No such file or directory",
        ),
        ({"TEMPORAL_TLS": "yes please"}, "TEMPORAL_TLS must be true or false"),
        ({"TEMPORAL_API_KEY": "k"}, "no address: set TEMPORAL_ADDRESS"),
    ],
    ids=["missing-profile", "missing-file", "bad-toml", "half-key-pair", "missing-cert", "tls-flag", "no-address"],
)
def test_a_bad_setting_is_one_line(files: Path, env: dict[str, str], said: str) -> None:
    (files / "broken.toml").write_text("[profile.default\naddress =")
    env = {"TEMPORAL_CONFIG_FILE": str(files / "empty.toml")} | {k: v.format(files=files) for k, v in env.items()}
    with pytest.raises(SettingsError) as raised:
        temporal_config.load(env)
    assert said.format(files=files) in str(raised.value)
    assert "\n" not in str(raised.value)


def _lab(*command: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TEMPORAL_")}
    return subprocess.run(
        [sys.executable, *command], cwd=PROJECT_ROOT, env=clean | env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "command", [("-m", "starter", "run", "--no-worker"), ("worker.py",)], ids=["starter-run", "worker"]
)
def test_the_commands_say_it_in_one_line_and_exit_2(files: Path, command: tuple[str, ...]) -> None:
    missing_profile = _lab(*command, TEMPORAL_CONFIG_FILE=str(files / "temporal.toml"), TEMPORAL_PROFILE="staging")
    missing_cert = _lab(
        *command,
        TEMPORAL_ADDRESS="temporal.internal:7233",
        TEMPORAL_TLS_CLIENT_CERT_PATH=str(files / "gone.pem"),
        TEMPORAL_TLS_CLIENT_KEY_PATH=str(files / "client.key"),
    )
    for result, said in ((missing_profile, "Profile 'staging' not found"), (missing_cert, "gone.pem")):
        assert result.returncode == 2, result
        assert "Traceback" not in result.stderr and result.stdout == ""
        assert result.stderr.strip().startswith("error: ") and said in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
