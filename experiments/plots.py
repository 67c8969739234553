"""The report's figures as PNG files, drawn from `ExperimentResults` and the valid trials.

Figures are built with matplotlib's object API on the Agg canvas: no display, no pyplot
state, nothing left open between figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from contracts.experiment import TrialRecord
from experiments.metrics import ALL_SCENARIOS, ExperimentResults

__all__ = ["PASS_HAT_PNG", "SUCCESS_BY_FAULT_PNG", "TOKENS_PNG", "WALL_TIME_PNG", "write_plots"]

PASS_HAT_PNG = "pass_hat_k.png"
SUCCESS_BY_FAULT_PNG = "success_by_fault.png"
WALL_TIME_PNG = "wall_time.png"
TOKENS_PNG = "tokens.png"

# One colour and marker per runtime, the same in every figure.
_STYLE = {
    "durable": ("#1f77b4", "o", "-"),
    "baseline": ("#d62728", "s", "--"),
    "baseline+verifier": ("#ff7f0e", "^", ":"),
}
_FALLBACK = ("#7f7f7f", "D", "-.")
_DPI = 120


def write_plots(directory: Path, results: ExperimentResults, trials: Sequence[TrialRecord]) -> list[Path]:
    """Write every figure into `directory`; returns their paths."""
    valid = [trial for trial in trials if trial.valid]
    runtimes = [arm.runtime for arm in results.runtimes]
    scenarios = list(dict.fromkeys(arm.scenario for arm in results.arms))
    figures = {
        PASS_HAT_PNG: _pass_hat(results, runtimes, scenarios),
        SUCCESS_BY_FAULT_PNG: _success_by_fault(results, runtimes),
        WALL_TIME_PNG: _wall_time(valid, runtimes, scenarios),
        TOKENS_PNG: _tokens(valid, runtimes, scenarios),
    }
    paths = []
    for name, figure in figures.items():
        path = directory / name
        FigureCanvasAgg(figure).print_png(str(path))
        paths.append(path)
    return paths


def _pass_hat(results: ExperimentResults, runtimes: list[str], scenarios: list[str]) -> Figure:
    panels = scenarios or [ALL_SCENARIOS]
    columns = min(len(panels), 3)
    rows = -(-len(panels) // columns)
    figure = Figure(figsize=(4.2 * columns + 0.6, 3.6 * rows + 0.8), dpi=_DPI, layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True)
    figure.suptitle("pass^k: probability that all k trials of a task succeed (mean over tasks)")
    for index, ax in enumerate(axes.flat):
        if index >= len(panels):
            ax.set_visible(False)
            continue
        scenario = panels[index]
        for offset, runtime in _dodged(runtimes, width=0.12):
            arm = next((a for a in results.arms if a.runtime == runtime and a.scenario == scenario), None)
            if arm is None or not arm.pass_hat:
                continue
            colour, marker, line = _STYLE.get(runtime, _FALLBACK)
            ks = [point.k + offset for point in arm.pass_hat]
            ax.plot(ks, [p.value for p in arm.pass_hat], color=colour, marker=marker, linestyle=line, label=runtime)
        ax.set_title(f"scenario: {scenario}")
        ax.set_xlabel("k (trials that must all succeed)")
        ax.set_ylabel("pass^k")
        _rate_axis(ax)
        ax.set_xticks(range(1, max(results.max_k, 1) + 1))
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(title="runtime", fontsize="small")
        else:
            _empty(ax)
    return figure


def _success_by_fault(results: ExperimentResults, runtimes: list[str]) -> Figure:
    kinds = list(dict.fromkeys(str(row.fault_kind) for row in results.fault_kinds))
    figure = Figure(figsize=(max(6.0, 1.8 * len(kinds) + 2.5), 4.5), dpi=_DPI, layout="constrained")
    ax = figure.subplots()
    ax.set_title("Success rate per fault kind\n(valid trials; error bars: 95% Wilson interval)")
    width = 0.8 / max(len(runtimes), 1)
    for offset, runtime in _dodged(runtimes, width=width):
        rows = {str(r.fault_kind): r.success for r in results.fault_kinds if r.runtime == runtime}
        xs = [i + offset for i, kind in enumerate(kinds) if kind in rows and rows[kind].rate is not None]
        shown = [rows[kind] for kind in kinds if kind in rows and rows[kind].rate is not None]
        rates = [s.rate or 0.0 for s in shown]
        # Clamped: at a rate of 0 or 1 the interval's end equals the rate up to rounding, and
        # matplotlib refuses an error bar of -1e-17.
        errors = [
            [max(0.0, r - s.ci_low) for r, s in zip(rates, shown, strict=True)],
            [max(0.0, s.ci_high - r) for r, s in zip(rates, shown, strict=True)],
        ]
        colour = _STYLE.get(runtime, _FALLBACK)[0]
        ax.bar(xs, rates, width * 0.95, yerr=errors, capsize=4, color=colour, alpha=0.85, label=runtime)
        for x, s in zip(xs, shown, strict=True):
            ax.text(
                x,
                0.02,
                f"{s.successes}/{s.valid_trials}",
                ha="center",
                va="bottom",
                fontsize="small",
                color="white" if s.rate else "black",
                fontweight="bold",
            )
    ax.set_xticks(range(len(kinds)), kinds)
    ax.set_xlabel("fault kind")
    ax.set_ylabel("success rate")
    _rate_axis(ax)
    ax.grid(axis="y", alpha=0.3)
    if kinds:
        ax.legend(title="runtime", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        _empty(ax)
    return figure


def _wall_time(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = _grouped_axes(scenarios, "Wall time per trial (valid trials; box: quartiles, dots: trials)")
    width = 0.8 / max(len(runtimes), 1)
    for offset, runtime in _dodged(runtimes, width=width):
        colour = _STYLE.get(runtime, _FALLBACK)[0]
        for index, scenario in enumerate(scenarios):
            times = [t.wall_time_s for t in valid if t.runtime == runtime and t.scenario == scenario]
            if not times:
                continue
            position = index + offset
            box = ax.boxplot(
                [times],
                positions=[position],
                widths=width * 0.8,
                patch_artist=True,
                showfliers=False,
                manage_ticks=False,
            )
            for patch in box["boxes"]:
                patch.set(facecolor=colour, alpha=0.35, edgecolor=colour)
            for median in box["medians"]:
                median.set(color=colour, linewidth=2)
            # A fixed spread, not random jitter: the same trials draw the same figure.
            spread = [position + width * 0.15 * ((i % 5) - 2) / 2 for i in range(len(times))]
            ax.scatter(spread, times, s=12, color=colour, zorder=3)
    ax.set_ylabel("wall time (s)")
    ax.set_ylim(bottom=0)
    _runtime_legend(ax, runtimes, valid)
    return figure


def _tokens(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = _grouped_axes(scenarios, "Tokens per trial, mean (valid trials; whisker: one standard deviation)")
    width = 0.8 / max(len(runtimes), 1)
    for offset, runtime in _dodged(runtimes, width=width):
        colour = _STYLE.get(runtime, _FALLBACK)[0]
        for index, scenario in enumerate(scenarios):
            arm = [t for t in valid if t.runtime == runtime and t.scenario == scenario]
            if not arm:
                continue
            useful = sum(t.tokens_useful for t in arm) / len(arm)
            wasted = sum(t.tokens_wasted for t in arm) / len(arm)
            totals = [t.tokens for t in arm]
            mean = sum(totals) / len(totals)
            spread = (sum((x - mean) ** 2 for x in totals) / (len(totals) - 1)) ** 0.5 if len(totals) > 1 else 0.0
            x = index + offset
            ax.bar(x, useful, width * 0.95, color=colour, alpha=0.85)
            ax.bar(x, wasted, width * 0.95, bottom=useful, color=colour, alpha=0.35, hatch="//", edgecolor=colour)
            ax.errorbar(x, mean, yerr=spread, color="black", capsize=4)
    ax.set_ylabel("tokens per trial")
    ax.set_ylim(bottom=0)
    parts = [
        Patch(facecolor="#555555", alpha=0.85, label="useful"),
        Patch(facecolor="#555555", alpha=0.35, hatch="//", label="wasted"),
    ]
    _runtime_legend(ax, runtimes, valid, extra=parts)
    return figure


def _grouped_axes(scenarios: list[str], title: str) -> tuple[Figure, Axes]:
    figure = Figure(figsize=(max(6.0, 2.2 * len(scenarios) + 2.5), 4.5), dpi=_DPI, layout="constrained")
    ax = figure.subplots()
    ax.set_title(title)
    ax.set_xticks(range(len(scenarios)), scenarios)
    ax.set_xlabel("scenario")
    ax.grid(axis="y", alpha=0.3)
    return figure, ax


def _runtime_legend(ax: Axes, runtimes: list[str], valid: list[TrialRecord], extra: Sequence[Patch] = ()) -> None:
    if not valid:
        _empty(ax)
        return
    handles = [Patch(facecolor=_STYLE.get(r, _FALLBACK)[0], alpha=0.85, label=r) for r in runtimes]
    ax.legend(handles=[*handles, *extra], fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))


def _dodged(runtimes: list[str], width: float) -> list[tuple[float, str]]:
    """Each runtime's offset from its group's centre, so bars and points do not overlap."""
    middle = (len(runtimes) - 1) / 2
    return [((index - middle) * width, runtime) for index, runtime in enumerate(runtimes)]


def _rate_axis(ax: Axes) -> None:
    """0 to 1, with a margin so that points and error bars at 0 or 1 stay visible."""
    ax.set_ylim(-0.03, 1.04)
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def _empty(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no valid trials", transform=ax.transAxes, ha="center", va="center", color="grey")
