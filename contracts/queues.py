"""Task queue names, in one place for workers, starters and tests."""

TASK_QUEUE = "agent-lab"
