"""`python -m standup [--log FILE]`: print the stand-up log."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from standup.log import LOG_PATH, format_entry, read_log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="standup", description="Print the team's stand-up log.")
    parser.add_argument("--log", type=Path, default=LOG_PATH, help="the log file (default: %(default)s)")
    args = parser.parse_args(argv)
    for entry in read_log(args.log):
        print(format_entry(entry))
    return 0


if __name__ == "__main__":
    sys.exit(main())
