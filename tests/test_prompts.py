"""What a model is shown: the workspace's files, so it can name real paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities import model_calls
from activities.providers.prompts import proposal_messages
from activities.tools.registry import tool_specs
from contracts import ProposalRequest, ProposalResult, ProviderConfig, ToolSpec, Usage


def test_the_first_message_lists_the_workspace_files() -> None:
    request = ProposalRequest(
        provider=ProviderConfig(), goal="fix it", workspace_files=["README.md", "pkg/stats.py", "tests/test_stats.py"]
    )
    first = proposal_messages(request, tool_specs())[1]["content"]
    assert "Files in your workspace" in first and "pkg/stats.py" in first and "tests/test_stats.py" in first


async def test_the_activity_fills_in_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "stats.py").write_text("")
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / ".pytest_cache" / "x").write_text("")
    seen: list[ProposalRequest] = []

    class Recorder:
        async def propose(self, request: ProposalRequest, tools: list[ToolSpec]) -> ProposalResult:
            seen.append(request)
            return ProposalResult(invalid_output="-", usage=Usage())

    monkeypatch.setattr(model_calls, "build_provider", lambda config: Recorder())
    await model_calls.propose_action(ProposalRequest(provider=ProviderConfig(), goal="g", workspace=str(tmp_path)))
    assert seen[0].workspace_files == ["pkg/stats.py"]
