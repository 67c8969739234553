"""`python -m starter policy check FILE.jsonl`: the verifier on proposals, a verdict a line."""

from __future__ import annotations

import argparse
from pathlib import Path

from contracts import PolicyProfile


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    policy = commands.add_parser("policy", help="check proposals against the verifier's policy")
    policy_commands = policy.add_subparsers(dest="policy_command", required=True)
    check = policy_commands.add_parser("check", help="one JSON proposal per line in, one JSON verdict per line out")
    check.add_argument("file", type=Path, help='JSONL: {"tool": ..., "arguments": {...}} per line')
    check.add_argument(
        "--profile",
        choices=[p.value for p in PolicyProfile],
        default=PolicyProfile.DEVELOPER.value,
        help=f"what may run without a person's approval (default: {PolicyProfile.DEVELOPER.value})",
    )
    check.add_argument("--workspace", type=Path, help="resolve paths against this directory (default: an empty one)")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from starter.policy_command import policy_check

    return policy_check(args.file, PolicyProfile(args.profile), args.workspace)
