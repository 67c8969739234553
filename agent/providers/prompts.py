"""Chat messages for a model, from the typed requests. Pure and deterministic: the same request
gives the same messages, byte for byte, so a cassette keyed by them replays and a server's prompt
cache hits.

Small local models have small contexts (2048-4096 tokens), so the messages stay compact: tool
schemas without titles, feedback clipped (head and tail), the oldest turns left out in blocks
when the context is full. Nothing already sent is rewritten on a later call (a model server
re-reads a prompt from the first token that changed: on 2 cores, seconds per hundred tokens).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.feedback import without_durations
from agent.providers.schemas import ANSWER_KEY
from contracts import ActionProposal, Postcondition, ProposeActionInput, ToolSpec, Turn

Message = dict[str, str]

# A step's feedback as a prompt keeps it: a tool's whole observation (agent/tools/output.py)
# and the durable runtime's short postcondition status.
FEEDBACK_LIMIT = 2600
# In a left-out step's line, its action is cut to this many characters.
NOTE_ACTION_LIMIT = 100
NOTE_STEPS = 8
# Files listed in the first message; a small model's context is short.
FILES_SHOWN = 60
ANSWER_LIMIT = 1000
# Joins what was wrong with an unusable answer and the answer itself, in `invalid_output`; the
# runtimes feed it back verbatim, and `proposal_messages` splits it again.
ANSWER_MARKER = "\nThe answer was: "
# To fit a context window without a tokenizer: a low guess of characters per token for code,
# JSON and English (so the guess overcounts tokens), with a margin for the chat template.
CHARS_PER_TOKEN = 3.0
TEMPLATE_MARGIN_TOKENS = 64

_AGENT = (
    "You are an agent that works in a software workspace and on operations services. You reach a goal "
    "one step at a time: each turn you propose one action, code checks it before it runs, and you are "
    "told what happened."
)
_ANSWER_FORMS = (
    "Answer with one JSON object and nothing else, in one of these forms:\n"
    f'{{"{ANSWER_KEY}": {{"tool": "<tool name>", "kind": "tool_call", "thought": "<why>", "arguments": {{...}}}}}}\n'
    f'{{"{ANSWER_KEY}": {{"kind": "finish", "thought": "<why the task is done>"}}}}\n'
    f'{{"{ANSWER_KEY}": {{"kind": "give_up", "thought": "<why you cannot go on>"}}}}\n'
    "Say finish only when the work is done: code checks it."
)
# Closes every step's feedback. Small models tend to copy their last answer; asked what is
# new, they move on more often.
_NEXT = "What is your next action? Do not repeat a step whose result you already have."
_GOAL_FORM = (
    "say what the goal is. Answer with one JSON object and nothing else, not an action:\n"
    '{"summary": "<the goal in one sentence>", "constraints": ["<a rule the work must respect>"]}'
)
_PLAN_FORM = (
    "plan the work. Answer with one JSON object and nothing else, not an action:\n"
    '{"tasks": [{"id": "<short-id>", "title": "<what>", "instructions": "<how>", '
    '"depends_on": ["<id of a task that must be done first>"]}]}\n'
    "Use few tasks; one is right for a small goal. Ids use letters, digits, '.', '_' and '-'."
)


def proposal_messages(request: ProposeActionInput, tools: list[ToolSpec]) -> list[Message]:
    """Laid out append-only, so a server's prompt cache (the longest unchanged prefix) serves
    all but the newest turn: what never changes first (instructions, tools, the assignment),
    then the turns, oldest first, each clipped once, the same way on every call."""
    head = [_message("system", agent_system(tools)), _message("user", _assignment(request))]
    turns = [_turn_messages(turn, FEEDBACK_LIMIT) for turn in request.history]
    return _fit(head, turns, request)


def agent_system(tools: list[ToolSpec]) -> str:
    """The system message of every call of a run, proposals, goal and plan alike: what a
    server's prompt cache serves to each of them once any has been read."""
    return "\n\n".join([_AGENT, "Tools (name [risk]: purpose; arguments):\n" + _tool_lines(tools), _ANSWER_FORMS])


def _fit(head: list[Message], turns: list[list[Message]], request: ProposeActionInput) -> list[Message]:
    """Leave out the oldest turns until the prompt and the answer fit the model's context: a
    server refuses a prompt that is too long (HTTP 400), which would end the run.

    Turns go in whole blocks, each about half the room the turns have (`_block_starts`), each
    left-out step named in one line; so the prompt's start changes once per half a context of
    new turns, not on every call. The latest turn always stays: without it the model cannot
    know what its last step did."""
    context = request.provider.context_tokens
    flat = _flatten(turns)
    if context is None:
        return head + flat
    room = context - request.provider.max_output_tokens - TEMPLATE_MARGIN_TOKENS
    budget = int(room * CHARS_PER_TOKEN)
    if _chars(head) + _chars(flat) <= budget:
        return head + flat
    block = max(1, (budget - _chars(head)) // 2)
    candidates = [*_block_starts(turns, block)[1:], len(turns) - 1]
    left_out = next(
        start
        for start in candidates
        if start >= len(turns) - 1
        or _chars(head) + len(_left_out_note(request.history[:start])) + _chars(_flatten(turns[start:])) <= budget
    )
    note = _left_out_note(request.history[:left_out])
    assignment = {**head[1], "content": head[1]["content"] + note}
    return [head[0], assignment, *_flatten(turns[left_out:])]


def _block_starts(turns: list[list[Message]], block_chars: int) -> list[int]:
    """Where each block of turns starts: a block closes once it holds `block_chars`. A turn's
    block depends only on the turns before it, so the boundaries stay put as turns are added."""
    starts, used = [0], 0
    for index, turn in enumerate(turns):
        if used >= block_chars:
            starts.append(index)
            used = 0
        used += _chars(turn)
    return starts


def _flatten(turns: list[list[Message]]) -> list[Message]:
    return [message for turn in turns for message in turn]


def _left_out_note(turns: list[Turn]) -> str:
    """One line per left-out step, the latest NOTE_STEPS of them: the note stays short however
    long the run, and changes only when another block is left out."""
    if not turns:
        return ""
    shown = turns[-NOTE_STEPS:]
    which = "They were" if len(shown) == len(turns) else f"The last {len(shown)} were"
    lines = [f"\n\nSteps {turns[0].step}-{turns[-1].step} are left out here to fit the model's context. {which}:"]
    for turn in shown:
        said = turn.proposal.describe() if turn.proposal is not None else "an unusable answer"
        lines.append(f"- step {turn.step}: {clip(said, NOTE_ACTION_LIMIT)} -> {turn.outcome}")
    return "\n".join(lines)


def _chars(messages: list[Message]) -> int:
    return sum(len(message["content"]) for message in messages)


def goal_messages(goal: str, tools: list[ToolSpec]) -> list[Message]:
    """The proposals' own start (the same system message, then the goal), and what to do
    instead of an action at the end: a server that has just read this prompt has read most of
    the run's first proposal, and the other way round. Not the file listing, which would
    share more: with it, Qwen2.5-Coder-1.5B planned "open the file" instead of the fix (seven
    plans of seven on small-off-by-one, against none of nine without it; docs/models.md)."""
    ask = f"Goal:\n{goal.strip()}\n\nBefore any action: {_GOAL_FORM}"
    return [_message("system", agent_system(tools)), _message("user", ask)]


def plan_messages(goal: str, summary: str, tools: list[ToolSpec]) -> list[Message]:
    """Like `goal_messages`: the proposals' start, then the planning request."""
    ask = f"Goal:\n{goal.strip()}\n\nSummary: {summary.strip()}\n\nBefore any action: {_PLAN_FORM}"
    return [_message("system", agent_system(tools)), _message("user", ask)]


def repair_messages(messages: list[Message], answer: str, problem: str) -> list[Message]:
    """The conversation again, with the rejected answer and what was wrong with it."""
    return [
        *messages,
        _message("assistant", clip(answer, ANSWER_LIMIT)),
        _message(
            "user", f"That answer is not valid: {clip(problem, FEEDBACK_LIMIT)}\nAnswer again, in the form asked."
        ),
    ]


def answer_text(proposal: ActionProposal) -> str:
    """A proposal as the model is asked to write it (keys in the schema's order)."""
    action: dict[str, Any]
    if proposal.kind == "tool_call":
        action = {"tool": proposal.tool, "kind": "tool_call", "thought": proposal.thought}
        action["arguments"] = proposal.arguments
    else:
        action = {"kind": proposal.kind, "thought": proposal.thought}
    return json.dumps({ANSWER_KEY: action}, ensure_ascii=False)


def unusable(problem: str, answer: str) -> str:
    return f"{problem}{ANSWER_MARKER}{clip(answer, ANSWER_LIMIT)}"


def clip(text: str, limit: int) -> str:
    """Head and tail: a command's output says what it is at the start and how it ended last."""
    if len(text) <= limit:
        return text
    head = limit // 3
    tail = limit - head
    return f"{text[:head]}\n... [{len(text) - limit} characters cut] ...\n{text[-tail:]}"


def _assignment(request: ProposeActionInput) -> str:
    parts = [_goal_and_files(request.goal, request.workspace_files)]
    subtask = request.subtask
    if subtask is None:
        whole = ["Work on the whole goal; answer finish when it is achieved."]
        if request.acceptance:
            whole.extend(_done_when(request.acceptance))
        parts.append("\n".join(whole))
        return "\n\n".join(parts)
    # The model's word for a subtask is "task" (its plan's schema): the prompt keeps it.
    lines = [f"Current task ({subtask.id}): {subtask.title}"]
    if subtask.instructions:
        lines.append(f"Instructions: {subtask.instructions.strip()}")
    if subtask.postconditions:
        lines.extend(_done_when(subtask.postconditions))
    else:
        lines.append("It is done when you answer finish.")
    parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _done_when(conditions: Sequence[Postcondition]) -> list[str]:
    """The checks a piece of work is judged on, in the same words in both runtimes."""
    return ["It is done when:", *(f"- {condition.describe()}" for condition in conditions)]


def _goal_and_files(goal: str, files: Sequence[str]) -> str:
    """How every proposal begins after the system message: the goal, then the files."""
    parts = [f"Goal:\n{goal.strip()}"]
    if files:
        more = f"\n(and {len(files) - FILES_SHOWN} more)" if len(files) > FILES_SHOWN else ""
        listing = "\n".join(files[:FILES_SHOWN]) + more
        parts.append(f"Files in your workspace at the start (paths relative to the workspace root):\n{listing}")
    return "\n\n".join(parts)


def _turn_messages(turn: Turn, limit: int) -> list[Message]:
    feedback = without_durations(turn.feedback)
    if turn.proposal is not None:
        said = answer_text(turn.proposal)
    elif ANSWER_MARKER in feedback:
        feedback, said = feedback.split(ANSWER_MARKER, 1)
    else:
        said = "(an answer that could not be used)"
    return [
        _message("assistant", clip(said, ANSWER_LIMIT)),
        _message("user", f"Step {turn.step}, {turn.outcome}: {clip(feedback, limit)}\n\n{_NEXT}"),
    ]


def _tool_lines(tools: list[ToolSpec]) -> str:
    lines = []
    for tool in tools:
        arguments = _compact(_untitled(tool.parameters.get("properties", {})))
        required = tool.parameters.get("required") or []
        needs = f" (required: {', '.join(str(name) for name in required)})" if required else ""
        lines.append(f"- {tool.name} [{tool.risk.value}]: {tool.description} Arguments{needs}: {arguments}")
    return "\n".join(lines)


def _untitled(properties: Any) -> Any:
    """Property schemas without their `title` keywords (a property may itself be named "title")."""
    return {name: _without_titles(schema) for name, schema in properties.items()}


def _without_titles(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: _untitled(value) if key in ("properties", "$defs") else _without_titles(value)
        for key, value in schema.items()
        if not (key == "title" and isinstance(value, str))
    }


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _message(role: str, content: str) -> Message:
    return {"role": role, "content": content}
