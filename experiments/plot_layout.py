"""How the report's figures are laid out: sizes, titles that wrap to the figure's width, grouped
axes, legends below the axes, rate axes, and bars with their intervals. Every figure in
`experiments.plots` is built from these, so that each reads on its own at any size.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from experiments.metrics import SuccessRate

DPI = 120
MIN_WIDTH = 6.0  # inches: the narrowest figure, one scenario and one runtime
GROUP_WIDTH = 1.9  # inches per scenario or fault kind on a grouped axis
# Titles are matplotlib's "large" (12 pt); DejaVu Sans averages under 0.55 em a character.
_TITLE_CHAR_INCHES = 12 * 0.55 / 72
_TICK_CHAR_INCHES = 10 * 0.6 / 72
# Above the tallest bar, whisker or dot, as a share of it: room for the cap to show.
_HEADROOM = 0.1


def rate_bars(ax: Axes, bars: Sequence[tuple[float, SuccessRate]], width: float, colour: str, label: str) -> None:
    """A bar per (x, success rate), with its 95% interval and its count written at its foot."""
    shown = [(x, success) for x, success in bars if success.rate is not None]
    rates = [success.rate or 0.0 for _, success in shown]
    # Clamped: at a rate of 0 or 1 the interval's end equals the rate up to rounding, and
    # matplotlib refuses an error bar of -1e-17.
    errors = [
        [max(0.0, r - s.ci_low) for r, (_, s) in zip(rates, shown, strict=True)],
        [max(0.0, s.ci_high - r) for r, (_, s) in zip(rates, shown, strict=True)],
    ]
    xs = [x for x, _ in shown]
    ax.bar(xs, rates, width * 0.95, yerr=errors, capsize=4, color=colour, alpha=0.85, label=label)
    for x, s in shown:
        # Upright: four arms side by side leave a bar too narrow for "120/120" written across.
        # White only on a bar tall enough to hold it all.
        colour = "white" if (s.rate or 0.0) > 0.35 else "black"
        ax.text(x, 0.02, f"{s.successes}/{s.valid_trials}", ha="center", va="bottom", fontsize="small", color=colour,
                fontweight="bold", rotation=90)  # fmt: skip


def grouped_axes(groups: list[str], title: str, detail: str, xlabel: str = "scenario") -> tuple[Figure, Axes]:
    """One axes with a tick per group (scenario or fault kind), titled `title` over `(detail)`."""
    width = max(MIN_WIDTH, GROUP_WIDTH * len(groups) + 1.2)
    figure = Figure(figsize=(width, 4.8), dpi=DPI, layout="constrained")
    ax = figure.subplots()
    ax.set_title(wrap(f"{title}\n({detail})", width))
    # A long name takes two lines rather than run into its neighbour's.
    fits = int(GROUP_WIDTH * 0.95 / _TICK_CHAR_INCHES)
    ax.set_xticks(range(len(groups)), [textwrap.fill(group, fits) for group in groups])
    # Fixed, not autoscaled: a lone bar would otherwise fill the axes.
    ax.set_xlim(-0.5, max(len(groups), 1) - 0.5)
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
    return figure, ax


def legend_below(figure: Figure, handles: Sequence[Artist], title: str | None = None) -> None:
    """A legend under the axes, in as many rows as the figure's width needs. Beside them it
    would narrow the axes until a title no longer fits above."""
    rows = math.ceil(len(handles) / max(1, int(figure.get_figwidth() // 1.6)))
    columns = math.ceil(len(handles) / rows)  # rows as full as each other
    figure.legend(handles=handles, loc="outside lower center", ncols=columns, title=title, fontsize="small")


def wrap(text: str, width_inches: float) -> str:
    """`text` in lines no wider than the figure (less its margins); its own line breaks kept."""
    fits = max(16, int((width_inches - 0.4) / _TITLE_CHAR_INCHES))
    return "\n".join(part for line in text.splitlines() for part in textwrap.wrap(line, fits))


def slot(runtimes: list[str]) -> float:
    """The width of one runtime's bar or box within its group: a lone runtime's takes half."""
    return 0.8 / max(len(runtimes), 2)


def dodged(runtimes: list[str], width: float) -> list[tuple[float, str]]:
    """Each runtime's offset from its group's centre, so bars and points do not overlap."""
    middle = (len(runtimes) - 1) / 2
    return [((index - middle) * width, runtime) for index, runtime in enumerate(runtimes)]


def rate_axis(ax: Axes) -> None:
    """0 to 1, with a margin so that points and error bars at 0 or 1 stay visible."""
    ax.set_ylim(-0.03, 1.04)
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])


def zero_based(ax: Axes, top: float) -> None:
    """From 0 to above `top`, the highest bar, whisker or dot drawn: autoscaling stops at a
    bar's top, where a whisker of zero length (identical trials) hides under the spine."""
    ax.set_ylim(0, top * (1 + _HEADROOM) if top > 0 else 1.0)


def empty(ax: Axes) -> None:
    ax.text(0.5, 0.5, "no valid trials", transform=ax.transAxes, ha="center", va="center", color="grey")
