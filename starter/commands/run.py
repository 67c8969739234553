"""`python -m starter run`: one task, either runtime."""

from __future__ import annotations

import argparse
import asyncio

from contracts.errors import StarterError
from lab.runs.catalog import load_task
from starter.arg_types import identifier, positive_int

DEFAULT_TASK = "rename-refactor"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        "--parallel-subtasks", action="store_true", help="durable: independent subtasks as child workflows"
    )
    run.add_argument(
        "--no-approval",
        action="store_true",
        help="baseline: run a call that needs a person's approval unasked (by default you are asked on "
        "this terminal, and refused without one); each such call counts as an unapproved effect and fails the run",
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
    run.set_defaults(handler=lambda args: asyncio.run(_run(args)))


async def _run(args: argparse.Namespace) -> int:
    task = load_task(args.task)  # first: a mistyped task id or a broken script is told before anything heavy loads
    if args.parallel_subtasks and args.runtime != "durable":
        raise StarterError("--parallel-subtasks runs subtasks as child workflows: only with --runtime durable")
    if args.no_approval and args.runtime != "baseline":
        raise StarterError("--no-approval is the baseline's: a durable run always waits for a person's approval")
    if args.provider == "scripted":
        task.require_script()
    if args.runtime == "durable":
        from host import temporal_config

        temporal_config.load()  # a bad profile or certificate is told before a model or service starts
    from lab.models.providers import ProviderChoice
    from lab.runs.run_request import build_request
    from starter.run_command import run_task

    choice = ProviderChoice.resolve(args.provider, args.model, args.base_url, args.api_key, args.seed)
    options = {"max_steps": args.max_steps, "trial_id": args.trial_id, "parallel_subtasks": args.parallel_subtasks}
    return await run_task(
        task,
        lambda provider: build_request(task, args.runtime, provider=provider, **options),
        choice,
        keep_server=args.keep_server,
        with_worker=not args.no_worker,
        ask_approval=not args.no_approval,
    )
