"""Worker Deployment Versioning: workers of one deployment name, each version a build id, and
every run pinned to the version that started it.

    python worker.py --deployment agent-lab --make-current     # build id: a hash of the code

A worker with changed workflow code has another build id (host.build.build_id), so it never replays
a run it did not start: the runs in flight finish on the workers of their own version, and new
runs go to the deployment's current version. `--make-current` makes this worker's version the
current one once it polls (as `temporal worker deployment set-current-version` does); without
it, a version is made current by hand, after its workers are up.
"""

from __future__ import annotations

import asyncio

from temporalio.api.workflowservice.v1 import SetWorkerDeploymentCurrentVersionRequest
from temporalio.client import Client
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.service import RPCError
from temporalio.worker import WorkerDeploymentConfig

from contracts.errors import SettingsError

# How long a new version may take to be seen polling before it can be made current.
_REGISTERED_WITHIN_S = 30.0


def deployment_config(name: str, build_id: str) -> WorkerDeploymentConfig:
    """Versioned, and a run without a behaviour of its own pinned to the version it started on:
    the agent's workflow replays its history only on the code that wrote it."""
    if not name.strip() or not build_id.strip():
        raise SettingsError("a worker deployment needs a name and a build id")
    return WorkerDeploymentConfig(
        version=WorkerDeploymentVersion(deployment_name=name, build_id=build_id),
        use_worker_versioning=True,
        default_versioning_behavior=VersioningBehavior.PINNED,
    )


async def make_current(client: Client, name: str, build_id: str) -> None:
    """Make this version the deployment's current one, once the server has seen it poll."""
    request = SetWorkerDeploymentCurrentVersionRequest(
        namespace=client.namespace, deployment_name=name, build_id=build_id, identity=client.identity
    )
    deadline = asyncio.get_running_loop().time() + _REGISTERED_WITHIN_S
    while True:
        try:
            await client.workflow_service.set_worker_deployment_current_version(request)
            return
        except RPCError:
            # Not yet known to the server (its first poll has not registered it): ask again.
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.25)
