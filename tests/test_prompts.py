"""What a model is shown: the workspace's files, so it can name real paths."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from agent import model_calls
from agent.providers.prompts import CHARS_PER_TOKEN, TEMPLATE_MARGIN_TOKENS, proposal_messages
from agent.tools.registry import tool_specs
from contracts import ActionProposal, ProposeActionInput, ProposeActionResult, ProviderConfig, ToolSpec, Turn, Usage
from tests.lab_dependencies import lab_deps


def test_the_first_message_lists_the_workspace_files() -> None:
    request = ProposeActionInput(
        provider=ProviderConfig(), goal="fix it", workspace_files=["README.md", "pkg/stats.py", "tests/test_stats.py"]
    )
    first = proposal_messages(request, tool_specs())[1]["content"]
    assert "Files in your workspace" in first and "pkg/stats.py" in first and "tests/test_stats.py" in first


async def test_the_activity_fills_in_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "stats.py").write_text("")
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / ".pytest_cache" / "x").write_text("")
    seen: list[ProposeActionInput] = []

    class Recorder:
        async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult:
            seen.append(request)
            return ProposeActionResult(invalid_output="-", usage=Usage())

    monkeypatch.setattr(model_calls, "build_provider", lambda config, deps: Recorder())
    await model_calls.propose_action(
        lab_deps(), ProposeActionInput(provider=ProviderConfig(), goal="g", workspace=str(tmp_path))
    )
    assert seen[0].workspace_files == ["pkg/stats.py"]


def long_run(turns: int, output_lines: int = 200, **provider: object) -> ProposeActionInput:
    """A run `turns` steps in, each step with a tool output of `output_lines` lines (long by default)."""
    output = "\n".join(f"line {n}: " + "x" * 60 for n in range(output_lines))
    history = [
        Turn(
            step=step,
            proposal=ActionProposal(tool="read_file", arguments={"path": f"f{step}.py"}),
            outcome="committed",
            feedback=output,
        )
        for step in range(1, turns + 1)
    ]
    return ProposeActionInput(provider=ProviderConfig(**provider), goal="fix it", history=history)


def test_a_prompt_is_cut_to_fit_the_context_oldest_turns_first() -> None:
    config = {"context_tokens": 4096, "max_output_tokens": 256}
    messages = proposal_messages(long_run(20, **config), tool_specs())
    characters = sum(len(m["content"]) for m in messages)
    assert characters <= (4096 - 256 - TEMPLATE_MARGIN_TOKENS) * CHARS_PER_TOKEN
    # The newest turns stay; the oldest go, and the model is told so.
    assert "Step 20," in messages[-1]["content"]
    assert not any("Step 1," in m["content"] for m in messages)
    left_out = 20 - (len(messages) - 2) // 2
    assert left_out > 0 and f"Steps 1-{left_out} are left out" in messages[1]["content"]
    # Each left-out step in a line: what it did and how it went.
    assert f"- step {left_out}: read_file(path='f{left_out}.py') -> committed" in messages[1]["content"]


def _is_prefix(earlier: list[dict[str, str]], later: list[dict[str, str]]) -> bool:
    return later[: len(earlier)] == earlier


@pytest.mark.parametrize("output_lines", [200, 12])
def test_each_call_only_appends_to_the_last_one_until_a_block_of_turns_is_left_out(output_lines: int) -> None:
    """A server's prompt cache serves the longest unchanged prefix: a call should re-read only
    its newest turn. Turns are never re-clipped as they age, and when the context is full the
    oldest go in blocks of about half the turns' room, so the prefix breaks at most every other
    call with long outputs (two turns fit), and rarely with short ones."""
    config = {"context_tokens": 4096, "max_output_tokens": 256}
    calls = [proposal_messages(long_run(turns, output_lines, **config), tool_specs()) for turns in range(0, 40)]
    breaks = [n for n in range(1, len(calls)) if not _is_prefix(calls[n - 1], calls[n])]
    assert breaks, "40 turns never outgrew a 4096-token context"
    for messages in calls:
        assert sum(len(m["content"]) for m in messages) <= (4096 - 256 - TEMPLATE_MARGIN_TOKENS) * CHARS_PER_TOKEN
    gaps = [later - earlier for earlier, later in itertools.pairwise(breaks)]
    assert min(gaps, default=2) >= 2, breaks
    if output_lines == 12:
        # Short turns: about seven fit, a block holds three or four, so the prefix breaks about
        # every fourth call (it would on every call if turns went one at a time).
        assert min(gaps, default=3) >= 3 and len(breaks) <= 40 // 3, breaks
    # Without a context limit no call ever breaks the prefix.
    unlimited = [proposal_messages(long_run(turns, output_lines), tool_specs()) for turns in range(0, 12)]
    assert all(_is_prefix(a, b) for a, b in itertools.pairwise(unlimited))


def test_the_file_listing_is_the_one_given_not_the_workspace_now(tmp_path: Path) -> None:
    """The runtimes pass the listing taken when the workspace was prepared: a file the agent
    adds does not change the first message."""
    (tmp_path / "new.py").write_text("")
    request = ProposeActionInput(
        provider=ProviderConfig(), goal="g", workspace=str(tmp_path), workspace_files=["old.py"]
    )
    first = proposal_messages(request, tool_specs())[1]["content"]
    assert "old.py" in first and "new.py" not in first


def test_without_a_context_window_nothing_is_left_out() -> None:
    messages = proposal_messages(long_run(20), tool_specs())
    assert len(messages) == 2 + 2 * 20
    assert "left out" not in messages[1]["content"]
    # However small the window, the latest turn stays.
    tiny = proposal_messages(long_run(20, context_tokens=600, max_output_tokens=256), tool_specs())
    assert len(tiny) == 4 and "Step 20," in tiny[-1]["content"]
    # A prompt that already fits is not touched either.
    assert proposal_messages(long_run(2, context_tokens=100_000), tool_specs()) == proposal_messages(
        long_run(2), tool_specs()
    )


def test_the_goal_and_plan_calls_start_as_the_proposals_do() -> None:
    """A server re-reads a prompt from the first token that changed: the durable runtime's goal
    and plan calls share the proposals' system message and goal, so after any of them the
    others are mostly read already."""
    from agent.providers.prompts import goal_messages, plan_messages

    tools = tool_specs()
    goal = "Fix numbers_up_to in counting/ranges.py."
    proposal = proposal_messages(ProposeActionInput(provider=ProviderConfig(), goal=goal), tools)
    for messages in (goal_messages(goal, tools), plan_messages(goal, "Fix it.", tools)):
        assert messages[0] == proposal[0]
        assert messages[1]["content"].startswith(f"Goal:\n{goal}\n\n")
        assert proposal[1]["content"].startswith(f"Goal:\n{goal}\n\n")
    assert '"summary"' in goal_messages(goal, tools)[1]["content"]
    assert '"tasks"' in plan_messages(goal, "Fix it.", tools)[1]["content"]
