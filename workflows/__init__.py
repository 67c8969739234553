"""Deterministic workflow code: the agent run workflow and its state machine."""

from workflows.agent_run import AgentRunWorkflow

__all__ = ["AgentRunWorkflow"]
