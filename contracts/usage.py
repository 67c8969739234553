"""What a model call cost. One record per attempt, failed attempts included."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Usage(BaseModel):
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cost_usd: float = Field(default=0.0, ge=0)
    latency_ms: float = Field(default=0.0, ge=0)
    model_calls: int = Field(default=0, ge=0)
    # Of `model_calls`, those answered from a cassette rather than by the model: the rest ran live.
    replayed_calls: int = Field(default=0, ge=0)
    provider: str = ""
    model: str = ""
    request_id: str | None = None

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        """Totals of two records (provider and model: the first one named)."""
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            latency_ms=self.latency_ms + other.latency_ms,
            model_calls=self.model_calls + other.model_calls,
            replayed_calls=self.replayed_calls + other.replayed_calls,
            provider=self.provider or other.provider,
            model=self.model or other.model,
        )


class ModelCallTiming(BaseModel):
    """Where one local model call's time went, as the llama.cpp server reports it: the prompt's
    tokens, those served from its cache (the longest prefix unchanged since the last call) and
    those it had to evaluate, the tokens it generated, and the seconds for each part."""

    prompt_tokens: int = Field(ge=0)
    cached_tokens: int = Field(ge=0)
    evaluated_tokens: int = Field(ge=0)
    generated_tokens: int = Field(ge=0)
    prompt_eval_s: float = Field(ge=0)
    decode_s: float = Field(ge=0)
    seconds: float = Field(ge=0)
