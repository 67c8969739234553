"""One chat-completions call to an OpenAI-compatible server, through the `openai` SDK.

The SDK's own retries are off: Temporal (or the baseline) owns retries, so every failure is
classified here into the lab's hierarchy (contracts.errors) and carries what the attempt cost:

    429                                   ProviderUnavailable, with the server's retry-after
    5xx, timeout, connection error        ProviderUnavailable
    5xx that says the request is invalid  ProviderRequestError (llama.cpp answers 500 to a
                                          `json_schema` response format it does not support)
    400, 404, 422 (other 4xx)             ProviderRequestError
    401, 403, no API key                  ProviderAuthError

The API key is read from the worker's environment at call time and goes only into the SDK
client: no result, error message or log record holds it.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import logging
import re
import time
import weakref
from datetime import UTC, datetime
from typing import Any

import httpx2
import openai
from pydantic import BaseModel, JsonValue, ValidationError

from agent.providers import cassette
from agent.providers.prompts import Message
from agent.providers.urls import is_loopback
from contracts import ProviderConfig, Usage
from contracts.errors import ProviderAuthError, ProviderError, ProviderRequestError, ProviderUnavailable

PROVIDER = "openai"
MAX_RETRY_AFTER_S = 600.0
# What a server says when the request itself is malformed, even under a 5xx: llama-cpp-python's
# server answers a `json_schema` response format with 500 and pydantic's "1 validation error:
# ... Input should be 'text' or 'json_object'".
_INVALID_REQUEST = re.compile(r"\d+ validation errors?\b|invalid_request_error|input should be", re.IGNORECASE)
_KEY_LIKE = re.compile(r"\b(sk|key)-[A-Za-z0-9*_\-]{6,}")

log = logging.getLogger(__name__)


class Completion(BaseModel):
    content: str
    finish_reason: str | None = None
    usage: Usage


class _Tokens(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Message(BaseModel):
    content: str | None = None


class _Choice(BaseModel):
    message: _Message = _Message()
    finish_reason: str | None = None


class _ChatCompletion(BaseModel):
    """The fields of a chat completion the lab reads; any others are ignored."""

    id: str | None = None
    model: str | None = None
    choices: list[_Choice] = []
    usage: _Tokens | None = None


async def complete(
    config: ProviderConfig, messages: list[Message], response_format: dict[str, JsonValue], api_key: str | None
) -> Completion:
    """The model's answer to `messages`, from the server, or from `config.cassette`."""
    request: dict[str, Any] = {
        "model": config.model or "",
        "messages": messages,
        "response_format": response_format,
        "temperature": config.temperature,
        "max_tokens": config.max_output_tokens,
        "seed": config.seed,
    }
    if config.cassette is None:
        return await _call(config, request, api_key)
    tape = cassette.cassette_at(config.cassette)
    key = cassette.request_key(request)
    if config.cassette_mode != "record" and (recorded := await tape.lookup(key)) is not None:
        replayed = Completion.model_validate(recorded)
        # The recorded usage (tokens, the call's latency when it ran), marked as not run now.
        usage = replayed.usage.model_copy(update={"replayed_calls": replayed.usage.model_calls})
        return replayed.model_copy(update={"usage": usage})
    if config.cassette_mode == "replay":
        raise ProviderRequestError(
            f"cassette {tape.path} has no completion for request {key} (record it with cassette_mode='record')",
            usage=Usage(provider=PROVIDER, model=config.model or ""),
        )
    completion = await _call(config, request, api_key)
    await tape.append(key, completion.model_dump(mode="json"))
    return completion


async def aclose_clients() -> None:
    """Close the current event loop's clients (tests, and a process about to exit)."""
    clients = _clients.pop(asyncio.get_running_loop(), {})
    for client in clients.values():
        await client.close()


async def _call(config: ProviderConfig, request: dict[str, Any], given_key: str | None) -> Completion:
    api_key = _api_key(config, given_key)
    started = time.perf_counter()
    try:
        # A local server checks no key, but the SDK wants one.
        client = _client(config.base_url, api_key or "unused", config.timeout_s)
        # The SDK's generic `post`: its typed `chat.completions.create` walks the whole request
        # (a 5 kB schema) to transform it, 2-3 ms per call that this request does not need.
        response = await client.post(
            "/chat/completions", body=request, cast_to=httpx2.Response, options={"timeout": config.timeout_s}
        )
        answer = _ChatCompletion.model_validate_json(response.content)
    except openai.OpenAIError as error:
        spent = _spent(config, started, getattr(error, "request_id", None))
        raise _classify(error, config, api_key, spent) from None
    except ValidationError as error:
        where = config.base_url or "the OpenAI API"
        raise ProviderError(
            f"{where} answered with something other than a chat completion ({error.error_count()} problems)",
            usage=_spent(config, started, response.headers.get("x-request-id")),
        ) from None
    tokens = answer.usage or _Tokens()
    usage = Usage(
        input_tokens=tokens.prompt_tokens,
        output_tokens=tokens.completion_tokens,
        cost_usd=(
            tokens.prompt_tokens * config.price.input_per_million
            + tokens.completion_tokens * config.price.output_per_million
        )
        / 1_000_000,
        latency_ms=(time.perf_counter() - started) * 1000,
        model_calls=1,
        provider=PROVIDER,
        model=answer.model or config.model or "",
        request_id=response.headers.get("x-request-id") or answer.id or None,
    )
    log.debug(
        "completion from %s: %d+%d tokens in %.0f ms (request %s)",
        usage.model,
        usage.input_tokens,
        usage.output_tokens,
        usage.latency_ms,
        usage.request_id,
    )
    choice = answer.choices[0] if answer.choices else _Choice()
    return Completion(content=choice.message.content or "", finish_reason=choice.finish_reason, usage=usage)


def _api_key(config: ProviderConfig, key: str | None) -> str | None:
    """The key the worker was given for `config.api_key_env`, or None for a local server
    without one (llama.cpp checks none)."""
    if key or is_loopback(config.base_url):
        return key or None
    raise ProviderAuthError(
        f"missing API key: set {config.api_key_env} in the worker's environment",
        usage=Usage(provider=PROVIDER, model=config.model or ""),  # nothing was sent
    )


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str | None, str], openai.AsyncOpenAI]] = (
    weakref.WeakKeyDictionary()
)


def _client(base_url: str | None, api_key: str, timeout_s: float) -> openai.AsyncOpenAI:
    """One client per (event loop, server, key): calls reuse its connections. A connection
    pool belongs to the loop that opened it, hence the loop in the key."""
    per_loop = _clients.setdefault(asyncio.get_running_loop(), {})
    key = (base_url, hashlib.sha256(api_key.encode()).hexdigest())
    client = per_loop.get(key)
    if client is None:
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s)
        per_loop[key] = client
    return client


def _classify(error: openai.OpenAIError, config: ProviderConfig, api_key: str | None, spent: Usage) -> ProviderError:
    where = config.base_url or "the OpenAI API"
    if isinstance(error, openai.APITimeoutError):
        return ProviderUnavailable(f"no answer from {where} within {config.timeout_s:g} s", usage=spent)
    if isinstance(error, openai.APIConnectionError):
        cause = type(error.__cause__).__name__ if error.__cause__ else "connection error"
        return ProviderUnavailable(f"cannot reach {where}: {cause}", usage=spent)
    if not isinstance(error, openai.APIStatusError):
        return ProviderError(f"unusable response from {where}: {type(error).__name__}", usage=spent)
    status = error.status_code
    said = _redact(_server_message(error), api_key)
    message = f"HTTP {status} from {where}: {said}"
    if status == 429:
        unavailable = ProviderUnavailable(message, usage=spent)
        unavailable.retry_after_s = _retry_after(error.response.headers)
        return unavailable
    if status in (401, 403):
        return ProviderAuthError(f"{message} (the key in {config.api_key_env} was refused)", usage=spent)
    if status >= 500:
        if _INVALID_REQUEST.search(said):
            return ProviderRequestError(f"{message} (the request itself is invalid: not retried)", usage=spent)
        return ProviderUnavailable(message, usage=spent)
    if status in (408, 409):
        return ProviderUnavailable(message, usage=spent)
    return ProviderRequestError(message, usage=spent)


def _server_message(error: openai.APIStatusError, limit: int = 500) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = inner.get("message") if isinstance(inner, dict) else inner
        said = str(text if text is not None else body)
    else:
        said = str(body if body is not None else error.response.reason_phrase)
    return said if len(said) <= limit else said[: limit - 3] + "..."


def _retry_after(headers: Any) -> float | None:
    """Seconds, from `retry-after-ms` (OpenAI's), or `retry-after` in seconds or as an HTTP date."""
    try:
        if (millis := headers.get("retry-after-ms")) is not None:
            return min(max(float(millis) / 1000, 0.0), MAX_RETRY_AFTER_S)
        if (value := headers.get("retry-after")) is not None:
            try:
                seconds = float(value)
            except ValueError:
                seconds = (email.utils.parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
            return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)
    except (TypeError, ValueError):
        pass
    return None


def _redact(text: str, api_key: str | None) -> str:
    """A server may quote the key it refused (OpenAI shows its ends): say neither."""
    if api_key:
        text = text.replace(api_key, "[redacted]")
    return _KEY_LIKE.sub("[redacted]", text)


def _spent(config: ProviderConfig, started: float, request_id: str | None) -> Usage:
    return Usage(
        latency_ms=(time.perf_counter() - started) * 1000,
        model_calls=1,
        provider=PROVIDER,
        model=config.model or "",
        request_id=request_id,
    )
