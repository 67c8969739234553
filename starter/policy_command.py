"""`python -m starter policy check FILE.jsonl`: the verifier on proposals, for tuning a policy.

One proposal per line, the JSON a model produces ({"tool": ..., "arguments": {...}}); one JSON
verdict per line out. A line that is not a proposal gets an `invalid` line naming the problem,
the others are still checked, and the exit code is then 2.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from agent.verification import verify
from contracts import ActionProposal, PolicyProfile
from contracts.errors import StarterError
from contracts.problems import in_one_line

EXIT_OK, EXIT_INVALID_LINES = 0, 2


def policy_check(path: Path, profile: PolicyProfile, workspace: Path | None) -> int:
    lines = _read_lines(path)
    invalid = 0
    with tempfile.TemporaryDirectory(prefix="policy-workspace-") as scratch:
        root = workspace or Path(scratch)
        for number, line in lines:
            try:
                proposal = ActionProposal.model_validate_json(line)
            except ValidationError as error:
                invalid += 1
                print(json.dumps({"line": number, "decision": "invalid", "error": in_one_line(error)}), flush=True)
                continue
            verdict = verify(root, proposal, profile)
            shown = {"line": number, "tool": proposal.tool, **verdict.model_dump(mode="json")}
            print(json.dumps(shown), flush=True)
    return EXIT_INVALID_LINES if invalid else EXIT_OK


def _read_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise StarterError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise StarterError(f"{path} is not UTF-8 text") from None
    return ((number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip())
