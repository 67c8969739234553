"""The baseline's retries: transient errors only, a fixed pause and number of attempts, or the
run's retry budget (RunRequest.retries) when it has one, as the durable runtime's activity
policies take it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from agent.dependencies import Dependencies
from contracts import ProposeActionInput, RetryBudget, Usage
from contracts.errors import LabError, ProviderError, ProviderUnavailable

In = TypeVar("In")
Out = TypeVar("Out")


class Retrying:
    def __init__(self, deps: Dependencies, attempts: int, delay_s: float, budget: RetryBudget | None) -> None:
        self._deps = deps
        self._attempts = attempts
        self._delay_s = delay_s
        self._budget = budget
        # What failed model attempts cost (it travels in their errors): spent all the same.
        self.failed = Usage()

    async def __call__(self, call: Callable[[Dependencies, In], Awaitable[Out]], argument: In) -> Out:
        budget, model = self._budget, isinstance(argument, ProposeActionInput)
        attempts = self._attempts if budget is None else budget.model_attempts if model else budget.tool_attempts
        attempt = 1
        while True:
            if isinstance(argument, ProposeActionInput):
                # A model call knows its attempt, as a Temporal activity does.
                argument = argument.model_copy(update={"attempt": attempt})  # type: ignore[assignment]
            try:
                return await call(self._deps, argument)
            except LabError as error:
                if isinstance(error, ProviderError) and error.usage is not None:
                    self.failed += error.usage
                if not error.retryable or attempt >= attempts:
                    raise
                # A server's own retry-after, when it gave one; else the fixed pause.
                retry_after = error.retry_after_s if isinstance(error, ProviderUnavailable) else None
                pause = retry_after or (self._delay_s if budget is None else budget.backoff_s(attempt))
            attempt += 1
            await asyncio.sleep(pause)
