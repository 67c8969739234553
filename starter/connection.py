"""A client for the configured Temporal server, or for an embedded dev server started for it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest, ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.service import RPCError

import settings
from contracts.errors import StarterError
from host import temporal_config
from host.client import connect, connect_failure_reason
from lab.processes.temporal_server import is_listening, split_address
from starter.embedded_server import EmbeddedServer, shared_embedded_server
from workflows import visibility


@dataclass
class Connection:
    client: Client
    address: str
    ui_url: str
    # The embedded dev server this command used (started by it or by another command), if any.
    embedded: EmbeddedServer | None
    # Whether the lab's search attributes exist on the server (the embedded one has them).
    search_attributes: bool


@contextlib.asynccontextmanager
async def temporal_connection(*, keep_server: bool = False, embed: bool = True) -> AsyncIterator[Connection]:
    """Connect as `temporal_config` says (TEMPORAL_ADDRESS or a profile, TLS, an API key); when
    no address is configured, use the embedded dev server at the default one, started if nothing
    answers there and shared with the other commands that use it (starter.embedded_server): it
    stops when the last of them ends (never, with `keep_server`). Without `embed`, a server must
    already answer (commands that act on existing runs)."""
    options = temporal_config.load()  # a bad profile, file or certificate: one line, before anything starts
    address = options.target_host
    host, port = split_address(address)
    if options.explicit or not embed:
        if not is_listening(host, port):
            if not embed:
                raise StarterError(
                    f"nothing answers at {address}: start the server the runs live on "
                    "(`python -m starter server`, or set TEMPORAL_ADDRESS)"
                )
            raise StarterError(
                f"nothing answers at {_where(address)}; start a Temporal server there, "
                "or unset it to use the embedded dev server"
            )
        yield await _connected(options.describe(), None, address)
        return
    directory = settings.data_dir() / "embedded-server"
    ui_port = settings.dev_server_ui_port()
    async with shared_embedded_server(directory, address, ui_port, keep_server=keep_server) as embedded:
        yield await _connected(embedded.address, embedded, embedded.address)


async def _connected(shown: str, embedded: EmbeddedServer | None, address: str) -> Connection:
    try:
        # The embedded server this command started is plain; any other is as configured.
        client = await connect(address if embedded is not None and embedded.started_here else None)
    except (RuntimeError, RPCError) as error:
        raise StarterError(f"no Temporal server at {shown}: {connect_failure_reason(error)}") from None
    # The embedded server is started with the lab's search attributes; one started elsewhere
    # at its address (a `starter server`) has them too, or is given them here.
    searchable = True if embedded is not None and embedded.started_here else await ensure_search_attributes(client)
    return Connection(client, address, settings.temporal_ui_url(), embedded, searchable)


async def ensure_search_attributes(client: Client) -> bool:
    """Register the lab's search attributes on a server that lacks them. False when the
    server refuses (no permission, a test server): runs then carry a memo only."""
    namespace = client.namespace
    try:
        listed = await client.operator_service.list_search_attributes(ListSearchAttributesRequest(namespace=namespace))
        missing = {
            key.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
            for key in visibility.ALL_KEYS
            if key.name not in listed.custom_attributes
        }
        if missing:
            await client.operator_service.add_search_attributes(
                AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
            )
    except RPCError:
        return False
    return True


def _where(address: str) -> str:
    """Which setting named the address, as the user wrote it."""
    if os.environ.get("TEMPORAL_ADDRESS"):
        return f"TEMPORAL_ADDRESS={address}"
    return f"{address} (the address of Temporal profile {os.environ.get('TEMPORAL_PROFILE') or 'default'})"


def _one_line(text: str) -> str:
    return " ".join(text.split())
