"""An experiment's figures, computed from its trial records and nothing else.

Pure functions: the same records give the same numbers, and every number a report shows is a
field of `ExperimentResults`. The counting rules, in one place:

- An invalid trial (a configured fault never fired) is left out of every per-arm figure (per
  protocol) and listed apart, with its reason: it did not run under the condition the arm names.
- A valid trial succeeds only when its record says so, it had no infrastructure error and no
  effect repeated. An infrastructure failure (the lab's, not the agent's) is a failure.
- pass^k is the tau-bench estimator: the mean over tasks of C(c, k) / C(n, k), with c successes
  in n valid trials. A task with n < k has no estimate at that k and is left out of the mean;
  each `PassHat` names the tasks it left out. It is given only where every task has the same
  number of valid trials (`ArmMetrics.pass_hat_withheld` says when not).
- Arms are compared on the unit of analysis, the (task, seed) trajectory (`compare.py`):
  paired differences with cluster-bootstrap intervals, McNemar, the fault endpoint, intention
  to treat beside per protocol, cost per success; an invalid trial counts there as what
  happened (intention to treat) unless a figure says per protocol.

    intervals.py   success rates and their Wilson intervals
    pass_hat.py    pass^k
    results.py     `ExperimentResults` and its parts, as `results.json` holds them
    aggregate.py   `summarize`: trial records to `ExperimentResults`, by the rules above
    counting.py    the success rule
    model_calls.py live and replayed calls, and a local server's timings of them, per runtime
    failures.py    what went wrong in failed trials, by kind, per runtime
    invariants.py  the lab's invariants over the durable trials, listed apart (not in success)
    counterfactual.py  each durable trial beside its fork after step K, per task and scenario
    crashes.py     crash consistency: repeated effects, flips, work redone, time back at work
    comparison.py  `Comparison` and its parts, as `results.json` holds them
    compare.py     `compare_arms`: the parts below, together
    bootstrap.py   the cluster bootstrap every interval of the comparison comes from
    paired.py      paired success differences between arms, McNemar
    fault_endpoint.py  P(fail under fault | succeeded without it), per arm
    populations.py intention to treat beside per protocol, exclusions by reason
    cost.py        tokens, model-seconds and wall time per trial and per success
    replicates.py  the scripted oracle's cells as outcomes (one trajectory k times)
    spend.py       where each arm's tokens and model-seconds go, per success, and its ratio to the baseline's
"""

from experiments.metrics.aggregate import summarize
from experiments.metrics.bootstrap import BootstrapSpec, Interval, cluster_bootstrap
from experiments.metrics.comparison import (
    ArmCost,
    ArmPopulations,
    Comparison,
    CostFigure,
    FaultEndpoint,
    PairedDifference,
    ReplicateOutcomes,
)
from experiments.metrics.counterfactual import CounterfactualMetrics, fork_succeeded
from experiments.metrics.counting import counts_as_success
from experiments.metrics.intervals import SuccessRate, success_rate, wilson_interval
from experiments.metrics.pass_hat import PassHat, pass_hat_curve, pass_hat_k
from experiments.metrics.results import (
    ALL_SCENARIOS,
    ArmMetrics,
    ArmSpend,
    CrashConsistency,
    ExperimentResults,
    FaultKindMetrics,
    InfrastructureFailure,
    InvalidTrial,
    InvariantFinding,
    SpendShare,
    TaskMetrics,
)
from experiments.metrics.spend import REFERENCES, TARGET_RATIO, SpendRatio, spend_ratios

__all__ = [
    "ALL_SCENARIOS",
    "REFERENCES",
    "TARGET_RATIO",
    "ArmCost",
    "ArmMetrics",
    "ArmPopulations",
    "ArmSpend",
    "BootstrapSpec",
    "Comparison",
    "CostFigure",
    "CounterfactualMetrics",
    "CrashConsistency",
    "ExperimentResults",
    "FaultEndpoint",
    "FaultKindMetrics",
    "InfrastructureFailure",
    "Interval",
    "InvalidTrial",
    "InvariantFinding",
    "PairedDifference",
    "PassHat",
    "ReplicateOutcomes",
    "SpendRatio",
    "SpendShare",
    "SuccessRate",
    "TaskMetrics",
    "cluster_bootstrap",
    "counts_as_success",
    "fork_succeeded",
    "pass_hat_curve",
    "pass_hat_k",
    "spend_ratios",
    "success_rate",
    "summarize",
    "wilson_interval",
]
