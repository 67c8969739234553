"""One trial: a task, a runtime, a fault scenario, a seed, in a world of its own; run with real
processes, then measured on the real end state.

Durable: a workflow on the cluster's dev server, run by worker processes that faults may kill
(another worker takes over). Baseline: the loop in a process of its own
(`experiments.baseline_process`); killed, it is run again on the same trial, as a user would:
the naive loop from the start, the journaled one (`baseline-journal`) from its journal.

    spec.py            what a trial is (`TrialSpec`), what trials share (`Lab`), its `RunRequest`
    fault_plan.py      the trial's fault in the experiment's fault book, and whether it fired
    durable_trial.py   the durable run: a workflow, approved by the experiment, a server restart
    baseline_trial.py  the baseline run: a process of its own, run again when killed
    outcome.py         what either run gives back to be measured
    random_crash.py    a crash at a (step, point) drawn on the arm's fault-free trajectory
    random_time_crash.py  a crash at a moment drawn over the arm's fault-free run time
    counterfactual.py  a durable trial forked after step K, live from there with another provider
    run.py             `run_trial`: one trial, start to end, judged and measured
"""

from experiments.trials.baseline_trial import BASELINE_ATTEMPTS
from experiments.trials.fault_plan import FaultBook
from experiments.trials.run import TRIAL_TIMEOUT_S, run_trial
from experiments.trials.spec import Lab, TrialSpec, request_for

__all__ = ["BASELINE_ATTEMPTS", "TRIAL_TIMEOUT_S", "FaultBook", "Lab", "TrialSpec", "request_for", "run_trial"]
