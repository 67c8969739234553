"""The deployment files (docker-compose.yml, Dockerfile, .env.example, .dockerignore) agree
with the code: the services are there and wait for each other the right way, the ports are
the ones the code defaults to, every variable compose substitutes is in the example file,
every environment name given to the lab's own services is one the code reads, and the image
runs the worker the way the README does. No Docker engine here: the files are read, not run.
"""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from typing import Any

import pytest
import yaml

import settings
from agent.policy.secrets import is_secret_variable
from host import settings as host_settings
from lab.models.llama_server import LOCAL_CONTEXT_TOKENS, MODEL_ALIAS
from ops_service.server import HOST as OPS_HOST
from starter.cli import build_parser
from starter.ops_service_command import DEFAULT_PORT as OPS_PORT
from tests.test_layers import SOURCE as LAB_SOURCE

ROOT = settings.PROJECT_ROOT
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
OPERATIONS_DOC = ROOT / "docs" / "operations.md"

SERVICES = {
    "postgresql", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui", "ops", "worker", "model",
    "prometheus", "grafana",
}  # fmt: skip
PROMETHEUS_CONFIG = ROOT / "deploy" / "prometheus.yml"
GRAFANA_PROVISIONING = ROOT / "deploy" / "grafana" / "provisioning"
# The services that run the lab's own code: every environment name they get must be read by it.
LAB_SERVICES = ("ops", "worker", "model")
WAIT_CONDITIONS = {"service_healthy", "service_completed_successfully"}
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?message}, ${NAME?message}; `$$` is a literal `$`.
SUBSTITUTION = re.compile(r"(?<!\$)\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<op>:?[-?])?(?P<arg>[^}]*)\}")
BARE_SUBSTITUTION = re.compile(r"(?<!\$)\$(?=[A-Za-z_])")
QUOTED_NAME = re.compile(r"[\"']([A-Z][A-Z0-9_]*)[\"']")


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def services() -> dict[str, dict[str, Any]]:
    return compose()["services"]


def environment(service: str) -> dict[str, str]:
    env = services()[service].get("environment", {})
    if isinstance(env, list):  # the KEY=VALUE form
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def strings(node: object) -> list[str]:
    """Every string in the parsed file (keys and values), so comments are left out."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in (*strings(key), *strings(value))]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return []


def env_example() -> dict[str, str]:
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, sep, value = line.partition("=")
            assert sep, f".env.example: not KEY=VALUE: {line!r}"
            values[key.strip()] = value.strip()
    return values


def published(service: str) -> list[tuple[str, int, int]]:
    """(host address, host port, container port) for each of a service's published ports."""
    out = []
    for port in services()[service].get("ports", []):
        text = str(port)
        host_ip, host, container = text.rsplit(":", 2) if text.count(":") == 2 else ("", *text.split(":"))
        out.append((host_ip, int(host), int(container)))
    return out


def flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


# Read by the OpenTelemetry exporter (host/tracing.py): the standard OTLP variables.
OTEL_NAMES = frozenset({"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT"})

# Read by the SDK's envconfig (in its Rust core, so not in any Python source), through which
# the lab connects (host/temporal_config.py): Temporal's documented standard variables.
TEMPORAL_ENVCONFIG = frozenset(
    {
        "TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_API_KEY", "TEMPORAL_TLS", "TEMPORAL_TLS_CLIENT_CERT_PATH",
        "TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "TEMPORAL_TLS_SERVER_NAME",
        "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION", "TEMPORAL_PROFILE", "TEMPORAL_CONFIG_FILE",
    }
)  # fmt: skip


@cache
def source_names() -> frozenset[str]:
    """Every quoted upper-case name in the lab's own Python code: what it can read from the
    environment (`os.environ.get("AGENT_LAB_DATA")`, `api_key_env = "OPENAI_API_KEY"`)."""
    # The same files the layer contracts and the line cap cover (the agent's task fixtures aside).
    found: set[str] = set()
    for path in LAB_SOURCE:
        found.update(QUOTED_NAME.findall(path.read_text()))
    return frozenset(found)


def dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """Each stage's instructions as (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n(\s*#[^\n]*\n)*", " ", DOCKERFILE.read_text())
    stages: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        instruction, _, arguments = line.strip().partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            match = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", arguments.strip(), re.IGNORECASE)
            assert match, f"Dockerfile: unreadable FROM {arguments!r}"
            current = stages.setdefault(match.group(2) or match.group(1), [])
        current.append((instruction, arguments.strip()))
    return stages


def readme_command(script: str) -> str:
    """The command the README runs `script` with, as typed (its trailing comment left out)."""
    readme = (ROOT / "README.md").read_text()
    found = re.findall(rf"^(\S[^\n#]*?{re.escape(script)})\s+#", readme, re.MULTILINE)
    assert found, f"the README runs no `{script}`"
    assert len(set(found)) == 1, f"the README runs {script} more than one way: {found}"
    return found[0]


def test_the_compose_file_has_every_service_and_pinned_images() -> None:
    assert set(services()) == SERVICES
    for name, service in services().items():
        if "image" in service:
            image, _, tag = service["image"].rpartition(":")
            assert image and re.fullmatch(r"v?[0-9][\w.-]*", tag), f"{name}: image {service['image']!r} is not pinned"
        else:
            assert service["build"]["context"] == ".", name
            assert service["build"]["target"] in dockerfile_stages(), f"{name}: no Dockerfile stage to build"
    assert services()["temporal"]["image"].startswith("temporalio/server:")
    assert services()["temporal-schema"]["image"].startswith("temporalio/admin-tools:")
    assert services()["temporal-ui"]["image"].startswith("temporalio/ui:")
    # The server and the tool that set up its schemas belong to the same release.
    assert services()["temporal"]["image"].split(":")[1] == services()["temporal-schema"]["image"].split(":")[1]


def test_every_dependency_exists_and_is_waited_for_healthy_or_done() -> None:
    one_shot = set()
    for name, service in services().items():
        depends_on = service.get("depends_on", {})
        # The list form waits for nothing: a service would start before its dependencies answer.
        assert isinstance(depends_on, dict), f"{name}: depends_on without conditions"
        for dependency, how in depends_on.items():
            assert dependency in services(), f"{name} depends on {dependency!r}, which is not a service"
            assert how.get("condition") in WAIT_CONDITIONS, f"{name} waits for {dependency} with {how}"
            if how["condition"] == "service_healthy":
                assert services()[dependency].get("healthcheck", {}).get("test"), (
                    f"{name} waits for {dependency} to be healthy, and it has no healthcheck"
                )
            else:
                one_shot.add(dependency)
    for name in one_shot:
        # A job that ends: restarting it would rerun it forever and never be "completed".
        assert services()[name].get("restart", "no") == "no", f"{name} is a one-shot job and must not restart"
    for name, service in services().items():
        if name not in one_shot:
            assert service.get("healthcheck", {}).get("test"), f"{name} runs for good and has no healthcheck"
    assert services()["worker"]["depends_on"]["temporal-namespace"]["condition"] == "service_completed_successfully"


def test_ports_are_distinct_on_loopback_and_the_ones_the_code_defaults_to(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TEMPORAL_ADDRESS", "TEMPORAL_UI_URL", "AGENT_LAB_DEV_PORT", "AGENT_LAB_UI_PORT"):
        monkeypatch.delenv(name, raising=False)
    every = [(name, *port) for name in services() for port in published(name)]
    host_ports = [host for _, _, host, _ in every]
    assert len(host_ports) == len(set(host_ports)), f"two services publish the same host port: {every}"
    for name, host_ip, host, _ in every:
        # Nothing here authenticates (no TLS, no API key yet): only this machine may connect.
        assert host_ip == "127.0.0.1", f"{name} publishes port {host} on every interface"

    worker = environment("worker")
    [(_, temporal_host, temporal_container)] = published("temporal")
    assert temporal_host == settings.dev_server_port() == 7233  # the starter on this machine finds it by default
    assert worker["TEMPORAL_ADDRESS"] == f"temporal:{temporal_container}"
    [(_, ui_host, ui_container)] = published("temporal-ui")
    assert ui_container == 8080  # where temporalio/ui listens
    assert f"http://localhost:{ui_host}" == settings.temporal_ui_url() == worker["TEMPORAL_UI_URL"]

    # The operations service listens on loopback only, so it publishes nothing and the workers
    # share its network namespace to reach it at the URL its command gives.
    ops_command = services()["ops"]["command"]
    assert OPS_HOST == "127.0.0.1" and not published("ops")
    assert int(flag(ops_command, "--port")) == OPS_PORT
    assert worker["AGENT_LAB_OPS_URL"] == f"http://{OPS_HOST}:{OPS_PORT}"
    assert services()["worker"]["network_mode"] == "service:ops"

    # The model server is started as lab/models/llama_server.py starts it, on the port it publishes.
    model = services()["model"]["command"]
    [(_, _, model_container)] = published("model")
    assert int(flag(model, "--port")) == model_container
    assert flag(model, "--model_alias") == MODEL_ALIAS
    assert int(flag(model, "--n_ctx")) == LOCAL_CONTEXT_TOKENS
    assert model[:2] == ["python", "lab/models/llama_entry.py"]


def test_prometheus_scrapes_every_port_a_worker_may_take_and_grafana_shows_the_dashboard() -> None:
    """The workers take the first free port of AGENT_LAB_METRICS_PORT's range in the operations
    service's network namespace: Prometheus must scrape each port of it there, and Grafana
    must load the dashboard from the Prometheus it provisions."""
    ports = host_settings.metrics_ports(environment("worker")["AGENT_LAB_METRICS_PORT"])
    assert ports is not None and len(ports) >= int(env_example()["WORKER_REPLICAS"])
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    [job] = config["scrape_configs"]
    targets = [target for group in job["static_configs"] for target in group["targets"]]
    assert targets == [f"ops:{port}" for port in ports]
    assert "./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in services()["prometheus"]["volumes"]

    [datasource] = yaml.safe_load((GRAFANA_PROVISIONING / "datasources" / "prometheus.yml").read_text())["datasources"]
    [(_, _, prometheus_port)] = published("prometheus")
    assert datasource["url"] == f"http://prometheus:{prometheus_port}" and datasource["type"] == "prometheus"
    [provider] = yaml.safe_load((GRAFANA_PROVISIONING / "dashboards" / "agent-lab.yml").read_text())["providers"]
    mounted = {volume.split(":")[1]: volume.split(":")[0] for volume in services()["grafana"]["volumes"]}
    dashboard = mounted[f"{provider['options']['path']}/agent-lab.json"]
    assert dashboard == "./deploy/grafana-dashboard.json" and (ROOT / dashboard).is_file()
    assert mounted["/etc/grafana/provisioning"] == "./deploy/grafana/provisioning"
    # Traces: the worker image carries the exporter the `otlp` setting needs.
    assert "--extra otel" in " ".join(arguments for _, arguments in dockerfile_stages()["worker"])


def test_every_substituted_variable_is_in_the_example_and_has_a_default_or_a_message() -> None:
    defined = env_example()
    used = set()
    for text in strings(compose()):
        assert not BARE_SUBSTITUTION.search(text), f"use ${{NAME...}} (or $$ for the container's shell): {text!r}"
        for match in SUBSTITUTION.finditer(text):
            name, op, arg = match["name"], match["op"], match["arg"]
            used.add(name)
            assert name in defined, f"{name} is used by docker-compose.yml and missing from .env.example"
            assert op, f"${{{name}}} has neither a default nor a message: a missing value would be an empty string"
            if "?" in op:
                assert arg.strip(), f"${{{name}{op}}} says nothing about what to set"
    assert used == set(defined), f".env.example defines what compose never uses: {sorted(set(defined) - used)}"
    required = {m["name"] for text in strings(compose()) for m in SUBSTITUTION.finditer(text) if "?" in (m["op"] or "")}
    assert {"POSTGRES_USER", "POSTGRES_PASSWORD"} <= required


def test_every_environment_name_given_to_the_lab_is_one_its_code_reads() -> None:
    assert "AGENT_LAB_OPS_URL" in source_names() and "NOT_A_LAB_VARIABLE" not in source_names()
    for service in LAB_SERVICES:
        for name in environment(service):
            known = source_names() | TEMPORAL_ENVCONFIG | OTEL_NAMES
            assert name in known, f"{service}: {name} is read nowhere in the lab's code (misspelt?)"
    # The data directory the code is told is the one every lab service mounts, shared.
    for service in ("ops", "worker"):
        data = environment(service)["AGENT_LAB_DATA"]
        assert f"${{AGENT_LAB_DATA_VOLUME:-lab-data}}:{data}" in services()[service]["volumes"], service
    assert "postgres-data:/var/lib/postgresql/data" in services()["postgresql"]["volumes"]
    assert {"postgres-data", "lab-data"} <= set(compose()["volumes"])
    assert env_example()["AGENT_LAB_DATA_VOLUME"] == "lab-data"  # the named volume unless told


def test_the_image_runs_the_worker_as_the_readme_does_and_not_as_root() -> None:
    stages = dockerfile_stages()
    assert list(stages)[-1] == "worker", "the worker is the default target (the last stage)"
    for name, instructions in stages.items():
        commands = [args for instruction, args in instructions if instruction == "CMD"]
        if not commands:
            continue
        users = [args for instruction, args in instructions if instruction == "USER"]
        assert users and users[-1].split(":")[0] not in ("root", "0"), f"stage {name} runs as root"
    worker = dict(stages["worker"])
    assert " ".join(json.loads(worker["CMD"])) == readme_command("worker.py")
    assert "ENTRYPOINT" not in worker
    assert "command" not in services()["worker"] and "entrypoint" not in services()["worker"]
    # The operations service starts as the README starts it, with its port made explicit.
    assert services()["ops"]["command"][:6] == shlex.split(readme_command("starter ops-service"))

    [uv] = [args for instruction, args in stages["uv"] if instruction == "FROM"]
    assert re.fullmatch(r"ghcr\.io/astral-sh/uv:\d+\.\d+\.\d+ AS uv", uv), uv
    syncs = [args for instruction, args in stages["worker"] if instruction == "RUN" and "uv sync" in args]
    assert syncs and all("--frozen" in args and "--no-dev" in args for args in syncs)


def test_the_env_example_holds_no_secret_and_the_image_never_takes_one() -> None:
    for key, value in env_example().items():
        if is_secret_variable(key):
            assert value == "", f".env.example gives {key} a value: secrets belong in .env only"
        assert not re.search(r"sk-[A-Za-z0-9]{8,}|[A-Za-z0-9+/]{32,}", value), f"{key} looks like a secret"
    ignored = {line.strip().rstrip("/") for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {".venv", "data", ".git", ".env"} <= ignored


def test_the_starter_commands_in_the_operations_doc_exist() -> None:
    parser = build_parser()
    text = re.sub(r"\\\n\s*", " ", OPERATIONS_DOC.read_text())  # continued lines joined
    commands = re.findall(r"python -m starter ([^\n`#|]*)", text)
    assert any("--no-worker" in command for command in commands)
    for command in commands:
        argv = [word for word in shlex.split(command) if word != "..."]
        try:
            parser.parse_args(argv)
        except SystemExit as error:
            raise AssertionError(f"docs/operations.md: `python -m starter {command.strip()}` does not parse") from error
