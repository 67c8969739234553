"""Model calls per runtime: how many ran live and how many a cassette answered, and, for a local
model, where a live call's time went (the server's own account: prompt tokens, those it had to
evaluate because the cache did not hold them, tokens generated, seconds). The question it answers:
does a runtime's prompt layout let the server's prompt cache work?"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from pydantic import BaseModel

from contracts.usage import ModelCallTiming
from experiments.trial_record import TrialRecord


class ModelCallMetrics(BaseModel):
    runtime: str
    calls: int
    replayed_calls: int
    # Over the live calls the server logged (a local model at concurrency 1), else 0 and None.
    timed_calls: int = 0
    median_prompt_tokens: float | None = None
    median_evaluated_tokens: float | None = None
    median_generated_tokens: float | None = None
    median_seconds: float | None = None
    p90_seconds: float | None = None
    # Tokens evaluated per second of prompt evaluation, over every timed call together.
    prompt_eval_rate: float | None = None

    @property
    def live_calls(self) -> int:
        return self.calls - self.replayed_calls


def model_call_metrics(trials: list[TrialRecord], runtimes: Iterable[str]) -> list[ModelCallMetrics]:
    metrics = []
    for runtime in runtimes:
        selected = [trial for trial in trials if trial.runtime == runtime and trial.valid]
        if not selected:
            continue
        timings = [timing for trial in selected for timing in trial.call_timings]
        metrics.append(
            ModelCallMetrics(
                runtime=runtime,
                calls=sum(trial.model_calls for trial in selected),
                replayed_calls=sum(trial.replayed_calls for trial in selected),
                **_timing_figures(timings),
            )
        )
    return metrics


def _timing_figures(timings: list[ModelCallTiming]) -> dict[str, float | int | None]:
    if not timings:
        return {}
    seconds = sorted(timing.seconds for timing in timings)
    evaluating = sum(timing.prompt_eval_s for timing in timings)
    return {
        "timed_calls": len(timings),
        "median_prompt_tokens": statistics.median(timing.prompt_tokens for timing in timings),
        "median_evaluated_tokens": statistics.median(timing.evaluated_tokens for timing in timings),
        "median_generated_tokens": statistics.median(timing.generated_tokens for timing in timings),
        "median_seconds": statistics.median(seconds),
        "p90_seconds": statistics.quantiles(seconds, n=10, method="inclusive")[-1] if len(seconds) > 1 else seconds[0],
        "prompt_eval_rate": sum(timing.evaluated_tokens for timing in timings) / evaluating if evaluating else None,
    }
