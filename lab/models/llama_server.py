"""The llama.cpp server (llama-cpp-python) for the local provider, started and stopped by the
starter the way it manages the Temporal dev server: on loopback, a free port, dying with it."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from agent.providers.prompts import agent_system
from agent.tools.registry import tool_specs
from contracts import ProviderConfig
from contracts.errors import StarterError
from lab.models.local_model import LocalModel
from lab.processes.child_process import die_with_parent
from settings import data_dir

MODEL_ALIAS = "local"

log = logging.getLogger(__name__)


# The context the local server gives its model; prompts are cut to fit it.
LOCAL_CONTEXT_TOKENS = 4096


def local_provider_config(model: LocalModel, base_url: str, seed: int) -> ProviderConfig:
    """How the lab's OpenAI provider talks to a model served by `llama_server`: the schema in
    llama.cpp's `json_object` mode, the weights' digest and the seed recorded, prompts cut
    to the server's context."""
    return ProviderConfig(
        kind="openai",
        model=MODEL_ALIAS,
        base_url=base_url,
        structured_output="json_object",
        model_sha256=model.sha256,
        seed=seed,
        context_tokens=LOCAL_CONTEXT_TOKENS,
    )


def served_provider_config(base_url: str, seed: int) -> ProviderConfig:
    """The same, for a llama.cpp server started as this module starts one but elsewhere
    (compose's `model` service): which weights it serves is its own, so no digest is recorded."""
    return ProviderConfig(
        kind="openai",
        model=MODEL_ALIAS,
        base_url=base_url,
        structured_output="json_object",
        seed=seed,
        context_tokens=LOCAL_CONTEXT_TOKENS,
    )


@contextlib.asynccontextmanager
async def llama_server(
    model: LocalModel, *, context: int = LOCAL_CONTEXT_TOKENS, threads: int = 2
) -> AsyncIterator[str]:
    """Yields the server's OpenAI-compatible base URL while it runs."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise StarterError(
            'the local provider needs the llama.cpp server: CMAKE_ARGS="-DLLAVA_BUILD=OFF" uv sync --extra local'
        )
    port = _free_port()
    log_path = server_log_path()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        # `python -m llama_cpp.server`, kept off AMX buffers in an AMX build (lab/models/llama_entry.py).
        sys.executable, str(Path(__file__).with_name("llama_entry.py")),
        "--model", str(model.path),
        "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(context),
        "--n_threads", str(threads),
        # Not `--cache` (saved prompt states restored by longest prefix): each state it keeps
        # holds the logits of every position (4,096 x 151,936 floats for Qwen, ~2.4 GB) beyond
        # the size it accounts for, and the server grew to 23 GB and was OOM-killed mid-run.
    ]  # fmt: skip
    with log_path.open("ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log, preexec_fn=die_with_parent)
    base_url = f"http://127.0.0.1:{port}/v1"
    _serving[base_url] = process
    try:
        await _wait_ready(process, base_url, log_path)
        yield base_url
    finally:
        _serving.pop(base_url, None)
        process.terminate()
        try:
            await asyncio.to_thread(process.wait, 10)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)


async def _wait_ready(process: subprocess.Popen[bytes], base_url: str, log_path: Path, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(timeout=2) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise StarterError(f"the llama.cpp server exited at start (code {process.returncode}); see {log_path}")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"{base_url}/models")).status_code == 200:
                    return
            await asyncio.sleep(0.2)
    raise StarterError(f"the llama.cpp server did not answer within {timeout_s:.0f} s; see {log_path}")


async def keep_only_the_system_prompt(base_url: str) -> None:
    """Leave the server's prompt cache holding the system message with every tool (each run's
    lists its task's tools, a start shared with this one), and nothing of a task: a trial then
    starts as the first run of its task would, whatever trial ran before it. Without this, a
    trial right after one of the same task found its first prompt already read (in
    small-20261201-113217 the baseline's first call evaluated 18 tokens and baseline+verifier's
    1, where the durable runtime's, after another task, evaluated 189)."""
    request = {
        "model": MODEL_ALIAS,
        "messages": [{"role": "system", "content": agent_system(tool_specs())}],
        "max_tokens": 1,
        "temperature": 0,
    }
    try:
        async with httpx.AsyncClient(timeout=120) as client:
            (await client.post(f"{base_url}/chat/completions", json=request)).raise_for_status()
    except httpx.HTTPError as error:  # the trial's own calls then meet the same server, and say how
        log.warning("could not reset the model server's prompt cache: %s", error)


# The servers this process started and has not stopped, by base URL.
_serving: dict[str, subprocess.Popen[bytes]] = {}


def stopped_server(base_url: str | None) -> str | None:
    """Why the server this process started at `base_url` is no longer there (it exited by itself:
    a crash, the kernel's OOM killer), or None while it runs, or when it is none of ours. Every
    call after that point fails: the lab's failure, not the agent's."""
    process = _serving.get(base_url or "")
    if process is None or (code := process.poll()) is None:
        return None
    how = f"killed by {_signal_name(-code)}" if code < 0 else f"exited with code {code}"
    return f"the local model server {how}; see {server_log_path()}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def server_log_path() -> Path:
    """Where the server writes, appending: what `lab.models.llama_log` reads each call's timings from."""
    return data_dir() / "llama-server.log"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
