"""The run summary frame -> a Markdown report and its figures (pure; deterministic bytes).

Figures use the survey figures' style (:mod:`masrl.render.figures.style`): Agg
canvas, the house fonts and colour-blind-safe palette, literal text, PNG without a
software tag. The report shows, for the headline metrics (:data:`HEADLINE`),
their distribution over the traces (count, mean, 10th/50th/90th percentile, max;
percentiles by linear interpolation, pandas' default), the same side by side per
group with ``--by``, the medians per step when a ``step`` label exists (trends),
and the sub-decision counts O1-O5.
"""

from __future__ import annotations

import io

from ..core.text import printable
from ..render.escape import md_text
from .report import fmt
from .schema import DECISION_NAMES, DECISIONS
from .summarize import step_number

#: (column, title) of the metrics shown in tables and figures.
HEADLINE: tuple[tuple[str, str], ...] = (
    ("critical_path_steps", "critical path (steps)"),
    ("parallelism", "parallelism"),
    ("peak_concurrent_agents", "peak concurrent agents"),
    ("protocol_overhead", "protocol overhead"),
    ("tokens", "tokens"),
    ("reward_total", "reward"),
)
QUANTILES = (0.1, 0.5, 0.9)


def _cell(text: str) -> str:
    """User text (labels, file names, messages) for a Markdown table cell or line, escaped by the
    one Markdown escaper of the reports (:func:`masrl.render.escape.md_text`)."""
    return str(md_text(text))


def _stats(series) -> list[str]:
    s = series.dropna()
    if s.empty:
        return ["0", "n/a", "n/a", "n/a", "n/a", "n/a"]
    q = s.quantile(list(QUANTILES))
    return [str(len(s)), fmt(float(s.mean())), *(fmt(float(q[p])) for p in QUANTILES), fmt(float(s.max()))]


def _key_cell(key, column: str) -> str:
    """A group key of the trends table: a whole-number step without '.0', a label as :func:`_name` shows it."""
    from masrl.core.tabular import pd

    if key is None or key is pd.NA or (isinstance(key, float) and key != key):
        return _cell(_missing(column))
    return fmt(int(key) if isinstance(key, float) and key == int(key) else key) if column == "step" else _cell(_name(key))


def _natural(key) -> tuple:
    """Sort key of a trends row whose step is text, or of a group: numbers first, by value, then the other texts;
    values that read the same (the number 1 and the text "1") by how they are written, so the order is total."""
    from masrl.core.tabular import pd

    out = []
    for part in key if isinstance(key, tuple) else (key,):
        raw = "" if pd.isna(part) else str(part)
        text = _unjson(raw)
        number = step_number(text)  # ' 7 ' is 7; '1e400' and a number beyond ±2^53 are texts, as the frame has them
        out.append((0, number, raw != text, raw) if number is not None else (1, 0.0, raw != text, raw))
    return tuple(out)


def _missing(column: str) -> str:
    """What a trace without the label ``column`` is grouped under."""
    return f"(no {column.removeprefix('label_')})"


def _name(value) -> str:
    """A label's value as a heading or a legend shows it: a line break or control character as its escape, and a
    value with blanks at an end in quotes (``' B'``: a table cell drops them), so that two values never read the same."""
    text = printable(str(value))
    return repr(text) if text != text.strip() or not text else text


def _unjson(text: str) -> str:
    """A label's text as the trace wrote it: a JSON string the frame wrote in quotes (beside a number or a boolean,
    ``"10"``) is its text ``10``; anything else as it is."""
    import json

    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else text
    return text


def _groups(df, by: str | None) -> list[tuple[str, object]]:
    """``[(name, rows)]`` of each value of the label ``by`` (and of the traces without it), names told apart: a
    name shown twice (a value written as another's escape, or as the name of the missing ones) gets its number."""
    if not by:
        return []
    if df[by].dtype.kind == "f":  # the step, when every one is a number: in their order, 10 after 9
        out = [(fmt(int(v) if v.is_integer() else v), df[df[by] == v]) for v in sorted(set(df[by].dropna().tolist()))]
    else:  # texts: numbers first, in their order, then the others
        keys = sorted({str(v) for v in df[by].dropna()}, key=_natural)
        out = [(_name(k), df[df[by].astype("string") == k]) for k in keys]
    missing = df[by].isna().any()
    if missing:
        out.append((_missing(by), df[df[by].isna()]))
    seen: dict[str, int] = {_missing(by): 1} if missing else {}  # the traces without it keep the plain "(no LABEL)"
    named = []
    for k, (name, rows) in enumerate(out):
        if missing and k == len(out) - 1:
            named.append((name, rows))
            continue
        seen[name] = seen.get(name, 0) + 1
        named.append((name if seen[name] == 1 else f"{name} [{seen[name]}]", rows))
    return named


def report_markdown(df, invalid: list, *, title: str, figures: dict[str, str], by: str | None, sources: int) -> str:
    """The report text.

    Args:
        df: :func:`masrl.trace.summarize.frame` output.
        invalid: ``[(trace name, problem lines)]`` of the skipped traces.
        title: the Parquet file's name, for the heading.
        figures: figure name -> relative path of its PNG (only those drawn).
        by: the label column to compare groups by, or None.
        sources: number of input files.
    """
    n = len(df)
    lines = [
        f"# Trace run summary: {_cell(title)}",
        "",
        f"{n} trace{'s' if n != 1 else ''} summarised from {sources} file{'s' if sources != 1 else ''}; "
        f"{len(invalid)} skipped (invalid, or too large to summarise). Metrics are recomputed from each trace's event graph "
        "(definitions: docs/traces.md); one row per trace is in the Parquet file.",
        "",
        "## Distributions",
        "",
        "| metric | traces | mean | p10 | median | p90 | max |",
        "|---|---|---|---|---|---|---|",
    ]
    for column, name in HEADLINE:
        lines.append(f"| {name} | " + " | ".join(_stats(df[column])) + " |")
    if "distributions" in figures:
        lines += ["", f"![Distributions of the headline metrics]({figures['distributions']})"]
    groups = _groups(df, by)
    if groups:
        lines += ["", f"## By {_cell(by)}", "", "Median (mean) per group.", ""]
        lines.append("| metric | " + " | ".join(f"{_cell(k)} (n={len(g)})" for k, g in groups) + " |")
        lines.append("|---|" + "---|" * len(groups))
        for column, name in HEADLINE:
            cells = []
            for _k, g in groups:
                s = g[column].dropna()
                cells.append(f"{fmt(float(s.median()))} ({fmt(float(s.mean()))})" if len(s) else "n/a")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if df["step"].notna().any():
        split = bool(groups) and by != "step"  # grouped by step itself, the trends are one column of steps
        lines += ["", "## Trends by step", "", "Median per step" + (f" and {_cell(by)}" if split else "") + "."]
        keys = ["step"] + ([by] if split else [])
        numeric = df["step"].dtype.kind == "f"
        if not numeric:  # a step that is no number: texts, in natural order, and no trend figure
            steps = list(df["step"].dropna())
            odd = next((v for v in steps if step_number(_unjson(str(v))) is None), steps[0] if steps else "")
            lines[-1] += (f" The step label {_cell(repr(odd))} is not a number a step may be (a finite number within "
                          "±2^53), so the steps are listed as texts (numbers first, in their order) and no trend is drawn.")
        rows = []  # (step, the group's place, its name as every table and figure names it, its traces of that step)
        for place, (name, g) in enumerate(groups if split else [("", df)]):
            for step, gg in g.dropna(subset=["step"]).groupby("step", sort=False):
                rows.append(((step if numeric else _natural(step)), place, step, name, gg))
        header = [*keys, "traces", *(name for _c, name in HEADLINE)]
        lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for _order, _place, step, name, g in sorted(rows, key=lambda row: row[:2]):
            cells = [_key_cell(step, "step"), *([_cell(name)] if split else [])]
            cells += [str(len(g)), *(fmt(float(g[c].median())) for c, _n in HEADLINE)]
            lines.append("| " + " | ".join(cells) + " |")
        if "trends" in figures:
            lines += ["", f"![Medians of the headline metrics by step]({figures['trends']})"]
    lines += ["", "## Sub-decisions", "", "| sub-decision | events | traces with any | mean per trace |", "|---|---|---|---|"]
    for d in (*DECISIONS, "untagged"):
        s = df[f"decision_{d}"]
        name = f"{d} ({DECISION_NAMES[d]})" if d in DECISION_NAMES else "untagged orchestrator decisions"
        mean = fmt(float(s.mean())) if len(s) else "n/a"
        lines.append(f"| {name} | {int(s.sum())} | {int((s > 0).sum())} | {mean} |")
    if invalid:
        lines += ["", "## Traces skipped (invalid, or too large to summarise)", ""]
        for name, problems in invalid:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            first = problems[0][len(name) + 2:] if problems[0].startswith(name + ": ") else problems[0]
            lines.append(f"- {_cell(name)}: {_cell(first)}{more}")
    return "\n".join(lines) + "\n"


def _png(fig) -> bytes:
    """PNG bytes of ``fig`` without the software tag: one Agg draw, its pixels written as
    ``savefig(format="png")`` writes them (the same bytes; 0.17 -> 0.12 s for a figure of six
    histograms, as :mod:`masrl.render.figures.save` does for the survey's figures)."""
    from matplotlib import image as mpl_image
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    buffer = io.BytesIO()
    mpl_image.imsave(buffer, canvas.buffer_rgba(), format="png", origin="upper", dpi=fig.dpi, metadata={"Software": None})
    return buffer.getvalue()


#: The legend of a figure of groups: at most this many columns, each entry cut to fit its column.
LEGEND_COLUMNS = 4
LEGEND_ROW = 0.24  # inches a row of the legend takes


def _legend(fig, axes, height: float) -> float:
    """Put the legend of ``axes``'s lines under the plots of ``fig`` (``height`` inches tall before it), its
    entries in at most :data:`LEGEND_COLUMNS` columns, each label wrapped to fit its column (two lines, then cut);
    the figure grows by its
    rows, so nothing is cut at an edge or drawn on the axis labels. Returns the figure's new height."""
    from ..render.figures.style import WIDTH, tick_labels

    handles, labels = axes.get_legend_handles_labels()
    columns = min(len(labels), LEGEND_COLUMNS)
    rows = -(-len(labels) // columns)
    fitted = tick_labels(labels, WIDTH / columns - 0.55, 9, 2)  # two lines, then cut (in the middle, if two would match)
    row = LEGEND_ROW * (1.7 if any("\n" in label for label in fitted) else 1)
    grown = height + rows * row + 0.1
    fig.set_size_inches(WIDTH, grown)
    fig.legend(handles, fitted, loc="lower center", ncol=columns, frameon=False, bbox_to_anchor=(0.5, 0.0))
    return (rows * row + 0.1) / grown


#: Beyond the eight colours, the lines of further groups are dashed, dotted, then dash-dotted, with another marker.
LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D")


def _look(k: int) -> tuple[str, str, str]:
    """``(colour, line style, marker)`` of the ``k``-th group: no two of the first 32 groups alike."""
    from ..render.figures.style import CATEGORICAL

    turn = (k // len(CATEGORICAL)) % len(LINESTYLES)
    return CATEGORICAL[k % len(CATEGORICAL)], LINESTYLES[turn], MARKERS[turn]


def figures_png(df, by: str | None) -> dict[str, bytes]:
    """``{"distributions": png, "trends": png}`` (trends only with a step label; none without rows)."""
    if df.empty:
        return {}
    from matplotlib.figure import Figure

    from ..render.figures.style import GRID, WIDTH, style_context

    groups = _groups(df, by) or [("all traces", df)]
    out = {}
    with style_context():
        fig = Figure(figsize=(WIDTH, 4.6))
        axes = fig.subplots(2, 3).ravel()
        for ax, (column, name) in zip(axes, HEADLINE):
            for k, (label, g) in enumerate(groups):
                values = g[column].dropna().to_numpy(dtype=float)
                if len(values):
                    colour, line, _marker = _look(k)
                    ax.hist(values, bins=20, histtype="step" if len(groups) > 1 else "stepfilled",
                            color=colour, alpha=1.0 if len(groups) > 1 else 0.85, label=label, linewidth=1.2,
                            linestyle=line)
            ax.set_title(name, fontsize=9)
            ax.grid(axis="y", color=GRID, linewidth=0.6)
            ax.set_axisbelow(True)
        bottom = _legend(fig, axes[0], 4.6) if len(groups) > 1 else 0
        fig.suptitle("Distributions over traces", fontweight="bold")
        fig.tight_layout(rect=(0, bottom, 1, 1))
        out["distributions"] = _png(fig)
        steps = df.dropna(subset=["step"])
        if not steps.empty and steps["step"].dtype.kind == "f":
            fig = Figure(figsize=(WIDTH, 4.6))
            axes = fig.subplots(2, 3).ravel()
            for ax, (column, name) in zip(axes, HEADLINE):
                for k, (label, g) in enumerate(_groups(steps, by) or [("all traces", steps)]):
                    per = g.groupby("step")[column]
                    med, lo, hi = per.median(), per.quantile(0.25), per.quantile(0.75)
                    colour, line, marker = _look(k)
                    ax.plot(med.index, med.to_numpy(), marker=marker, markersize=3, color=colour, label=label,
                            linewidth=1.2, linestyle=line)
                    ax.fill_between(med.index, lo.to_numpy(), hi.to_numpy(), color=colour, alpha=0.15, linewidth=0)
                ax.set_title(name, fontsize=9)
                ax.set_xlabel("step")
                ax.grid(color=GRID, linewidth=0.6)
                ax.set_axisbelow(True)
                if (steps["step"] % 1 == 0).all():  # whole steps: whole ticks, not 2.5
                    ax.xaxis.get_major_locator().set_params(integer=True)
            bottom = _legend(fig, axes[0], 4.6) if by else 0
            fig.suptitle("Median by step (band: 25th-75th percentile)", fontweight="bold")
            fig.tight_layout(rect=(0, bottom, 1, 1))
            out["trends"] = _png(fig)
    return out
