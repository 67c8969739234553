"""From a ProviderConfig (data) to a provider (code), on the worker side."""

from __future__ import annotations

from agent.dependencies import Dependencies
from agent.providers.base import ModelProvider
from agent.providers.noisy import NoisyProvider
from agent.providers.scripted import ScriptedProvider
from contracts import ProviderConfig
from contracts.errors import ProviderError, ScriptError


def build_provider(config: ProviderConfig, deps: Dependencies) -> ModelProvider:
    provider = _base(config, deps)
    return NoisyProvider(provider, config.noise, deps.injected) if config.noise is not None else provider


def _base(config: ProviderConfig, deps: Dependencies) -> ModelProvider:
    if config.kind == "scripted":
        if not config.script_path:
            raise ScriptError("the scripted provider needs a script_path")
        return ScriptedProvider(config.script_path)
    if config.kind == "openai":
        if not config.model:
            raise ProviderError("the openai provider needs a model")
        # Imported on first use: the SDK takes ~0.4 s to import, a cost only its runs should pay.
        from agent.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(config, deps.api_key(config.api_key_env))
    raise ProviderError(f"unknown provider kind {config.kind!r}")
