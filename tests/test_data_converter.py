"""Large payloads by reference (host/converter.py): kept in the artifact store with only a
reference in the history, read back whole by the workflow and the client; a stored payload
changed on disk is refused, never decoded."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.converter import StorageDriverClaim, StorageDriverRetrieveContext, StorageDriverStoreContext

from contracts.errors import ArtifactMissing
from host.build import build_worker
from host.converter import ARTIFACT_DRIVER, DATA_CONVERTER, PAYLOAD_THRESHOLD, ArtifactStoreDriver
from lab.runs.catalog import Task
from lab.runs.run_request import build_request
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

# A payload kept by reference says how large the one it stands for is (`external_payloads`,
# temporalio.converter._extstore), as the Web UI shows.
REFERENCE_MARKER = '"externalPayloads"'


async def test_a_payload_goes_to_the_store_and_comes_back() -> None:
    driver = ArtifactStoreDriver()
    payload = Payload(metadata={"encoding": b"json/plain"}, data=b'"' + b"x" * 5000 + b'"')
    [claim] = await driver.store(StorageDriverStoreContext(), [payload])
    assert set(claim.claim_data) == {"sha256"}
    assert driver.stored_payloads == 1 and driver.stored_bytes == payload.ByteSize()
    [back] = await driver.retrieve(StorageDriverRetrieveContext(), [claim])
    assert back == payload


async def test_a_stored_payload_changed_on_disk_is_refused() -> None:
    driver = ArtifactStoreDriver()
    [claim] = await driver.store(StorageDriverStoreContext(), [Payload(data=b"y" * 4000)])
    stored = lab_deps().artifacts.path_of(claim.claim_data["sha256"])
    stored.write_bytes(stored.read_bytes().replace(b"y", b"z", 1))
    with pytest.raises(ArtifactMissing, match="does not hash to its name"):
        await driver.retrieve(StorageDriverRetrieveContext(), [claim])
    with pytest.raises(ArtifactMissing, match="no artifact"):
        await driver.retrieve(StorageDriverRetrieveContext(), [StorageDriverClaim({"sha256": "0" * 64})])


def test_small_payloads_stay_inline() -> None:
    external = DATA_CONVERTER.external_storage
    assert external is not None and external.drivers == [ARTIFACT_DRIVER]
    assert 1024 <= PAYLOAD_THRESHOLD == external.payload_size_threshold <= 16 * 1024


async def test_a_run_keeps_its_large_payloads_by_reference(client: Client, task_queue: str, bugfix_task: Task) -> None:
    request = build_request(bugfix_task, "durable")
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)
    assert result.succeeded, result.reason

    events = [event async for event in client.get_workflow_handle(request.run_id).fetch_history_events()]
    by_reference = [event for event in events if REFERENCE_MARKER in json.dumps(MessageToDict(event))]
    assert by_reference, "no payload of the run went by reference"
    # Each such event stays small: the reference, not the payload. That the workflow read them
    # back whole is the run itself: it decided every step on those results, and succeeded.
    assert all(event.ByteSize() < PAYLOAD_THRESHOLD for event in by_reference)
    references = [found for event in by_reference for found in _references(MessageToDict(event))]
    assert references and all(ArtifactStoreDriver.NAME.encode() in base64.b64decode(ref["data"]) for ref in references)
    assert all(int(ref["externalPayloads"][0]["sizeBytes"]) >= PAYLOAD_THRESHOLD for ref in references)


def _references(tree: object) -> list[dict[str, Any]]:
    """Every payload in a history event (as JSON) that stands for one kept elsewhere."""
    if isinstance(tree, list):
        return [found for item in tree for found in _references(item)]
    if not isinstance(tree, dict):
        return []
    if "externalPayloads" in tree:
        return [tree]
    return [found for value in tree.values() for found in _references(value)]
