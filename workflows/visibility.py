"""Search attributes that let a person find a run in the Temporal Web UI.

`AgentRuntime="durable" AND AgentTask="rename-refactor"` in the UI's search box, for example.
"""

from temporalio.common import SearchAttributeKey

RUNTIME = SearchAttributeKey.for_keyword("AgentRuntime")
TASK = SearchAttributeKey.for_keyword("AgentTask")
OUTCOME = SearchAttributeKey.for_keyword("AgentOutcome")

ALL_KEYS = (RUNTIME, TASK, OUTCOME)
