"""Real processes for crash tests, benchmarks and experiments: a Temporal dev server with a
history file, the operations service, and workers that can be killed and replaced."""

from experiments.harness.cluster import LabCluster
from experiments.harness.worker_process import WorkerProcess

__all__ = ["LabCluster", "WorkerProcess"]
