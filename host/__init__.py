"""The worker process: everything a Temporal worker needs around the agent's workflow and
activities, and nothing the agent core or the workflow depend on.

build            `build_worker` (what it registers, how it polls) and `build_id` (the code's hash)
client           `connect`: the one client factory, with the lab's converter
converter        the data converter: Pydantic payloads, large ones kept as artifacts
temporal_config  how a client reaches Temporal (envconfig: address, namespace, TLS, API key)
settings         the worker's own settings (grace, logs, traces, deployment, metrics ports)
deployment       Worker Deployment Versioning: a deployment's version, made current
shutdown         SIGTERM/SIGINT: running activities finish within a grace, then hand over
logs             log records that name their run, step and tool; text or JSON lines
metrics          the lab's Prometheus metrics beside the SDK's
tracing          OpenTelemetry spans per run, step and activity
workflow_runner  the workflow sandbox, entered once per task rather than once per payload

`worker.py` at the project's root is the entry point: `python worker.py`.
"""
