"""The one way the lab makes a Temporal client: as the environment configures it
(`host.temporal_config`), with the lab's data converter (`host.converter`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from temporalio.client import Client, Plugin
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime

from host import temporal_config
from host.converter import DATA_CONVERTER


async def connect(
    address: str | None = None,
    runtime: Runtime | None = None,
    plugins: Sequence[Plugin] = (),
    data_converter: DataConverter = DATA_CONVERTER,
) -> Client:
    """A client as the environment configures it (`host.temporal_config`: profiles, TLS, API key).
    With an `address`, a dev server the lab started itself: namespace `default`, plain gRPC.
    With a `runtime`, its telemetry (host.metrics: a Prometheus endpoint); with `plugins`,
    what they add to the client and its workers (host.tracing: traces). `data_converter`: a
    worker's stores its large payloads where its Dependencies say (host.converter)."""
    options = temporal_config.load()
    if address is not None:
        options = options.for_local_server(address)
    kwargs = options.client_kwargs()
    if runtime is not None:
        kwargs["runtime"] = runtime
    if plugins:
        kwargs["plugins"] = list(plugins)
    return await Client.connect(**kwargs, data_converter=data_converter)  # type: ignore[arg-type]


def connect_failure_reason(error: Exception) -> str:
    """The transport's own reason ("Connection refused"), not its whole Rust error chain."""
    said = re.findall(r'(?:message|error): "([^"]+)"', str(error)) or re.findall(r'ConnectError\("([^"]+)"', str(error))
    return said[-1] if said else " ".join(str(error).split())[:160]
