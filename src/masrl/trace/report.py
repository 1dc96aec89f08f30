"""Metrics -> Markdown (pure; deterministic; ``\\n`` line endings)."""

from __future__ import annotations

from ..render.escape import md_code, md_text
from .metrics import COORDINATION_EVENTS, DEPENDENCY_EDGES
from .schema import DECISION_NAMES

#: (column title, metrics key) of the summary table, in order.
HEADLINE = (
    ("topology", "topology"),
    ("events", "events"),
    ("agents", "agents"),
    ("critical path (steps)", "critical_path_steps"),
    ("critical path (time)", "critical_path_time"),
    ("parallelism", "parallelism"),
    ("peak agents", "peak_concurrent_agents"),
    ("fan-out max", "spawn_fanout_max"),
    ("spawn depth", "spawn_depth"),
    ("protocol overhead", "protocol_overhead"),
    ("tool calls", "tool_calls"),
    ("tokens", "tokens"),
    ("reward", "reward_total"),
    ("tokens / reward", "tokens_per_reward"),
)


def fmt(value) -> str:
    """A table value: ints as is, floats with at most 3 decimals (no trailing zeros), null as n/a, text
    escaped for Markdown."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = f"{value:.3f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    return _cell(str(value))


def _cell(text: str) -> str:
    return str(md_text(text))


def _pairs(mapping: dict, skip_zero: bool = False) -> str:
    items = [f"{_cell(str(k))} {fmt(v)}" for k, v in mapping.items() if not (skip_zero and v == 0)]
    return ", ".join(items) if items else "none"


def metrics_markdown(metrics_by_name: dict[str, dict]) -> str:
    """A Markdown report: ``# Orchestration trace metrics``, one summary table, details.

    Args:
        metrics_by_name: trace name (e.g. file stem) -> :func:`~masrl.trace.metrics.trace_metrics` output.

    Returns:
        The document; rows and sections sorted by name; ends with one ``\\n``.
    """
    names = sorted(metrics_by_name)
    lines = [
        "# Orchestration trace metrics",
        "",
        "Recomputed from each trace's event graph by `masrl trace metrics`; definitions in docs/traces.md.",
        "",
        f"- critical path: the longest chain of {', '.join(DEPENDENCY_EDGES)} edges,",
        "  in events (steps) and in units of the trace's `t` (time)",
        "- parallelism: events / critical-path steps",
        f"- protocol overhead: {', '.join(COORDINATION_EVENTS)} events / all events",
        "- tokens / reward: costs.tokens / total reward (n/a when the total reward is not positive)",
        "- reward by credit unit: each reward channel summed under the unit the trace's `reward_credit_units`",
        "  maps it to; `unmapped` collects channels without a mapping (the survey's example has none)",
        "",
        "| trace | " + " | ".join(title for title, _ in HEADLINE) + " |",
        "|---|---|" + "---:|" * (len(HEADLINE) - 1),
    ]
    for name in names:
        m = metrics_by_name[name]
        lines.append(f"| {_cell(name)} | " + " | ".join(fmt(m.get(key)) for _, key in HEADLINE) + " |")
    for name in names:
        m = metrics_by_name[name]
        decisions = m.get("decisions", {})
        lines += [
            "",
            f"## {_cell(name)}",
            "",
            f"- trace: {md_code(str(m.get('trace_id')))}, task: {md_code(str(m.get('task_id')))}, topology: {fmt(m.get('topology'))}",
            f"- events: {fmt(m.get('events'))}, edges: {fmt(m.get('edges'))}, agents: {fmt(m.get('agents'))}",
            f"- event types: {_pairs(m.get('event_types', {}), skip_zero=True)}",
            "- sub-decisions: "
            + ", ".join(f"{d} ({DECISION_NAMES[d]}) {decisions.get(d, 0)}" for d in DECISION_NAMES)
            + f", untagged orchestrator decisions {decisions.get('untagged', 0)}",
            f"- critical path: {fmt(m.get('critical_path_steps'))} steps, {fmt(m.get('critical_path_time'))} time units"
            + (f" ({m['ignored_cycle_edges']} dependency edges ignored to break cycles)" if m.get("ignored_cycle_edges") else ""),
            f"- spawn fan-out: max {fmt(m.get('spawn_fanout_max'))}, mean {fmt(m.get('spawn_fanout_mean'))}; "
            f"spawn depth {fmt(m.get('spawn_depth'))}; peak concurrent agents {fmt(m.get('peak_concurrent_agents'))}",
            f"- rewards: {_pairs(m.get('rewards', {}))}; total {fmt(m.get('reward_total'))}",
            f"- reward by credit unit: {_pairs(m.get('reward_by_credit_unit', {}))}",
            f"- costs: {_pairs(m.get('costs', {}))}",
            f"- per-event sums: tokens {fmt(m.get('event_tokens'))}, cost {fmt(m.get('event_cost'))}, "
            f"duration_s {fmt(m.get('event_duration_s'))}",
        ]
    return "\n".join(lines) + "\n"
