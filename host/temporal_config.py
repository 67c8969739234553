"""How every client and worker of the lab reaches Temporal: `temporalio.envconfig`, read the way
the Temporal CLI and SDKs read it, so one worker reaches a dev server, a cluster with mTLS or
Temporal Cloud with an API key, changing only its environment.

Sources, later ones winning: a TOML profile (`TEMPORAL_CONFIG_FILE`, default
`~/.config/temporalio/temporal.toml`; `TEMPORAL_PROFILE`, default `default`), then the
standard variables: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH / _SERVER_CA_CERT_PATH (or their `_DATA` forms),
TEMPORAL_TLS_SERVER_NAME, TEMPORAL_GRPC_META_*. An API key turns TLS on unless TLS is
disabled explicitly (TEMPORAL_TLS=false).

With no address from either, the lab uses its own dev server at localhost:AGENT_LAB_DEV_PORT
(and the starter starts one when nothing answers there). Settings the SDK would take silently
and fail on later (a config file that is not there, a TLS flag that is not a boolean, a
certificate that cannot be read, half a client key pair) are a SettingsError here, in one line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from temporalio.envconfig import ClientConfigProfile
from temporalio.service import TLSConfig

import settings
from contracts.errors import SettingsError

_BOOLEANS = {"true", "1", "false", "0"}  # what the SDK's TEMPORAL_TLS understands; anything else it ignores


@dataclass(frozen=True)
class ConnectOptions:
    target_host: str
    namespace: str = "default"
    api_key: str | None = None
    tls: bool | TLSConfig = False
    rpc_metadata: Mapping[str, str] = field(default_factory=dict)
    # The address was configured (a variable or a profile): never replaced by an embedded server.
    explicit: bool = False

    def client_kwargs(self) -> dict[str, object]:
        """Keyword arguments for `Client.connect` (all but the data converter)."""
        kwargs: dict[str, object] = {"target_host": self.target_host, "namespace": self.namespace, "tls": self.tls}
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key
        if self.rpc_metadata:
            kwargs["rpc_metadata"] = dict(self.rpc_metadata)
        return kwargs

    def for_local_server(self, address: str) -> ConnectOptions:
        """A dev server the lab started itself: plain gRPC, no key, and the one namespace such a
        server has (the configured one belongs to the configured server)."""
        return ConnectOptions(target_host=address)

    def describe(self) -> str:
        """What a log line or an error names: "host:port (namespace N, mTLS, API key)"."""
        return f"{self.target_host} ({self.how()})"

    def how(self) -> str:
        """How it connects ("namespace N, TLS, API key"), never the key itself."""
        secured = "plain gRPC"
        if isinstance(self.tls, TLSConfig):
            secured = "mTLS" if self.tls.client_cert else "TLS"
        elif self.tls:
            secured = "TLS"
        key = ", API key" if self.api_key else ""
        return f"namespace {self.namespace}, {secured}{key}"


def load(env: Mapping[str, str] | None = None) -> ConnectOptions:
    """The connection the environment configures. Raises SettingsError, in one line."""
    env = dict(os.environ if env is None else env)
    config_file = env.get("TEMPORAL_CONFIG_FILE")
    if config_file and not Path(config_file).is_file():
        raise SettingsError(f"TEMPORAL_CONFIG_FILE={config_file}: no such file")
    tls_flag = env.get("TEMPORAL_TLS")
    if tls_flag and tls_flag.strip().lower() not in _BOOLEANS:
        raise SettingsError(f"TEMPORAL_TLS must be true or false, not {tls_flag!r}")
    try:
        profile = ClientConfigProfile.load(override_env_vars=env)
    except Exception as error:  # the SDK's ConfigError (a native class): a missing profile, bad TOML
        where = f" in {config_file or 'the default config file'}" if env.get("TEMPORAL_PROFILE") or config_file else ""
        raise SettingsError(f"Temporal configuration{where}: {_one_line(str(error))}") from None
    if profile.tls and bool(profile.tls.client_cert) != bool(profile.tls.client_private_key):
        raise SettingsError("a TLS client certificate needs its key, and a key its certificate: set both or neither")
    try:
        connect = profile.to_client_connect_config()
    except OSError as error:
        raise SettingsError(f"cannot read TLS file {error.filename}: {error.strerror}") from None
    tls = connect.get("tls", False)
    if not profile.address and (tls or profile.api_key):
        raise SettingsError(
            "TLS or an API key is configured but no address: set TEMPORAL_ADDRESS (or the profile's address)"
        )
    return ConnectOptions(
        target_host=profile.address or f"localhost:{settings.dev_server_port()}",
        namespace=profile.namespace or "default",
        api_key=profile.api_key,
        tls=tls,
        rpc_metadata=dict(profile.grpc_meta),
        explicit=bool(profile.address),
    )


def _one_line(text: str) -> str:
    """The SDK's TOML errors span lines (a caret under the column): keep the first and the last."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("|")]
    return "; ".join(dict.fromkeys([lines[0], lines[-1]])) if lines else text
