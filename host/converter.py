"""The data converter of every client and worker of the lab: Pydantic models as JSON, and any
payload of PAYLOAD_THRESHOLD bytes or more kept in the artifact store, its reference in the
history instead (Temporal's external storage, `temporalio.converter.ExternalStorage`).

Why: a step's tool output (a file window, a test run's tail) is the largest thing a step puts
in its history, and the workflow needs only what it decides on; with it by reference a step
costs about the same few KB however large the observation (docs/performance.md, "History").
Small payloads (verdicts, usage, most inputs) stay inline, readable in the Web UI.

What it costs: a local activity's input is stored too when it is that large, though it never
reaches the history (the SDK stores a workflow's command payloads without saying which are
local activities'): `record_step`'s (~7 KB: the step's ledger events and turn), once a step.
docs/performance.md gives the bytes stored per step (flat: ~9.8 KB).

Both ends must share the artifact store: a client that reads a run's result or a worker that
replays its history on another machine needs the same `DATA/artifacts` (a shared volume). A
reference this machine's store does not hold fails the workflow task with ArtifactMissing,
which Temporal retries (so a worker that has it can take the task). Histories written before
references existed hold their payloads inline, and replay as they always did.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import (
    DataConverter,
    ExternalStorage,
    StorageDriver,
    StorageDriverClaim,
    StorageDriverRetrieveContext,
    StorageDriverStoreContext,
)

import settings
from agent.artifacts import ArtifactStore

# A tool's observation (~2.7 KB for a 60-line window) goes by reference; the proposal's
# input (~1.5 KB), verdicts and checks stay inline. A reference is about 200 bytes.
PAYLOAD_THRESHOLD = 2048


class ArtifactStoreDriver(StorageDriver):
    """Payloads as content-addressed files of the artifact store (`agent/artifacts.py`): the
    same payload stored twice is one file, and a retrieved one is checked against its name."""

    # In every reference written to a history: renaming it would strand those references.
    NAME = "agent-lab-artifacts"

    def __init__(self, store: ArtifactStore | None = None) -> None:
        """`store`: where payloads go (None: the data directory of this process's environment,
        read at each use, for the module-level converter every client and test shares)."""
        self._store = store
        # What this process has stored (duplicates too), for benchmarks to weigh.
        self.stored_payloads = 0
        self.stored_bytes = 0

    def name(self) -> str:
        return self.NAME

    async def store(self, context: StorageDriverStoreContext, payloads: Sequence[Payload]) -> list[StorageDriverClaim]:
        encoded = [payload.SerializeToString(deterministic=True) for payload in payloads]
        store = self.artifacts()
        refs = await asyncio.to_thread(lambda: [store.put_bytes(data) for data in encoded])
        self.stored_payloads += len(encoded)
        self.stored_bytes += sum(len(data) for data in encoded)
        return [StorageDriverClaim(claim_data={"sha256": ref.sha256}) for ref in refs]

    async def retrieve(
        self, context: StorageDriverRetrieveContext, claims: Sequence[StorageDriverClaim]
    ) -> list[Payload]:
        store = self.artifacts()
        stored = await asyncio.to_thread(lambda: [store.get_bytes(claim.claim_data["sha256"]) for claim in claims])
        payloads = []
        for data in stored:
            payload = Payload()
            payload.ParseFromString(data)
            payloads.append(payload)
        return payloads

    def artifacts(self) -> ArtifactStore:
        return self._store if self._store is not None else ArtifactStore(settings.data_dir() / "artifacts")


def data_converter_for(driver: ArtifactStoreDriver) -> DataConverter:
    """The lab's converter, storing large payloads through `driver` (a worker's: in the
    artifact store of its Dependencies)."""
    converter = dataclasses.replace(
        pydantic_data_converter,
        external_storage=ExternalStorage(drivers=[driver], payload_size_threshold=PAYLOAD_THRESHOLD),
    )
    _MADE.append(converter)
    return converter


def is_lab_converter(converter: DataConverter) -> bool:
    """Whether `converter` is one `data_converter_for` made (the lab's, whatever its store)."""
    return any(converter is made for made in _MADE)


_MADE: list[DataConverter] = []
ARTIFACT_DRIVER = ArtifactStoreDriver()
DATA_CONVERTER: DataConverter = data_converter_for(ARTIFACT_DRIVER)
