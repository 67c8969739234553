import contextlib
import os
import sys

from starter.cli import main

code = main()
# Leave without interpreter finalization: the Temporal client's native runtime can crash while
# Python tears down (seen as SIGSEGV after a command had finished). Everything is written first.
with contextlib.suppress(OSError, ValueError):
    sys.stdout.flush()
    sys.stderr.flush()
os._exit(code)
