"""A scripted provider's script (`script.yaml` beside a task): the goal interpretation, a plan
as a DAG of subtasks, and the actions per subtask; optionally `replan:`, the plan's second
version, which a run that asks for a revised plan gets (its subtask ids differ from the first's,
so each subtask's actions are found by id alone).

Pure data and parsing: the task catalog checks a script before any run starts, and the
scripted provider reads the same schema on the worker.
"""

from __future__ import annotations

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from contracts.actions import ActionProposal
from contracts.errors import ScriptInvalid
from contracts.goal import GoalInterpretation
from contracts.plan import Plan, Subtask
from contracts.problems import render
from contracts.yaml_problem import yaml_problem


class ScriptedSubtask(Subtask):
    actions: list[ActionProposal] = Field(default_factory=list)


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: GoalInterpretation
    plan: list[ScriptedSubtask] = Field(min_length=1)
    replan: list[ScriptedSubtask] = Field(default_factory=list)

    @model_validator(mode="after")
    def _plan_is_a_dag(self) -> Script:
        self.as_plan()  # duplicate ids, unknown dependencies and cycles fail here, at load
        if self.replan:
            self.revised_plan()
            reused = sorted({subtask.id for subtask in self.plan} & {subtask.id for subtask in self.replan})
            if reused:
                raise ValueError(f"replan: subtask ids {', '.join(reused)} are the first plan's already")
        return self

    def as_plan(self) -> Plan:
        return _plan(self.plan)

    def revised_plan(self) -> Plan | None:
        """The plan's second version, None when the script has none."""
        return _plan(self.replan) if self.replan else None

    def has_subtask(self, subtask_id: str) -> bool:
        return any(subtask.id == subtask_id for subtask in (*self.plan, *self.replan))

    def actions_for(self, subtask_id: str | None) -> list[ActionProposal]:
        """One subtask's actions (LookupError for a subtask the script has not); for `None` (a
        loop without a plan) every tool call in plan order, then a single `finish`."""
        if subtask_id is not None:
            for subtask in (*self.plan, *self.replan):
                if subtask.id == subtask_id:
                    return subtask.actions
            raise LookupError(f"the script has no subtask {subtask_id!r}")
        by_id = {subtask.id: subtask for subtask in self.plan}
        calls = [
            action
            for planned in self.as_plan().topological_order()
            for action in by_id[planned.id].actions
            if action.kind == "tool_call"
        ]
        return [*calls, ActionProposal(kind="finish", thought="All scripted steps are done.")]


def parse_script(text: str) -> Script:
    """A script from its YAML text; ScriptInvalid says what is wrong: every problem, each
    with where it is."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ScriptInvalid(yaml_problem(error, text)) from None
    try:
        return Script.model_validate(raw)
    except ValidationError as error:
        raise ScriptInvalid(render(error, raw)) from None


def _plan(subtasks: list[ScriptedSubtask]) -> Plan:
    return Plan(subtasks=[Subtask.model_validate(each.model_dump(exclude={"actions"})) for each in subtasks])
