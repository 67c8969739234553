"""The model server's entry point leaves at once when the process that started it is gone,
instead of finishing a completion nobody will read (uvicorn's graceful shutdown waits for it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from settings import PROJECT_ROOT

# A parent that starts a child, waits until it watches, prints its pid and dies; the child, as the
# server's entry point does, watches its parent and otherwise would sleep for a minute (a
# completion in progress).
_PARENT = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
child.stdout.readline()
print(child.pid, flush=True)
"""
_CHILD = """
import sys, time
sys.path.insert(0, {lab!r})
from llama_entry import leave_with_parent
leave_with_parent(poll_s=0.05)
print("watching", flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_server_entry_leaves_when_its_parent_is_gone() -> None:
    child = _CHILD.format(lab=str(PROJECT_ROOT / "lab" / "models"))
    started = subprocess.run([sys.executable, "-c", _PARENT, child], capture_output=True, text=True, timeout=30)
    pid = int(started.stdout.strip())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):  # the test fails, but leaves nothing running
        os.kill(pid, 9)
        raise AssertionError("the child outlived its parent by 10 s")
