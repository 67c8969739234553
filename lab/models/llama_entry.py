"""The llama.cpp server (`python -m llama_cpp.server`), started with two changes its command line
does not offer: no extra weight buffers when llama.cpp was built with AMX, and a schema's grammar
checked on the sampled token instead of over the whole vocabulary (lab/models/llama_sampling.py).

Why: a build for the machine it compiles on (`-march=native`, llama-cpp-python's default) on a
CPU with AMX (Sapphire Rapids and later) repacks the weights into AMX buffers, and its AMX matrix
multiply crashes the server (SIGSEGV) on its first completion: its worker threads run tile
instructions without the per-thread permission the kernel requires (llama.cpp #20824, #26954;
seen here with Qwen2.5-Coder Q4_K_M). Without extra buffers the weights stay in plain CPU
buffers and the AVX2/AVX-512 kernels serve them. A build without AMX is left as it is.

Run as a script, not as a module of the project: it imports nothing but llama_cpp and
`lab.models.llama_sampling` (which imports nothing of the project either).
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import time
from pathlib import Path

AMX_BUILD = "AMX_INT8 = 1"


def keep_weights_off_amx() -> bool:
    """In an AMX build, every model loaded from now on keeps its weights in plain CPU buffers;
    False (and nothing changed) in any other build."""
    import llama_cpp.llama_cpp as native

    if AMX_BUILD not in native.llama_print_system_info().decode(errors="replace"):
        return False
    defaults = native.llama_model_default_params

    def without_extra_buffers() -> native.llama_model_params:
        params = defaults()
        params.use_extra_bufts = False
        return params

    # llama_cpp.Llama takes its model parameters from this function, then sets its own.
    native.llama_model_default_params = without_extra_buffers
    return True


def leave_with_parent(poll_s: float = 0.5) -> threading.Thread:
    """Exit at once when the process that started this one is gone. The lab's own stop, and the
    SIGTERM Linux sends when the parent dies (lab.processes.child_process), both reach uvicorn's graceful
    shutdown, which waits for a completion in progress: up to a minute of both cores, seen here
    after a killed experiment, for an answer nobody will read. A server whose parent died
    serves no one."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(0)

    watcher = threading.Thread(target=watch, name="leave-with-parent", daemon=True)
    watcher.start()
    return watcher


def main() -> None:
    leave_with_parent()
    if keep_weights_off_amx():
        print("llama_entry: an AMX build: weights kept out of AMX buffers (their kernels crash)", flush=True)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project root, above lab/
    from lab.models import llama_sampling

    llama_sampling.install()
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
