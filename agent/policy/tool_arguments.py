"""What a tool's argument schema cannot say about an argument, for the tools other than
`run_command` (whose command the rest of agent.policy reads):

- the search tool's regex is run by Python's backtracking `re` on the worker, so a pattern that
  backtracks without end is refused as a command's `grep -E` pattern is (agent.policy.regex_risk);
- a file tool writes a file: a path that names the workspace root or a directory (`.`, `src/..`,
  `/workspace`, `x/`) is a mistake, told as one (INVALID_ARGUMENTS: the path is inside the
  workspace, so "outside" would send the model looking for the wrong fix); a name that a later
  glob hands to a program as an option is refused (agent.policy.option_files);
- an operations tool sends its text fields to another system: a secret in them is refused
  (agent.policy.secret_text).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from pathlib import Path

from agent.policy.findings import Finding
from agent.policy.option_files import created_option_message, option_like
from agent.policy.regex_risk import catastrophic_part
from agent.policy.secret_text import secret_in_text
from contracts.actions import ReasonCode


def regex_finding(pattern: str) -> Finding | None:
    if (why := catastrophic_part(pattern)) is None:
        return None
    message = (
        f"the search pattern {pattern!r} backtracks without end ({why}): avoid nested or chained repeats, "
        "or search the plain text with regex false"
    )
    return Finding(ReasonCode.RESOURCE_EXHAUSTION, message)


def written_path_finding(tool: str, path: str, target: Path, root: Path) -> Finding | None:
    """A write's path that names no file, or names one like an option. `target` is the path
    resolved in the workspace `root` (agent.tools.paths.resolve_in_workspace)."""
    last = posixpath.basename(path.rstrip("/")) if path.strip("/") else "/"
    if target == root:
        what = "the workspace root itself"
    elif path.endswith("/") or last in (".", ".."):
        what = "a directory"
    elif target.is_dir():
        what = "an existing directory"
    else:
        what = ""
    if what:
        message = f"{tool} writes a file, and {path!r} names {what}: give the path of a file, such as 'notes.md'"
        return Finding(ReasonCode.INVALID_ARGUMENTS, message)
    if (part := option_like(path)) is not None:
        return Finding(ReasonCode.SUSPICIOUS_PATH, created_option_message(f"{tool} would create", path, part))
    return None


def sent_secret_finding(
    tool: str, fields: Mapping[str, object], environ: Mapping[str, str] | None = None
) -> Finding | None:
    """A secret in any text field of a call that leaves the workspace. `environ` defaults to
    this process's environment: the secrets to keep in are the worker's own, wherever the
    model may have seen one."""
    secrets_of = os.environ if environ is None else environ
    texts = {field: value for field, value in fields.items() if isinstance(value, str)}
    # The fields together too: half a secret in the title and half in the body still leaks it.
    texts["text"] = "".join(texts.values())
    for field, value in texts.items():
        if (what := secret_in_text(value, secrets_of)) is not None:
            message = (
                f"the {field} of {tool} carries {what}, and the call sends it out of the workspace: "
                "leave secrets out of it (say which secret is involved, not its value)"
            )
            return Finding(ReasonCode.SECRET_ACCESS, message)
    return None
