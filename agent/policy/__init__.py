"""The command policy: a shell command, parsed for real, checked against rules.

`check_command` returns None for an acceptable command, or the most serious `Finding`.
"""

from agent.policy.check import check_command
from agent.policy.findings import Finding

__all__ = ["Finding", "check_command"]
