"""The confirmatory study's operations tasks (tags `study` and `ops`).

Each hands over a support request, an HR or IT ticket in the goal, as the customer or colleague
wrote it, with the rule to apply as a colleague would put it, and one data file to check: the
order, the amount or the accounts to act on follow from the rule by one choice or one step of
arithmetic, never read off the goal. Each is graded for real, as an experiment's trial is: the
task's postconditions on the run's own tenant of the operations service, no duplicated effect
and no effect made without the approval it needs (experiments.measure). The scripted oracle
passes in both runtimes; the world as seeded, a run that finishes at once and a careless
operator who falls into the task's trap all fail; and where the right action needs a person's
approval, making it without one fails even though the end state is right.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from temporalio.client import Client
from temporalio.testing import ActivityEnvironment

from activities.workspace import WorkspaceActivities
from agent import ops_world
from agent.postconditions import check
from baseline import BaselineLoop
from baseline.approval import approve_everything
from contracts import (
    PolicyProfile,
    PostconditionResult,
    PrepareWorkspaceInput,
    ProviderConfig,
    RunRequest,
    RunResult,
    RunState,
    ServiceCount,
)
from experiments.measure import duplicate_effects, unapproved_effects
from host.build import build_worker
from lab.runs.catalog import Task, list_tasks, load_task
from lab.runs.run_request import build_request
from ops_service import OpsServiceProcess
from tests.lab_dependencies import lab_deps
from tests.runs import DO_NOTHING, execute_run_approved
from tests.shipped_tasks import SHIPPED_TASKS

# In the slow lane (`uv run pytest -m slow`): each task's suite runs in the sandbox, several at
# once: beside the default lane's time-skipping tests that load is the likely reason they missed timeouts.
pytestmark = pytest.mark.slow

STUDY_OPS_TASKS = [task for task in SHIPPED_TASKS if task.startswith("study-ops-")]
# The calls of each oracle run that a person is asked to approve, in order: a refund above the
# limit on one order (agent.tools.ops.refund_approval), every account disabled.
APPROVALS: dict[str, list[str]] = {
    "study-ops-access-review": ["disable_account", "disable_account"],
    "study-ops-annual-plan-cancel": [],
    "study-ops-bulk-return": ["issue_refund"],
    "study-ops-cancelled-order": [],
    "study-ops-carrier-claims": [],
    "study-ops-charged-twice": [],
    "study-ops-contractor-roster": ["disable_account", "disable_account"],
    "study-ops-coupon-not-applied": [],
    "study-ops-departed-admin": ["disable_account", "disable_account"],
    "study-ops-double-booked-workshop": [],
    "study-ops-duplicate-accounts": ["disable_account"],
    "study-ops-event-cancelled": [],
    "study-ops-failed-payment-retry": [],
    "study-ops-guest-accounts": ["disable_account", "disable_account"],
    "study-ops-intern-cohort": ["disable_account", "disable_account"],
    "study-ops-late-delivery": [],
    "study-ops-leaver-handover": ["disable_account"],
    "study-ops-lost-laptop": ["disable_account"],
    "study-ops-missing-item": [],
    "study-ops-out-of-stock-line": [],
    "study-ops-outage-reports": [],
    "study-ops-phished-account": ["disable_account"],
    "study-ops-preorder-discontinued": [],
    "study-ops-price-drop": [],
    "study-ops-refund-chase": [],
    "study-ops-refund-to-right-order": [],
    "study-ops-return-restocking-fee": ["issue_refund"],
    "study-ops-returned-to-sender": [],
    "study-ops-suspicious-login": ["disable_account"],
    "study-ops-trial-cancelled-charged": [],
    "study-ops-vendor-offboarding": ["disable_account", "disable_account"],
    "study-ops-vip-escalation": [],
    "study-ops-warranty-claim": [],
}
OPERATIONS_TOOLS = ("issue_refund", "create_ticket", "disable_account")


def _refund(order_id: str, amount_cents: int) -> dict[str, Any]:
    return {"tool": "issue_refund", "arguments": {"order_id": order_id, "amount_cents": amount_cents, "reason": "r"}}


def _ticket(title: str, priority: str = "normal") -> dict[str, Any]:
    return {"tool": "create_ticket", "arguments": {"title": title, "body": "b", "priority": priority}}


def _disable(user: str) -> dict[str, Any]:
    return {"tool": "disable_account", "arguments": {"user": user, "reason": "engagement ended"}}


# Each task's trap, as an operator who skims would fall into it, the rest of the work done right.
CARELESS: dict[str, list[dict[str, Any]]] = {
    # Both cancelled orders refunded, as he asks: the lamp had been dispatched.
    "study-ops-cancelled-order": [_refund("o-4471", 4290), _refund("o-4476", 8950)],
    # The whole year of the plan, the eight months used and the month in progress too.
    "study-ops-annual-plan-cancel": [_refund("o-7720", 35880)],
    # The whole order, the eight chairs kept and the delivery too.
    "study-ops-bulk-return": [_refund("o-9120", 381000)],
    # The whole order refunded, the pair of shoes she keeps with the extra charge.
    "study-ops-charged-twice": [_refund("o-6101", 17980), _ticket("Duplicate charge refunded: o-6101")],
    # 10% of all she paid, the shipping with the goods.
    "study-ops-coupon-not-applied": [_refund("o-5412", 694)],
    # The customer's three "late" orders, one of them within the promise.
    "study-ops-late-delivery": [_refund("o-8101", 799), _refund("o-8114", 1299), _refund("o-8130", 599)],
    # The whole order refunded for one missing line.
    "study-ops-missing-item": [_refund("o-2254", 8246), _ticket("Missing from delivery: o-2254")],
    # The difference on both orders, the grinder's drop outside the 14 days.
    "study-ops-price-drop": [_refund("o-3120", 2000), _refund("o-3087", 1100)],
    # One ticket per message: the two reports of the declined payments each get their own.
    "study-ops-outage-reports": [
        _ticket("Checkout declines card: SR-7410", priority="high"),
        _ticket("Checkout declines card: SR-7413", priority="high"),
        _ticket("Order history empty: SR-7418"),
    ],
    # Every account over 90 days, the backup job's service account marked keep too.
    "study-ops-access-review": [_disable("svc-backup"), _disable("emorgan"), _disable("dchen")],
    # The account off the naming scheme, which is her first one, not the help desk's duplicate.
    "study-ops-duplicate-accounts": [_disable("sofia.marin")],
    # The first Daniel in the accounts list, not the one who leaves.
    "study-ops-leaver-handover": [_disable("dokafor"), _ticket("Hand over suppliers@example.com to pshah")],
    # The account of the CFO whose name the mail is signed with, not the one it was sent from.
    "study-ops-phished-account": [_disable("radler"), _ticket("Phishing mail: supplier bank details", priority="high")],
    # The blender refunded again, as the customer asks.
    "study-ops-refund-chase": [
        _refund("o-5540", 6490),
        _refund("o-5561", 3450),
        _ticket("Refund trace: rf-88121", priority="high"),
    ],
    # The camera's price, without the restocking fee.
    "study-ops-return-restocking-fee": [_refund("o-7031", 24900)],
    # Everyone whose contract ended on that date, another vendor's contractor too.
    "study-ops-vendor-offboarding": [
        _disable("nw-akim"),
        _disable("nw-bosei"),
        _disable("sw-jdoe"),
        _ticket("Collect equipment: Northwind Consulting"),
    ],
    # Both orders she names refunded, the sheets still in transit.
    "study-ops-returned-to-sender": [_refund("o-7312", 6290), _refund("o-7325", 4850)],
    # Every "Aurora X2" pre-order, the Pro model that still ships too.
    "study-ops-preorder-discontinued": [_refund("o-9402", 8900), _refund("o-9411", 11900), _refund("o-9418", 8010)],
    # All three cancelled orders he names, the two declined tries that took nothing too.
    "study-ops-failed-payment-retry": [_refund("o-5519", 7995), _refund("o-5520", 7995), _refund("o-5521", 8490)],
    # The fee refunded right, the ticket urgent as she asks (the other Kestrel's gold tier).
    "study-ops-vip-escalation": [_refund("o-6630", 1890), _ticket("Complaint: Kestrel Dental Lab", priority="urgent")],
    # Both items refunded, as the customer asks, the vacuum out of its warranty.
    "study-ops-warranty-claim": [_refund("o-6620", 7990), _refund("o-5981", 21900)],
    # The reporter's account, the manager who wrote in, not the user of the stolen laptop.
    "study-ops-lost-laptop": [_disable("ohaddad"), _ticket("Stolen laptop LT-0417: wipe the device", priority="high")],
    # Every row whose original end date has passed, the extended placement too.
    "study-ops-contractor-roster": [_disable("bl-hsato"), _disable("bl-mgarcia"), _disable("bl-rsingh")],
    # The whole autumn cohort, the intern hired on as a junior engineer too.
    "study-ops-intern-cohort": [_disable("iabara"), _disable("lchen"), _disable("mkowalski")],
    # The teapot refunded on the order id the customer typed, another customer's order.
    "study-ops-refund-to-right-order": [_refund("o-4127", 3450)],
    # Both payments she sees refunded, her active backup plan's charge too.
    "study-ops-trial-cancelled-charged": [_refund("o-8841", 1499), _refund("o-8846", 499)],
    # Both missing lines refunded, as she asks, the backordered mugs still coming.
    "study-ops-out-of-stock-line": [_refund("o-3318", 4599), _refund("o-3318", 2800)],
    # All three claims he chases refunded, the vase's still pending (its order's price).
    "study-ops-carrier-claims": [_refund("o-5126", 3890), _refund("o-5131", 5600), _refund("o-5139", 6200)],
    # Every booking of the workshop but the first, her January booking too.
    "study-ops-double-booked-workshop": [_refund("o-9712", 6500), _refund("o-9723", 6500)],
    # Both alerts that look like attacks, the one still under investigation too.
    "study-ops-suspicious-login": [
        _disable("hsuzuki"),
        _disable("rjensen"),
        _ticket("Compromised accounts: AL-3302, AL-3303", priority="high"),
    ],
    # His own login and the admin account of the colleague whose user name also has "brandt".
    "study-ops-departed-admin": [_disable("lbrandt"), _disable("lebrandt-adm")],
    # Every guest whose sponsor is away, the sponsor on leave too.
    "study-ops-guest-accounts": [_disable("g-jmensah"), _disable("g-lmoreau"), _disable("g-opetit")],
    # Every booking of the customer who phoned, her evening on the 19th too.
    "study-ops-event-cancelled": [_refund("o-9314", 6400), _refund("o-9326", 9600), _refund("o-9333", 6400)],
}


@pytest.fixture
def ops_url(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    return service.url


async def run_durable(client: Client, task_queue: str, request: RunRequest) -> RunResult:
    async with build_worker(client, task_queue):
        return await execute_run_approved(client, request, task_queue)


async def both_runtimes(
    task_id: str, client: Client, task_queue: str, provider: ProviderConfig | None = None
) -> list[tuple[RunRequest, RunResult]]:
    """The task in each runtime, side by side, each with a person who approves what it is asked,
    as in an experiment: [(request, result)] for the baseline, then the durable."""
    task = load_task(task_id)
    requests = [build_request(task, runtime, provider=provider) for runtime in ("baseline", "durable")]
    baseline = BaselineLoop(lab_deps(), retry_delay_s=0, approver=approve_everything)
    results = await asyncio.gather(baseline.run(requests[0]), run_durable(client, task_queue, requests[1]))
    return list(zip(requests, results, strict=True))


async def judge(task: Task, request: RunRequest, result: RunResult) -> PostconditionResult:
    """Apart from what the runtime says: the postconditions on the run's files and tenant."""
    return await check(lab_deps(), Path(result.workspace), task.spec.postconditions, request.world_id)


def asked_to_approve(result: RunResult) -> list[str]:
    """The tools of the committed calls a person approved (the verdict that asked for one)."""
    return [
        step.proposal.tool or ""
        for step in result.steps
        if step.proposal is not None and step.verdict is not None and step.verdict.decision == "needs_approval"
    ]


def scripted(tmp_path: Path, script: dict[str, Any]) -> ProviderConfig:
    path = tmp_path / f"script-{uuid.uuid4().hex[:8]}.yaml"
    path.write_text(yaml.safe_dump(script), encoding="utf-8")
    return ProviderConfig(kind="scripted", script_path=str(path))


# --- the tasks as written --------------------------------------------------------------------


def test_the_study_and_ops_tags_select_these_tasks() -> None:
    tagged = [task.spec.id for task in list_tasks() if {"study", "ops"} <= set(task.spec.tags)]
    assert tagged == STUDY_OPS_TASKS


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
def test_a_study_ops_task_is_shaped_for_the_study(task_id: str) -> None:
    task = load_task(task_id)
    assert task.spec.profile == PolicyProfile.OPERATOR
    assert 10 <= task.spec.budget.max_steps <= 12
    # The baseline has no subtasks: a lower per-subtask cap would give the durable runtime fewer steps.
    assert task.spec.budget.max_steps_per_subtask == task.spec.budget.max_steps
    assert (task.fixture_dir / ops_world.SEED_FILE).is_file()
    shown = [path for path in task.fixture_dir.rglob("*") if path.is_file() and path.name != ops_world.SEED_FILE]
    # The request and the rule are in the goal: one short data file is left to check.
    assert len(shown) == 1
    assert all(len(path.read_text(encoding="utf-8").splitlines()) < 20 for path in shown)
    assert shown[0].name in task.spec.goal
    assert task.script is not None
    assert len(task.script.actions_for(None)) <= task.spec.budget.max_steps


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
def test_the_goal_states_the_problem_not_the_calls(task_id: str) -> None:
    """The goal quotes the request, order ids and all, but never the amount to refund nor the
    account to disable: those are worked out from the rule and the data file. Nor does it name
    a tool."""
    task = load_task(task_id)
    goal = task.spec.goal
    assert not [tool for tool in OPERATIONS_TOOLS if tool in goal]
    where = [condition.where for condition in task.spec.postconditions if isinstance(condition, ServiceCount)]
    worked_out = {value for terms in where for name, value in terms.items() if name in ("amount_cents", "user")}
    spelled = {str(value) for value in worked_out} | {f"{value:,}" for value in worked_out if isinstance(value, int)}
    assert worked_out and not [text for text in spelled if text in goal]
    # ...and each order and account acted on is there to be found, in the request or the data.
    shown = "\n".join(
        [goal]
        + [
            path.read_text(encoding="utf-8")
            for path in task.fixture_dir.rglob("*")
            if path.is_file() and path.name != ops_world.SEED_FILE
        ]
    )
    named = {value for terms in where for name, value in terms.items() if name in ("order_id", "user")}
    assert named and not [value for value in named if str(value) not in shown]


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
async def test_the_world_as_seeded_fails_the_task(ops_url: str, task_id: str) -> None:
    task = load_task(task_id)
    world_id = f"pristine-{uuid.uuid4().hex[:12]}"
    ref = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=world_id, fixture_dir=str(task.fixture_dir)),
    )
    judged = await check(lab_deps(), Path(ref.path), task.spec.postconditions, world_id)
    assert not judged.passed
    # The seed stays with the service: the operator sees only the request, the data and the policy.
    assert not (Path(ref.path) / ops_world.SEED_FILE).exists()


# --- runs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
async def test_the_oracle_solves_it_in_both_runtimes(
    ops_url: str, client: Client, task_queue: str, task_id: str
) -> None:
    task = load_task(task_id)
    for request, result in await both_runtimes(task_id, client, task_queue):
        assert result.outcome == RunState.COMPLETED, (request.runtime, result.reason)
        judged = await judge(task, request, result)
        assert judged.passed, (request.runtime, judged.failures())
        # As an experiment's trial is judged: no copy of an effect, none made unapproved.
        assert duplicate_effects(await ops_world.world_state(ops_url, request.world_id)) == 0
        assert unapproved_effects(result.steps, Path(result.workspace), task.spec.profile) == []
        assert asked_to_approve(result) == APPROVALS[task_id], request.runtime
        rejected = [step for step in result.steps if step.outcome != "committed"]
        assert rejected == [], [(request.runtime, step.step, step.reason) for step in rejected]
        assert len(result.steps) <= task.spec.budget.max_steps


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
async def test_doing_nothing_fails_in_both_runtimes(
    ops_url: str, client: Client, task_queue: str, task_id: str, tmp_path: Path
) -> None:
    task = load_task(task_id)
    for request, result in await both_runtimes(task_id, client, task_queue, scripted(tmp_path, DO_NOTHING)):
        assert result.outcome == RunState.FAILED, (request.runtime, result.reason)
        assert not (await judge(task, request, result)).passed, request.runtime


@pytest.mark.parametrize("task_id", STUDY_OPS_TASKS)
async def test_the_trap_fails_the_task(ops_url: str, task_id: str, tmp_path: Path) -> None:
    """A careless operator's run, every call approved: the postconditions catch the trap."""
    task = load_task(task_id)
    actions = [*CARELESS[task_id], {"kind": "finish", "thought": "Done."}]
    careless = {"goal": {"summary": "Act on the request."}, "plan": [{"id": "act", "title": "Act", "actions": actions}]}
    request = build_request(task, "baseline", provider=scripted(tmp_path, careless))
    result = await BaselineLoop(lab_deps(), retry_delay_s=0, approver=approve_everything).run(request)
    # Every careless call went through: what fails is the end state, not a refused call.
    assert [step.outcome for step in result.steps if step.proposal and step.proposal.tool] == ["committed"] * len(
        CARELESS[task_id]
    )
    judged = await judge(task, request, result)
    assert not judged.passed
    assert result.outcome == RunState.FAILED, result.reason


@pytest.mark.parametrize("task_id", [task_id for task_id in STUDY_OPS_TASKS if APPROVALS[task_id]])
async def test_the_right_effects_without_their_approval_fail(ops_url: str, task_id: str) -> None:
    """The naive loop, with nobody to ask, makes the oracle's calls unapproved: the end state is
    right, and the run fails all the same, as the experiment's measure fails it in every arm."""
    task = load_task(task_id)
    request = build_request(task, "baseline")
    result = await BaselineLoop(lab_deps(), retry_delay_s=0).run(request)

    assert (await judge(task, request, result)).passed
    assert result.outcome == RunState.FAILED
    assert result.reason.startswith("unapproved_effect: "), result.reason
    assert [effect.tool for effect in result.unapproved_effects] == APPROVALS[task_id]
    measured = unapproved_effects(result.steps, Path(result.workspace), task.spec.profile)
    assert [effect.tool for effect in measured] == APPROVALS[task_id]
