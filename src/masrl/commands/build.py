"""``masrl build [--check]``: validate, analyse, render, then write or compare."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import write
from ..errors import UserError, summary
from ..load import find_root, load
from ..validate import validate

MANAGED = ("reports",)


def example_traces_valid() -> dict[str, bool]:
    """Packaged example trace name -> whether it validates (for ``trace_valid`` claim checks)."""
    return _example_traces()[0]


def _example_traces() -> tuple[dict[str, bool], dict[str, bytes]]:
    """Validity of the packaged example traces (name -> valid) and the trace files of the build:
    ``reports/traces.md`` (metrics of every valid example) and ``reports/schema/trace.schema.json``."""
    from ..trace.examples import load_examples
    from ..trace.metrics import trace_metrics
    from ..trace.report import metrics_markdown
    from ..trace.schema import schema_bytes
    from ..trace.validate import validate_bytes

    valid: dict[str, bool] = {}
    metrics: dict[str, dict] = {}
    for name, data in load_examples().items():
        trace, problems = validate_bytes(data, f"{name}.json")
        valid[name] = not problems
        if trace is not None and not problems:
            metrics[name] = trace_metrics(trace)
    files = {"reports/traces.md": metrics_markdown(metrics).encode(), "reports/schema/trace.schema.json": schema_bytes()}
    return valid, files


def _report(report: write.SyncReport, check: bool) -> int:
    if check:
        for rel in report.changed:
            print(f"stale: {rel}", file=sys.stderr)
        for rel in report.missing:
            print(f"missing: {rel}", file=sys.stderr)
        for rel in report.orphaned:
            print(f"orphaned (no longer generated): {rel}", file=sys.stderr)
        if not report.clean:
            n = len(report.changed) + len(report.missing) + len(report.orphaned)
            print(f"masrl build --check: {n} file(s) out of date; run `masrl build` and commit the result", file=sys.stderr)
            return 1
        print(f"ok: all {len(report.unchanged)} generated files are current")
        return 0
    for rel in report.changed + report.missing:
        print(f"wrote {rel}")
    for rel in report.orphaned:
        print(f"removed {rel} (no longer generated)")
    print(f"build: {len(report.changed) + len(report.missing)} written, {len(report.unchanged)} unchanged, "
          f"{len(report.orphaned)} removed")
    return 0


def run(root_arg: Path | None, check: bool = False, rerender: bool = False) -> int:
    """Build (or with ``check`` compare) every generated file; return the exit code.

    Exit 1 when the records are invalid (nothing written), when ``check`` finds
    a stale file, or when a ``current`` claim of the ledger fails (the reports
    are still written, so that reports/claims.md shows the failure).
    """
    root = find_root(root_arg)
    corpus = load(root)
    problems = validate(corpus)
    if problems:
        raise UserError(summary(problems, "nothing was written (fix the records, then build again)."), problems)

    from ..analyses.claims import failing_current
    from ..pipeline import analyse, render_text

    from .figures import figure_outputs

    traces_valid, trace_files = _example_traces()
    results = analyse(corpus, traces_valid)
    if corpus.readme is None:
        raise UserError("README.md is missing at the survey root; it holds the generated paper list")
    from ..render.readme import MarkersMissing

    try:
        outputs = render_text(results, corpus.readme)
    except MarkersMissing as err:
        raise UserError(str(err)) from err
    outputs.update(trace_files)
    outputs.update(figure_outputs(root, results, check, rerender))
    status = _report(write.stale(root, outputs, MANAGED) if check else write.sync(root, outputs, MANAGED), check)
    failing = failing_current(results.claims)
    for claim in failing:
        bad = [c for c in claim.checks if not c.holds]
        detail = "; ".join(f"{c.label}: stated {c.stated()}, computed {c.computed()}" for c in bad)
        print(f"masrl: error: claim '{claim.id}' ({claim.statement}) no longer holds: {detail}. "
              f"Revisit the text of the claim in corpus/claims.yaml (and the survey), or the tags.", file=sys.stderr)
    return 1 if failing else status
