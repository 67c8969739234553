"""The ModelProvider for any OpenAI-compatible server: OpenAI itself, or the local llama.cpp one.

Prompts (agent.providers.prompts) and answer schemas (agent.providers.schemas) go out
through one chat-completions call (agent.providers.completions); answers come back parsed
into the contracts. What a model may get wrong is handled by kind:

- A proposal that does not parse or validate is returned as `ProposeActionResult.invalid_output`
  (what was wrong, then the answer), which the runtime feeds back to the model as a rejected
  step: never retried blindly.
- A goal interpretation or plan draft that does not validate is asked for again, with the
  validation error as feedback, at most `REPAIRS` times; the usage of every attempt is summed.
  Then the provider falls back, deterministically: the goal text as the interpretation's
  summary; a one-task plan whose instructions are the goal. A run can always start.
- A drafted plan never carries postconditions: a model does not decide how work is judged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import JsonValue, ValidationError

from agent.providers import prompts, schemas
from agent.providers.base import Reply
from agent.providers.completions import Completion, complete
from agent.tools.registry import tool_specs
from contracts import (
    ActionProposal,
    GoalInterpretation,
    Plan,
    PlanRevision,
    ProposeActionInput,
    ProposeActionResult,
    ProviderConfig,
    Subtask,
    ToolSpec,
    Usage,
)
from contracts.errors import ProviderError, UnusableAnswer

T = TypeVar("T")

REPAIRS = 2
FALLBACK_TASK_ID = "goal"

log = logging.getLogger(__name__)


class OpenAIProvider:
    def __init__(self, config: ProviderConfig, api_key: str | None = None) -> None:
        """`api_key`: the worker's key for `config.api_key_env` (None: none given)."""
        self._config = config
        self._api_key = api_key
        self._strict = config.structured_output == "json_schema"

    async def interpret_goal(self, goal: str, tools: list[ToolSpec] | None = None) -> Reply[GoalInterpretation]:
        schema = schemas.goal_schema(strict=self._strict)
        messages = prompts.goal_messages(goal, tool_specs() if tools is None else tools)
        value, usage = await self._ask_repairing(messages, "goal_interpretation", schema, parse_goal)
        fallback = GoalInterpretation(summary=goal.strip() or "(no goal given)")
        return Reply(value if value is not None else fallback, usage)

    async def draft_plan(
        self, goal: str, summary: str, tools: list[ToolSpec], revision: PlanRevision | None = None
    ) -> Reply[Plan]:
        if revision is not None:
            summary = f"{summary}\n{revision.told()}"
        messages = prompts.plan_messages(goal, summary, tools)
        value, usage = await self._ask_repairing(messages, "plan", schemas.plan_schema(strict=self._strict), parse_plan)
        return Reply(value if value is not None else fallback_plan(goal, summary), usage)

    async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult:
        schema = schemas.proposal_schema(tools, strict=self._strict)
        completion = await self._complete(prompts.proposal_messages(request, tools), "action", schema)
        try:
            proposal = parse_proposal(completion, tools)
        except UnusableAnswer as problem:
            return ProposeActionResult(
                invalid_output=prompts.unusable(str(problem), completion.content), usage=completion.usage
            )
        return ProposeActionResult(proposal=proposal, usage=completion.usage)

    async def _complete(self, messages: list[prompts.Message], name: str, schema: schemas.Schema) -> Completion:
        response_format = schemas.response_format(name, schema, strict=self._strict)
        return await complete(self._config, messages, response_format, self._api_key)

    async def _ask_repairing(
        self,
        messages: list[prompts.Message],
        name: str,
        schema: schemas.Schema,
        parse: Callable[[Completion], T],
    ) -> tuple[T | None, Usage]:
        """The parsed answer, asking again with the error at most REPAIRS times; None if no
        attempt gave a valid one. A failed call carries the usage of the attempts before it."""
        spent = Usage()
        for attempt in range(1, REPAIRS + 2):
            completion = await _counting(self._complete(messages, name, schema), spent)
            spent += completion.usage
            try:
                return parse(completion), spent
            except UnusableAnswer as problem:
                log.info("%s answer %d of %d not valid: %s", name, attempt, REPAIRS + 1, problem)
                messages = prompts.repair_messages(messages, completion.content, str(problem))
        log.warning("no valid %s in %d attempts: falling back", name, REPAIRS + 1)
        return None, spent


def parse_proposal(completion: Completion, tools: list[ToolSpec]) -> ActionProposal:
    data = _json_object(completion)
    action = data.get(schemas.ANSWER_KEY) if set(data) == {schemas.ANSWER_KEY} else data
    if not isinstance(action, dict):
        raise UnusableAnswer(f"{schemas.ANSWER_KEY!r} is not a JSON object")
    arguments = action.get("arguments")
    parameters = next((tool.parameters for tool in tools if tool.name == action.get("tool")), None)
    if isinstance(arguments, dict) and parameters is not None:
        action = {**action, "arguments": schemas.drop_omitted(arguments, parameters)}
    try:
        return ActionProposal.model_validate(action)
    except ValidationError as error:
        raise UnusableAnswer(f"not a valid action: {_errors(error)}") from None


def parse_goal(completion: Completion) -> GoalInterpretation:
    try:
        return GoalInterpretation.model_validate(_json_object(completion))
    except ValidationError as error:
        raise UnusableAnswer(f"not a valid goal interpretation: {_errors(error)}") from None


def parse_plan(completion: Completion) -> Plan:
    data = _json_object(completion)
    tasks = data.get("tasks")
    if isinstance(tasks, list):
        for task in tasks:
            extra = sorted(set(task) - set(schemas.DRAFT_TASK_FIELDS)) if isinstance(task, dict) else []
            if extra:
                allowed = ", ".join(schemas.DRAFT_TASK_FIELDS)
                raise UnusableAnswer(f"a task has fields {', '.join(extra)}: a task has only {allowed}")
    try:
        return Plan.model_validate(data)
    except ValidationError as error:
        raise UnusableAnswer(f"not a valid plan: {_errors(error)}") from None


def fallback_plan(goal: str, summary: str) -> Plan:
    title = (summary.strip() or goal.strip() or "The goal").splitlines()[0]
    title = title if len(title) <= 80 else title[:77] + "..."
    return Plan(subtasks=[Subtask(id=FALLBACK_TASK_ID, title=title, instructions=goal.strip())])


def _json_object(completion: Completion) -> dict[str, Any]:
    text = completion.content.strip()
    cut = completion.finish_reason == "length"
    if not text:
        raise UnusableAnswer(f"the answer was empty (finish reason: {completion.finish_reason})")
    try:
        # strict=False: a raw newline inside a string, as llama.cpp's grammar lets a model write.
        data: JsonValue = json.loads(text, strict=False)
    except ValueError as error:
        reason = "cut off at the output token limit" if cut else f"not valid JSON ({error})"
        raise UnusableAnswer(reason) from None
    if not isinstance(data, dict):
        raise UnusableAnswer(f"not a JSON object but a {type(data).__name__}")
    return data


def _errors(error: ValidationError, shown: int = 3) -> str:
    problems = [
        f"{'.'.join(str(part) for part in item['loc']) or 'answer'}: {item['msg']}" for item in error.errors()[:shown]
    ]
    more = error.error_count() - shown
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


async def _counting(call: Awaitable[T], spent: Usage) -> T:
    """A failed call's error carries the usage of the attempts before it, too."""
    try:
        return await call
    except ProviderError as error:
        if spent.model_calls:
            error.usage = spent + error.usage if error.usage is not None else spent
        raise
