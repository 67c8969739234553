"""The text of a name badge."""

from __future__ import annotations

from roster.members import Member


def badge(member: Member) -> str:
    return f"{member.name} ({member.team})"
