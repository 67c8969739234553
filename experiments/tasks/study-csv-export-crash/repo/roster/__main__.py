"""`python -m roster MEMBERS.csv`: one badge a line."""

from __future__ import annotations

import sys
from pathlib import Path

from roster.badges import badge
from roster.members import load_members


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m roster MEMBERS.csv", file=sys.stderr)
        return 2
    for member in load_members(Path(argv[0])):
        print(badge(member))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
