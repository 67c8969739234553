"""The report's figures stay readable: no title, label, tick label or legend past the figure's
edge or over another text, and every error bar and whisker inside its axes, for a report as
narrow as the quickstart's and as wide as the core experiment's."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import numpy as np
import pytest
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from experiments.config import ExperimentConfig, FaultKind
from experiments.config_loader import CONFIGS_DIR, load_config
from experiments.metrics import summarize
from experiments.plots import PASS_HAT_PNG, SUCCESS_BY_FAULT_PNG, TOKENS_PNG, WALL_TIME_PNG, draw_figures
from experiments.trial_record import TrialRecord

# Pixels an extent may pass an edge by: rounding of the text's extent, not a visible clip.
TOLERANCE = 1.0
# A whisker or cap drawn on the axes' top edge hides under the spine: it must end below it.
HEADROOM = 2.0
# Tokens by runtime: the scripted provider spends the same on every fault-free trial.
TOKENS = {"durable": 2400, "baseline": 1800, "baseline-journal": 1850, "baseline+verifier": 2900}


def quickstart() -> ExperimentConfig:
    return load_config(CONFIGS_DIR / "quickstart.yaml")


CASES = {
    # One scenario, one runtime: the narrowest figures.
    "one-runtime": lambda: quickstart().model_copy(update={"runtimes": ["durable"]}),
    # One scenario, two runtimes: the report the user found clipped.
    "quickstart": quickstart,
    # Eight scenarios, three runtimes, six fault kinds: the widest figures.
    "core": lambda: load_config(CONFIGS_DIR / "core.yaml"),
}


def synthetic_trials(config: ExperimentConfig) -> list[TrialRecord]:
    """Every trial the configuration asks for. Fault-free trials cost the same tokens each, as
    with the scripted provider (a whisker of zero length); faults add spread and waste, fail
    some baseline trials and leave one baseline trial per arm invalid."""
    trials = []
    for scenario in config.scenarios:
        faulted = scenario.kind != FaultKind.NONE
        for runtime in (r for r in config.runtimes if config.runs(scenario, r)):
            for task in scenario.tasks or config.tasks:
                for index in range(config.trials):
                    invalid = faulted and runtime == "baseline" and task == config.tasks[0] and index == 0
                    trials.append(
                        TrialRecord(
                            experiment_id=config.name,
                            trial_id=f"{scenario.name}-{runtime}-{task}-{index}",
                            task_id=task,
                            runtime=runtime,
                            scenario=scenario.name,
                            fault_kind=scenario.kind,
                            trial_index=index,
                            seed=config.seed + index,
                            valid=not invalid,
                            invalid_reason="the fault never fired" if invalid else "",
                            success=not (faulted and runtime != "durable" and index % 2 == 1),
                            tokens=TOKENS[runtime] + (700 * index if faulted else 0),
                            tokens_wasted=300 * index if faulted else 0,
                            wall_time_s=1.5 + 0.4 * index + (2.0 if faulted else 0.0),
                        )
                    )
    return trials


@pytest.fixture(scope="module", params=list(CASES))
def drawn(request: pytest.FixtureRequest) -> dict[str, tuple[Figure, RendererBase]]:
    """Each figure of the case, drawn once on the Agg canvas, with the renderer that drew it."""
    config = CASES[request.param]()
    trials = synthetic_trials(config)
    rendered = {}
    for name, figure in draw_figures(summarize(trials, config), trials).items():
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rendered[name] = (figure, canvas.get_renderer())
    return rendered


def test_every_figure_the_report_writes_is_drawn(drawn: dict[str, tuple[Figure, RendererBase]]) -> None:
    assert sorted(drawn) == sorted([PASS_HAT_PNG, SUCCESS_BY_FAULT_PNG, WALL_TIME_PNG, TOKENS_PNG])


def test_no_title_label_or_legend_leaves_the_figure(drawn: dict[str, tuple[Figure, RendererBase]]) -> None:
    clipped = []
    for name, (figure, renderer) in drawn.items():
        edge = figure.bbox
        for what, artist in readable_artists(figure):
            extent = artist.get_window_extent(renderer)
            if (
                extent.x0 < edge.x0 - TOLERANCE
                or extent.y0 < edge.y0 - TOLERANCE
                or extent.x1 > edge.x1 + TOLERANCE
                or extent.y1 > edge.y1 + TOLERANCE
            ):
                clipped.append(f"{name}: {what} spans {fmt(extent)}, the figure {fmt(edge)}")
    assert not clipped, "\n".join(clipped)


def test_no_text_lies_over_another(drawn: dict[str, tuple[Figure, RendererBase]]) -> None:
    overlapping = []
    for name, (figure, renderer) in drawn.items():
        extents = [(what, artist.get_window_extent(renderer)) for what, artist in readable_artists(figure)]
        for (first, a), (second, b) in combinations(extents, 2):
            if inset(a).overlaps(inset(b)):
                overlapping.append(f"{name}: {first} {fmt(a)} overlaps {second} {fmt(b)}")
    assert not overlapping, "\n".join(overlapping)


def test_every_error_bar_and_whisker_ends_inside_its_axes(drawn: dict[str, tuple[Figure, RendererBase]]) -> None:
    outside = []
    for name, (figure, _) in drawn.items():
        for index, ax in enumerate(a for a in figure.axes if a.get_visible()):
            box = ax.bbox
            for what, ys in plotted_ys(ax):
                pixels = ax.transData.transform(np.column_stack([np.zeros_like(ys), ys]))[:, 1]
                top, bottom = pixels.max(), pixels.min()
                if top > box.y1 - HEADROOM or bottom < box.y0 - TOLERANCE:
                    outside.append(
                        f"{name}: axes {index} {what} spans y {ys.min():g}..{ys.max():g}, "
                        f"the axes {ax.get_ylim()[0]:g}..{ax.get_ylim()[1]:g}"
                    )
    assert not outside, "\n".join(outside)


def readable_artists(figure: Figure) -> Iterator[tuple[str, Artist]]:
    """Every visible text and legend of the figure, each named for a failure message."""
    found: list[tuple[str, Artist]] = [(f"figure text {t.get_text()!r}", t) for t in figure.texts]
    found += [("figure legend", legend) for legend in figure.legends]
    for index, ax in enumerate(a for a in figure.axes if a.get_visible()):
        where = f"axes {index}"
        found += [
            (f"{where} title {ax.title.get_text()!r}", ax.title),
            (f"{where} x label {ax.xaxis.label.get_text()!r}", ax.xaxis.label),
            (f"{where} y label {ax.yaxis.label.get_text()!r}", ax.yaxis.label),
        ]
        found += [(f"{where} tick label {t.get_text()!r}", t) for t in drawn_tick_labels(ax.xaxis)]
        found += [(f"{where} tick label {t.get_text()!r}", t) for t in drawn_tick_labels(ax.yaxis)]
        found += [(f"{where} text {t.get_text()!r}", t) for t in ax.texts]
        if (legend := ax.get_legend()) is not None:
            found.append((f"{where} legend", legend))
    for what, artist in found:
        if artist.get_visible() and not (isinstance(artist, Text) and not artist.get_text().strip()):
            yield what, artist


def drawn_tick_labels(axis: Axis) -> list[Text]:
    """The tick labels the axis draws: those of ticks within its view."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    return [tick.label1 for tick in axis.get_major_ticks() if low - slack <= tick.get_loc() <= high + slack]


def plotted_ys(ax: Axes) -> Iterator[tuple[str, np.ndarray]]:
    """The y values of every line, error bar, whisker and dot the axes draws."""
    for line in ax.lines:
        ys = np.asarray(line.get_ydata(), dtype=float)
        if line.get_visible() and np.isfinite(ys).any():
            yield f"line {line.get_label()!r}", ys[np.isfinite(ys)]
    for collection in ax.collections:
        if isinstance(collection, LineCollection):
            segments = collection.get_segments()
            if segments:
                yield "error bar", np.concatenate([segment[:, 1] for segment in segments])
        elif isinstance(collection, PathCollection) and len(collection.get_offsets()):
            yield "dots", np.asarray(collection.get_offsets())[:, 1]


def inset(extent: Bbox) -> Bbox:
    """The extent less the tolerance on every side: texts that merely touch do not overlap."""
    return Bbox.from_extents(extent.x0 + TOLERANCE, extent.y0 + TOLERANCE, extent.x1 - TOLERANCE, extent.y1 - TOLERANCE)


def fmt(extent: Bbox) -> str:
    return f"x {extent.x0:.0f}..{extent.x1:.0f}, y {extent.y0:.0f}..{extent.y1:.0f} px"
