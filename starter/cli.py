"""`python -m starter`: run either runtime on a task, fork a durable run from a step and diff
two runs, compare them in experiments, answer a run's approvals, read its ledger, check its
invariants, check a policy, try the sandbox, and serve the Temporal Web UI or the operations
service."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tomllib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import NoReturn

import settings
from agent.sandbox.selection import BACKENDS
from contracts import PolicyProfile
from contracts.errors import BadInput, InfrastructureError, StarterError
from lab.catalog import list_tasks, load_task
from starter.arg_types import identifier, non_negative_int, port, positive_float, positive_int

# Each command imports what it runs when it runs: Temporal's client, the activities and
# matplotlib take seconds to load, and `tasks`, `policy check` or a mistyped flag need none of it.

DEFAULT_TASK = "rename-refactor"

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m starter", description=__doc__)
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="run an agent on a task, durable or baseline")
    run.add_argument(
        "--runtime",
        choices=["durable", "baseline"],
        default="durable",
        help="durable: a Temporal workflow; baseline: the plain asyncio loop (default: durable)",
    )
    run.add_argument("--task", default=DEFAULT_TASK, help=f"task id or task directory (default: {DEFAULT_TASK})")
    run.add_argument("--max-steps", type=positive_int, help="run step budget (default: the task's)")
    run.add_argument("--no-worker", action="store_true", help="durable: submit and wait; workers run elsewhere")
    run.add_argument(
        "--parallel-subtasks", action="store_true", help="durable: independent plan tasks as child workflows"
    )
    run.add_argument("--keep-server", action="store_true", help="leave an embedded dev server running afterwards")
    run.add_argument(
        "--provider",
        choices=["scripted", "openai", "local"],
        default="scripted",
        help="scripted: the task's script.yaml; openai: an OpenAI-compatible server; "
        "local: llama.cpp on this machine (default: scripted)",
    )
    run.add_argument(
        "--model",
        help="openai: the model name (or OPENAI_MODEL); local: smollm2, qwen (default), qwen15 or a GGUF path",
    )
    run.add_argument(
        "--base-url",
        help="openai: an OpenAI-compatible server (or OPENAI_BASE_URL); local: a llama.cpp server already "
        "running (compose's model service, http://HOST:8000/v1) instead of starting one",
    )
    run.add_argument("--api-key", help="openai: the key, for this process's workers only (or OPENAI_API_KEY)")
    run.add_argument("--seed", type=int, default=0, help="the model's sampling seed (default 0)")
    run.add_argument(
        "--trial-id",
        type=identifier,
        help="act on this trial's world (workspace, service tenant): a rerun after a crash, as a user would",
    )

    fork = commands.add_parser(
        "fork", help="a new durable run: RUN up to step K, then live (another provider or script)"
    )
    fork.add_argument("run", type=identifier, help="the durable run (workflow id) to fork")
    fork.add_argument("--from-step", type=non_negative_int, required=True, help="the last step taken from RUN's record")
    fork.add_argument("--provider", choices=["scripted", "openai", "local"], help="from step K+1 (default: RUN's)")
    fork.add_argument("--model", help="as for `run`")
    fork.add_argument("--base-url", help="as for `run`")
    fork.add_argument("--api-key", help="as for `run`")
    fork.add_argument("--seed", type=int, default=0, help="the model's sampling seed (default 0)")
    fork.add_argument("--script", type=Path, help="scripted: this script instead of the task's")
    fork.add_argument("--keep-server", action="store_true", help="leave an embedded dev server running afterwards")

    diff = commands.add_parser("diff", help="where two runs diverge (a fork and its parent, say), and how each ended")
    diff.add_argument("run_a", type=identifier, help="a run id")
    diff.add_argument("run_b", type=identifier, help="another run of the same task")

    commands.add_parser("tasks", help="list the benchmark tasks, one per line, id first")

    policy = commands.add_parser("policy", help="check proposals against the verifier's policy")
    policy_commands = policy.add_subparsers(dest="policy_command", required=True, parser_class=_Parser)
    check = policy_commands.add_parser("check", help="one JSON proposal per line in, one JSON verdict per line out")
    check.add_argument("file", type=Path, help='JSONL: {"tool": ..., "arguments": {...}} per line')
    check.add_argument(
        "--profile",
        choices=[p.value for p in PolicyProfile],
        default=PolicyProfile.DEVELOPER.value,
        help=f"what may run without a person's approval (default: {PolicyProfile.DEVELOPER.value})",
    )
    check.add_argument("--workspace", type=Path, help="resolve paths against this directory (default: an empty one)")

    sandbox = commands.add_parser("sandbox", help="run a command in the sandbox as an agent's tool would")
    sandbox_commands = sandbox.add_subparsers(dest="sandbox_command", required=True, parser_class=_Parser)
    execute = sandbox_commands.add_parser("exec", help="run one command: sandbox exec --workspace DIR -- CMD ...")
    execute.add_argument("--backend", choices=list(BACKENDS), default=None, help="default: AGENT_LAB_SANDBOX or auto")
    execute.add_argument(
        "--workspace", type=Path, required=True, help="the directory the command sees as /workspace (writable)"
    )
    execute.add_argument("--timeout", type=positive_float, default=60.0, help="seconds (default 60)")
    execute.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")

    commands.add_parser("pending", help="runs waiting for a person's approval")
    approve = commands.add_parser("approve", help="approve the proposal a run waits on")
    approve.add_argument("workflow_id", help="the run's workflow id, as `run` and `pending` print it")
    approve.add_argument("--approver", help="who approves (default: AGENT_LAB_APPROVER or the login name)")
    approve.add_argument("--sha256", help="the proposal's arguments digest, as `pending` shows it (checked)")
    approve.add_argument("--expires-in", help="the approval lapses after this long, e.g. 30m, 2h, 3d")
    deny = commands.add_parser("deny", help="deny the proposal a run waits on; the reason goes to the model")
    deny.add_argument("workflow_id", help="the run's workflow id, as `run` and `pending` print it")
    deny.add_argument("--reason", required=True, help="why: the model reads it as feedback on its proposal")
    deny.add_argument("--approver", help="who denies (default: AGENT_LAB_APPROVER or the login name)")

    ledger = commands.add_parser("ledger", help="a run's hash-chained ledger")
    ledger_commands = ledger.add_subparsers(dest="ledger_command", required=True, parser_class=_Parser)
    verify = ledger_commands.add_parser("verify", help="check a run's chain: exit 0 when it holds")
    verify.add_argument("run", help="run id (workflow id) or path to a ledger .jsonl")
    replay = commands.add_parser("replay", help="a readable trace of a run's ledger")
    replay.add_argument("run", help="run id (workflow id) or path to a ledger .jsonl")

    invariants = commands.add_parser("check", help="check a run's invariants over its ledger and Temporal history")
    invariants.add_argument("run", nargs="?", help="run id (workflow id) or path to a ledger .jsonl")
    invariants.add_argument("--history", type=Path, help="the run's history file (`temporal workflow show -o json`)")
    invariants.add_argument("--all", action="store_true", help="every run with a ledger under the data directory")

    experiment = commands.add_parser("experiment", help="run an experiment, or show its report")
    experiment_commands = experiment.add_subparsers(dest="experiment_command", required=True, parser_class=_Parser)
    run_experiment = experiment_commands.add_parser("run", help="every trial of a config, then a report")
    run_experiment.add_argument("--config", type=Path, required=True, help="experiments/configs/NAME.yaml")
    run_experiment.add_argument("--concurrency", type=positive_int, help="trials at once (default: the config's)")
    report = experiment_commands.add_parser("report", help="print an experiment's tables (default: the latest)")
    report.add_argument(
        "--run-id", help="an experiment id (a directory of data/reports/) or the path of its report directory"
    )
    report.add_argument(
        "--rewrite", action="store_true", help="draw report.md and the plots again from results.json and trials.jsonl"
    )

    server = commands.add_parser("server", help="serve the embedded dev server and its Web UI over the run history")
    server.add_argument(
        "--port", type=positive_int, default=None, help="gRPC port (default: AGENT_LAB_DEV_PORT or 7233)"
    )
    server.add_argument(
        "--ui-port", type=positive_int, default=None, help="Web UI port (default: AGENT_LAB_UI_PORT or 8233)"
    )
    ops = commands.add_parser(
        "ops-service", help="serve the operations service (payments, tickets, accounts) for workers elsewhere"
    )
    ops.add_argument("--port", type=port, default=None, help="port on 127.0.0.1, 0 for any free one (default: 7280)")
    ops.add_argument(
        "--db", type=Path, default=None, help="SQLite file of every tenant's state (default: data/ops/service.sqlite)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "tasks":
            return _tasks()
        if args.command == "policy":
            from starter.policy_command import policy_check

            return policy_check(args.file, PolicyProfile(args.profile), args.workspace)
        if args.command == "sandbox":
            from starter.sandbox_command import sandbox_exec

            command = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
            return asyncio.run(sandbox_exec(args.backend, args.workspace, command, args.timeout))
        if args.command in ("pending", "approve", "deny"):
            return asyncio.run(_approvals(args))
        if args.command == "experiment":
            from starter.experiment_command import experiment_report, experiment_run

            if args.experiment_command == "run":
                return asyncio.run(experiment_run(args.config, args.concurrency))
            return experiment_report(args.run_id, rewrite=args.rewrite)
        if args.command in ("ledger", "replay"):
            from starter.ledger_command import ledger_verify, replay

            return ledger_verify(args.run) if args.command == "ledger" else replay(args.run)
        if args.command == "check":
            from starter.check_command import check_command

            return asyncio.run(check_command(args.run, args.history, every=args.all))
        if args.command == "ops-service":
            from starter.ops_service import service_db_path
            from starter.ops_service_command import DEFAULT_PORT, ops_service

            return ops_service(DEFAULT_PORT if args.port is None else args.port, args.db or service_db_path())
        if args.command == "server":
            from starter.server_command import serve

            return asyncio.run(
                serve(args.port or settings.dev_server_port(), args.ui_port or settings.dev_server_ui_port())
            )
        if args.command == "diff":
            from starter.diff_command import diff_command

            return diff_command(args.run_a, args.run_b)
        if args.command == "fork":
            return asyncio.run(_fork(args))
        return asyncio.run(_run(args))
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InfrastructureError as error:  # the lab's own machinery broke: not the input's fault
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


async def _approvals(args: argparse.Namespace) -> int:
    from starter import approvals_command as approvals
    from starter.connection import temporal_connection

    async with temporal_connection(embed=False) as connection:
        if args.command == "pending":
            return await approvals.pending(connection.client)
        if args.command == "approve":
            return await approvals.approve(
                connection.client, args.workflow_id, args.approver, args.sha256, args.expires_in
            )
        return await approvals.deny(connection.client, args.workflow_id, args.approver, args.reason)


def _tasks() -> int:
    for task in list_tasks():
        tags = f"  [{', '.join(task.spec.tags)}]" if task.spec.tags else ""
        print(f"{task.spec.id}\t{task.spec.title}{tags}")
    return EXIT_OK


async def _run(args: argparse.Namespace) -> int:
    task = load_task(args.task)  # first: a mistyped task id or a broken script is told before anything heavy loads
    if args.parallel_subtasks and args.runtime != "durable":
        raise StarterError("--parallel-subtasks runs subtasks as child workflows: only with --runtime durable")
    if args.provider == "scripted":
        task.require_script()
    if args.runtime == "durable":
        from host import temporal_config

        temporal_config.load()  # a bad profile or certificate is told before a model or service starts
    from lab.providers import ProviderChoice
    from lab.run_request import build_request
    from starter.run_command import run_task

    choice = ProviderChoice.resolve(args.provider, args.model, args.base_url, args.api_key, args.seed)
    options = {"max_steps": args.max_steps, "trial_id": args.trial_id, "parallel_subtasks": args.parallel_subtasks}
    return await run_task(
        task,
        lambda provider: build_request(task, args.runtime, provider=provider, **options),
        choice,
        keep_server=args.keep_server,
        with_worker=not args.no_worker,
    )


async def _fork(args: argparse.Namespace) -> int:
    from lab.providers import ProviderChoice
    from starter.fork_command import fork_command

    if args.script is not None and not args.script.is_file():
        raise StarterError(f"--script {args.script}: no such file")
    if args.script is not None and args.provider not in (None, "scripted"):
        raise StarterError("--script goes with the scripted provider")
    choice = None
    if args.provider is not None and args.script is None:
        choice = ProviderChoice.resolve(args.provider, args.model, args.base_url, args.api_key, args.seed)
    return await fork_command(args.run, args.from_step, choice, args.script, keep_server=args.keep_server)


def _version() -> str:
    """This checkout's version (pyproject.toml) and the Temporal SDK's, read without importing it."""
    with (settings.PROJECT_ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    sdk = metadata.version("temporalio")
    return f"{project['name']} {project['version']} (temporalio {sdk}, Python {sys.version.split()[0]})"
