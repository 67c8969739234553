"""The report's figures as PNG files, drawn from `ExperimentResults` and the valid trials.

Figures are built with matplotlib's object API on the Agg canvas: no display, no pyplot
state, nothing left open between figures. Each must read on its own at any size: titles are
wrapped to the figure's width, legends sit below the axes in the constrained layout (which
makes room for them), and y limits leave room above the tallest bar or whisker (the helpers
for all of it are in `experiments.plot_layout`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from experiments import plot_layout as layout
from experiments.metrics import ALL_SCENARIOS, ExperimentResults
from experiments.trial_record import TrialRecord

__all__ = [
    "COUNTERFACTUAL_PNG",
    "PASS_HAT_PNG",
    "SUCCESS_BY_FAULT_PNG",
    "TOKENS_PNG",
    "WALL_TIME_PNG",
    "draw_figures",
    "write_plots",
]

PASS_HAT_PNG = "pass_hat_k.png"
SUCCESS_BY_FAULT_PNG = "success_by_fault.png"
WALL_TIME_PNG = "wall_time.png"
TOKENS_PNG = "tokens.png"
COUNTERFACTUAL_PNG = "counterfactual.png"

# One colour and marker per runtime, the same in every figure.
_STYLE = {
    "durable": ("#1f77b4", "o", "-"),
    "baseline": ("#d62728", "s", "--"),
    "baseline-journal": ("#2ca02c", "v", "-."),
    "baseline+verifier": ("#ff7f0e", "^", ":"),
}
_FALLBACK = ("#7f7f7f", "D", "-.")
_PANEL_WIDTH, _PANEL_HEIGHT = 4.2, 3.4  # inches per pass^k panel


def write_plots(directory: Path, results: ExperimentResults, trials: Sequence[TrialRecord]) -> list[Path]:
    """Write every figure into `directory`; returns their paths."""
    paths = []
    for name, figure in draw_figures(results, trials).items():
        path = directory / name
        FigureCanvasAgg(figure).print_png(str(path))
        paths.append(path)
    return paths


def draw_figures(results: ExperimentResults, trials: Sequence[TrialRecord]) -> dict[str, Figure]:
    """Every figure of the report, by file name."""
    valid = [trial for trial in trials if trial.valid]
    runtimes = [arm.runtime for arm in results.runtimes]
    scenarios = list(dict.fromkeys(arm.scenario for arm in results.arms))
    figures = {
        PASS_HAT_PNG: _pass_hat(results, runtimes, scenarios),
        SUCCESS_BY_FAULT_PNG: _success_by_fault(results, runtimes),
        WALL_TIME_PNG: _wall_time(valid, runtimes, scenarios),
        TOKENS_PNG: _tokens(valid, runtimes, scenarios),
    }
    if results.counterfactuals:
        figures[COUNTERFACTUAL_PNG] = _counterfactual(results)
    return figures


def _pass_hat(results: ExperimentResults, runtimes: list[str], scenarios: list[str]) -> Figure:
    panels = scenarios or [ALL_SCENARIOS]
    columns = min(len(panels), 3)
    rows = -(-len(panels) // columns)
    width = max(layout.MIN_WIDTH, _PANEL_WIDTH * columns + 0.6)
    figure = Figure(figsize=(width, _PANEL_HEIGHT * rows + 1.4), dpi=layout.DPI, layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True)
    figure.suptitle(layout.wrap("pass^k: probability that all k trials of a task succeed\n(mean over tasks)", width))
    for index, ax in enumerate(axes.flat):
        if index >= len(panels):
            ax.set_visible(False)
            continue
        scenario = panels[index]
        for offset, runtime in layout.dodged(runtimes, width=0.12):
            arm = next((a for a in results.arms if a.runtime == runtime and a.scenario == scenario), None)
            if arm is None or not arm.pass_hat:
                continue
            colour, marker, line = _STYLE.get(runtime, _FALLBACK)
            ks = [point.k + offset for point in arm.pass_hat]
            ax.plot(ks, [p.value for p in arm.pass_hat], color=colour, marker=marker, linestyle=line, label=runtime)
        ax.set_title(layout.wrap(f"scenario: {scenario}", width / columns))
        ax.set_xlabel("k (trials that must all succeed)")
        ax.set_ylabel("pass^k")
        layout.rate_axis(ax)
        ax.set_xticks(range(1, max(results.max_k, 1) + 1))
        ax.set_xlim(0.5, max(results.max_k, 1) + 0.5)
        ax.grid(alpha=0.3)
        if not ax.get_lines():
            layout.empty(ax)
    # One legend for every panel: the runtimes are the same in each, and inside a panel it
    # would hide the points at pass^k = 1.
    handles = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    if handles:
        layout.legend_below(figure, list(handles.values()), title="runtime")
    return figure


def _success_by_fault(results: ExperimentResults, runtimes: list[str]) -> Figure:
    kinds = list(dict.fromkeys(str(row.fault_kind) for row in results.fault_kinds))
    figure, ax = layout.grouped_axes(
        kinds, "Success rate per fault kind", "valid trials; error bars: 95% Wilson interval", "fault kind"
    )
    width = layout.slot(runtimes)
    for offset, runtime in layout.dodged(runtimes, width=width):
        rows = {str(r.fault_kind): r.success for r in results.fault_kinds if r.runtime == runtime}
        bars = [(i + offset, rows[kind]) for i, kind in enumerate(kinds) if kind in rows]
        layout.rate_bars(ax, bars, width, _STYLE.get(runtime, _FALLBACK)[0], runtime)
    ax.set_ylabel("success rate")
    layout.rate_axis(ax)
    if kinds:
        layout.legend_below(figure, ax.get_legend_handles_labels()[0], title="runtime")
    else:
        layout.empty(ax)
    return figure


def _counterfactual(results: ExperimentResults) -> Figure:
    rows, step = results.counterfactuals, results.counterfactuals[0].from_step
    detail = f"forked trials; each fork live from step {step + 1}; error bars: 95% Wilson interval"
    groups = [f"{row.task_id} / {row.scenario}" for row in rows]
    figure, ax = layout.grouped_axes(
        groups, f"Each durable trial and its fork after step {step}", detail, "task / scenario"
    )
    width = layout.slot(["trial", "fork"])
    (trial_x, _), (fork_x, _) = layout.dodged(["trial", "fork"], width)
    layout.rate_bars(
        ax, [(i + trial_x, row.trial_success) for i, row in enumerate(rows)], width, "#1f77b4", "the trial"
    )
    layout.rate_bars(ax, [(i + fork_x, row.fork_success) for i, row in enumerate(rows)], width, "#2ca02c", "its fork")
    ax.set_ylabel("success rate")
    layout.rate_axis(ax)
    layout.legend_below(figure, ax.get_legend_handles_labels()[0])
    return figure


def _wall_time(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = layout.grouped_axes(scenarios, "Wall time per trial", "valid trials; box: quartiles, dots: trials")
    width = layout.slot(runtimes)
    for offset, runtime in layout.dodged(runtimes, width=width):
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
    layout.zero_based(ax, max((t.wall_time_s for t in valid), default=0.0))
    _runtime_legend(figure, ax, runtimes, valid)
    return figure


def _tokens(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = layout.grouped_axes(
        scenarios, "Tokens per trial, mean", "valid trials; whisker: one standard deviation"
    )
    width = layout.slot(runtimes)
    top = 0.0
    for offset, runtime in layout.dodged(runtimes, width=width):
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
            if wasted:
                ax.bar(x, wasted, width * 0.95, bottom=useful, color=colour, alpha=0.35, hatch="//", edgecolor=colour)
            # No token count is negative: the lower whisker stops at 0.
            ax.errorbar(x, mean, yerr=[[min(spread, mean)], [spread]], color="black", capsize=4)
            top = max(top, useful + wasted, mean + spread)
    ax.set_ylabel("tokens per trial")
    layout.zero_based(ax, top)
    parts = [
        Patch(facecolor="#555555", alpha=0.85, label="useful"),
        Patch(facecolor="#555555", alpha=0.35, hatch="//", label="wasted"),
    ]
    _runtime_legend(figure, ax, runtimes, valid, extra=parts)
    return figure


def _runtime_legend(
    figure: Figure, ax: Axes, runtimes: list[str], valid: list[TrialRecord], extra: Sequence[Patch] = ()
) -> None:
    if not valid:
        layout.empty(ax)
        return
    handles = [Patch(facecolor=_STYLE.get(r, _FALLBACK)[0], alpha=0.85, label=r) for r in runtimes]
    layout.legend_below(figure, [*handles, *extra])
