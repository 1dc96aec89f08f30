#!/usr/bin/env python3
"""Measure `masrl suggest` and the screening rank by leave-one-out over the pool.

Suggestions: each tagged retained record in turn becomes a stub (every controlled field
hidden, only the text a stub has: title, abstract where present, venue), its fields are
suggested from all the other tagged records exactly as `masrl suggest` does, and each field
it holds is compared with its value (masrl.review.suggest.evaluate.measure). Per controlled
field: top-1 accuracy, top-3 recall, and the majority-class baseline (always suggesting the
field's most common value). A field whose top-1 accuracy does not beat its baseline is low
confidence, and `masrl suggest` says so beside it.

Screening: each judged record (retained or excluded) in turn is scored against all the
others from its title and abstract; reading in score order, WSS@95 (work saved over sampling
at 95% recall) and the recall of the retained records at 50% of the list, with the exact
expectation of random order as the baseline (masrl.review.suggest.evaluate.measure_screening).

Deterministic: the same records print the same figures. Runs in seconds (most of it is
importing scikit-learn).

Usage: python scripts/bench_suggest.py [--root DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="survey root (default: this repository)")
    args = parser.parse_args()
    started = time.perf_counter()
    from masrl.corpus.load import load
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.review.suggest import evaluate

    corpus = load(args.root)
    tax = Taxonomy(corpus.taxonomy)
    scores = evaluate.measure(list(corpus.retained.values()), tax)
    screening = evaluate.measure_screening(corpus)
    elapsed = time.perf_counter() - started

    measured = [s for s in scores.values() if s.n]
    print(f"Leave-one-out over {max(s.n for s in measured) if measured else 0} tagged retained records "
          "(each hidden as a stub: title, abstract where present, venue)\n")
    print("| field | records | top-1 accuracy | top-3 recall | majority baseline | beats baseline |")
    print("|---|---:|---:|---:|---:|---|")
    for s in scores.values():
        verdict = "yes" if not s.low_confidence else "**no** (low confidence)"
        print(f"| {s.field} | {s.n} | {s.accuracy:.3f} | {s.recall3:.3f} | {s.baseline:.3f} | {verdict} |")
    if measured:
        top1 = statistics.mean(s.accuracy for s in measured)
        base = statistics.mean(s.baseline for s in measured)
        top3 = statistics.mean(s.recall3 for s in measured)
        print(f"| **mean of {len(measured)} fields** | | **{top1:.3f}** | **{top3:.3f}** | **{base:.3f}** | "
              f"{'yes' if top1 > base else '**no**'}: {100 * (top1 - base):+.1f} points |")
    print(f"\nScreening rank, leave-one-out over {screening.n} judged records ({screening.relevant} retained, "
          f"{screening.n - screening.relevant} excluded; title and abstract)\n")
    print("| measure | model | random order |")
    print("|---|---:|---:|")
    print(f"| WSS@95 | {screening.wss95:.3f} | {screening.random_wss95:.3f} |")
    print(f"| recall at 50% of the list | {screening.recall50:.3f} | {screening.random_recall50:.3f} |")
    print(f"\n{elapsed:.1f} s in all (scikit-learn's import included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
