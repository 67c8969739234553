"""The report's figures as PNG files, drawn from `ExperimentResults` and the valid trials.

Figures are built with matplotlib's object API on the Agg canvas: no display, no pyplot
state, nothing left open between figures. Each must read on its own at any size: titles are
wrapped to the figure's width, legends sit below the axes in the constrained layout (which
makes room for them), and y limits leave room above the tallest bar or whisker.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from contracts.experiment import TrialRecord
from experiments.metrics import ALL_SCENARIOS, ExperimentResults

__all__ = ["PASS_HAT_PNG", "SUCCESS_BY_FAULT_PNG", "TOKENS_PNG", "WALL_TIME_PNG", "draw_figures", "write_plots"]

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
_MIN_WIDTH = 6.0  # inches: the narrowest figure, one scenario and one runtime
_GROUP_WIDTH = 1.9  # inches per scenario or fault kind on a grouped axis
_PANEL_WIDTH, _PANEL_HEIGHT = 4.2, 3.4  # inches per pass^k panel
# Titles are matplotlib's "large" (12 pt); DejaVu Sans averages under 0.55 em a character.
_TITLE_CHAR_INCHES = 12 * 0.55 / 72
_TICK_CHAR_INCHES = 10 * 0.6 / 72
# Above the tallest bar, whisker or dot, as a share of it: room for the cap to show.
_HEADROOM = 0.1


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
    return {
        PASS_HAT_PNG: _pass_hat(results, runtimes, scenarios),
        SUCCESS_BY_FAULT_PNG: _success_by_fault(results, runtimes),
        WALL_TIME_PNG: _wall_time(valid, runtimes, scenarios),
        TOKENS_PNG: _tokens(valid, runtimes, scenarios),
    }


def _pass_hat(results: ExperimentResults, runtimes: list[str], scenarios: list[str]) -> Figure:
    panels = scenarios or [ALL_SCENARIOS]
    columns = min(len(panels), 3)
    rows = -(-len(panels) // columns)
    width = max(_MIN_WIDTH, _PANEL_WIDTH * columns + 0.6)
    figure = Figure(figsize=(width, _PANEL_HEIGHT * rows + 1.4), dpi=_DPI, layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False, sharey=True)
    figure.suptitle(_wrap("pass^k: probability that all k trials of a task succeed\n(mean over tasks)", width))
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
        ax.set_title(_wrap(f"scenario: {scenario}", width / columns))
        ax.set_xlabel("k (trials that must all succeed)")
        ax.set_ylabel("pass^k")
        _rate_axis(ax)
        ax.set_xticks(range(1, max(results.max_k, 1) + 1))
        ax.set_xlim(0.5, max(results.max_k, 1) + 0.5)
        ax.grid(alpha=0.3)
        if not ax.get_lines():
            _empty(ax)
    # One legend for every panel: the runtimes are the same in each, and inside a panel it
    # would hide the points at pass^k = 1.
    handles = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    if handles:
        _legend_below(figure, list(handles.values()), title="runtime")
    return figure


def _success_by_fault(results: ExperimentResults, runtimes: list[str]) -> Figure:
    kinds = list(dict.fromkeys(str(row.fault_kind) for row in results.fault_kinds))
    figure, ax = _grouped_axes(
        kinds, "Success rate per fault kind", "valid trials; error bars: 95% Wilson interval", "fault kind"
    )
    width = _slot(runtimes)
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
    ax.set_ylabel("success rate")
    _rate_axis(ax)
    if kinds:
        _legend_below(figure, ax.get_legend_handles_labels()[0], title="runtime")
    else:
        _empty(ax)
    return figure


def _wall_time(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = _grouped_axes(scenarios, "Wall time per trial", "valid trials; box: quartiles, dots: trials")
    width = _slot(runtimes)
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
    _zero_based(ax, max((t.wall_time_s for t in valid), default=0.0))
    _runtime_legend(figure, ax, runtimes, valid)
    return figure


def _tokens(valid: list[TrialRecord], runtimes: list[str], scenarios: list[str]) -> Figure:
    figure, ax = _grouped_axes(scenarios, "Tokens per trial, mean", "valid trials; whisker: one standard deviation")
    width = _slot(runtimes)
    top = 0.0
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
            if wasted:
                ax.bar(x, wasted, width * 0.95, bottom=useful, color=colour, alpha=0.35, hatch="//", edgecolor=colour)
            # No token count is negative: the lower whisker stops at 0.
            ax.errorbar(x, mean, yerr=[[min(spread, mean)], [spread]], color="black", capsize=4)
            top = max(top, useful + wasted, mean + spread)
    ax.set_ylabel("tokens per trial")
    _zero_based(ax, top)
    parts = [
        Patch(facecolor="#555555", alpha=0.85, label="useful"),
        Patch(facecolor="#555555", alpha=0.35, hatch="//", label="wasted"),
    ]
    _runtime_legend(figure, ax, runtimes, valid, extra=parts)
    return figure


def _grouped_axes(groups: list[str], title: str, detail: str, xlabel: str = "scenario") -> tuple[Figure, Axes]:
    """One axes with a tick per group (scenario or fault kind), titled `title` over `(detail)`."""
    width = max(_MIN_WIDTH, _GROUP_WIDTH * len(groups) + 1.2)
    figure = Figure(figsize=(width, 4.8), dpi=_DPI, layout="constrained")
    ax = figure.subplots()
    ax.set_title(_wrap(f"{title}\n({detail})", width))
    # A long name takes two lines rather than run into its neighbour's.
    fits = int(_GROUP_WIDTH * 0.95 / _TICK_CHAR_INCHES)
    ax.set_xticks(range(len(groups)), [textwrap.fill(group, fits) for group in groups])
    # Fixed, not autoscaled: a lone bar would otherwise fill the axes.
    ax.set_xlim(-0.5, max(len(groups), 1) - 0.5)
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
    return figure, ax


def _runtime_legend(
    figure: Figure, ax: Axes, runtimes: list[str], valid: list[TrialRecord], extra: Sequence[Patch] = ()
) -> None:
    if not valid:
        _empty(ax)
        return
    handles = [Patch(facecolor=_STYLE.get(r, _FALLBACK)[0], alpha=0.85, label=r) for r in runtimes]
    _legend_below(figure, [*handles, *extra])


def _legend_below(figure: Figure, handles: Sequence[Artist], title: str | None = None) -> None:
    """A legend under the axes, in as many rows as the figure's width needs. Beside them it
    would narrow the axes until a title no longer fits above."""
    rows = math.ceil(len(handles) / max(1, int(figure.get_figwidth() // 1.6)))
    columns = math.ceil(len(handles) / rows)  # rows as full as each other
    figure.legend(handles=handles, loc="outside lower center", ncols=columns, title=title, fontsize="small")


def _wrap(text: str, width_inches: float) -> str:
    """`text` in lines no wider than the figure (less its margins); its own line breaks kept."""
    fits = max(16, int((width_inches - 0.4) / _TITLE_CHAR_INCHES))
    return "\n".join(part for line in text.splitlines() for part in textwrap.wrap(line, fits))


def _slot(runtimes: list[str]) -> float:
    """The width of one runtime's bar or box within its group: a lone runtime's takes half."""
    return 0.8 / max(len(runtimes), 2)


def _dodged(runtimes: list[str], width: float) -> list[tuple[float, str]]:
    """Each runtime's offset from its group's centre, so bars and points do not overlap."""
    middle = (len(runtimes) - 1) / 2
    return [((index - middle) * width, runtime) for index, runtime in enumerate(runtimes)]


def _rate_axis(ax: Axes) -> None:
    """0 to 1, with a margin so that points and error bars at 0 or 1 stay visible."""
    ax.set_ylim(-0.03, 1.04)
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def _zero_based(ax: Axes, top: float) -> None:
    """From 0 to above `top`, the highest bar, whisker or dot drawn: autoscaling stops at a
    bar's top, where a whisker of zero length (identical trials) hides under the spine."""
    ax.set_ylim(0, top * (1 + _HEADROOM) if top > 0 else 1.0)


def _empty(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no valid trials", transform=ax.transAxes, ha="center", va="center", color="grey")
