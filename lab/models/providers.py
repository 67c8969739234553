"""Which model a run uses, from CLI flags, then (for experiments) their config, then the
environment: OPENAI_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY. Checked before any run starts.

`--provider local` starts the llama.cpp server for the run and talks to it through the same
OpenAI provider code as any other server; `--provider local --base-url URL` talks to one already
running (compose's `model` service) in the same way, and starts none.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

import httpx

from agent.providers.urls import is_loopback
from contracts import ProviderConfig
from contracts.errors import StarterError
from lab.models.llama_server import llama_server, local_provider_config, served_provider_config
from lab.models.local_model import LocalModel, resolve_model
from lab.runs.catalog import Task
from settings import in_project

ProviderKind = Literal["scripted", "openai", "local"]
API_KEY_ENV = "OPENAI_API_KEY"


@dataclass(frozen=True)
class ProviderChoice:
    kind: ProviderKind = "scripted"
    model: str | None = None
    base_url: str | None = None
    seed: int = 0
    # Given on the command line: handed to this process's workers (starter: the run's
    # Dependencies), never written to its environment nor into a run's input or history.
    api_key: str | None = field(default=None, repr=False)

    @classmethod
    def resolve(
        cls, kind: ProviderKind, model: str | None, base_url: str | None, api_key: str | None, seed: int
    ) -> ProviderChoice:
        if kind == "local" and base_url:
            return cls(kind=kind, model=model, base_url=base_url, seed=seed, api_key=api_key)
        if kind != "openai":
            return cls(kind=kind, model=model, seed=seed, api_key=api_key)
        model = model or os.environ.get("OPENAI_MODEL")
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not model:
            raise StarterError("--provider openai needs a model: --model NAME or OPENAI_MODEL")
        if not (api_key or os.environ.get(API_KEY_ENV)) and not is_loopback(base_url):
            raise StarterError(f"missing API key: set {API_KEY_ENV} (or pass --api-key)")
        return cls(kind=kind, model=model, base_url=base_url, seed=seed, api_key=api_key)

    def api_keys(self) -> dict[str, str]:
        """The key given on the command line, by the name the provider's config reads it under."""
        return {API_KEY_ENV: self.api_key} if self.api_key else {}

    async def check(self) -> LocalModel | None:
        """Fail before the run: a server that does not answer, a model file that is not there."""
        if self.kind == "local" and not self.base_url:
            return resolve_model(self.model)
        if self.base_url:
            await _answers(self.base_url)
        return None


@contextlib.asynccontextmanager
async def provider_for(choice: ProviderChoice, task: Task) -> AsyncIterator[ProviderConfig]:
    local = await choice.check()
    if choice.kind == "scripted":
        yield ProviderConfig(kind="scripted", script_path=in_project(task.require_script()), seed=choice.seed)
        return
    if choice.kind == "openai":
        yield ProviderConfig(kind="openai", model=choice.model, base_url=choice.base_url, seed=choice.seed)
        return
    if choice.base_url:
        print(f"  local model served at {choice.base_url}", flush=True)
        yield served_provider_config(choice.base_url, choice.seed)
        return
    if local is None:
        raise StarterError("no local model resolved")
    print(f"  local model {local.name} ({local.path.name}, sha256 {local.sha256[:12]}...)", flush=True)
    async with llama_server(local) as base_url:
        yield local_provider_config(local, base_url, choice.seed)


async def _answers(base_url: str) -> None:
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            await client.get(base_url.rstrip("/") + "/models")
    except httpx.HTTPError as error:
        raise StarterError(f"nothing answers at {base_url}: {type(error).__name__}") from None
