#!/usr/bin/env python3
"""Measure `masrl suggest` and the screening rank by leave-one-out over the pool, beside two baselines.

Suggestions: each tagged retained record in turn becomes a stub (every controlled field
hidden, only the text a stub has: title, abstract where present, venue; and its year), its
fields are suggested from all the other tagged records exactly as `masrl suggest` does
(masrl.review.suggest.evaluate.measure: the nearest records, the taxonomy's definitions of the
values and the vocabulary's rules, with each field's setting chosen again by leave-one-out
without the record predicted: nested), and each field it holds is compared with its value.
Per controlled field: top-1 accuracy and top-3 recall of

* masrl;
* a TF-IDF kNN baseline: scikit-learn's TfidfVectorizer on words (1-2-grams, English stop words)
  and on character 3-5-grams within words (both 1 + log tf), fitted on the other records' full
  texts (title, abstract, one-liner, notes, venue) and the stub, cosine similarity the mean of
  the two; the 10 nearest other records holding the field vote with their similarity, a set
  field's sets as whole values; no rules, no definitions, no years;
* the majority baseline, leave-one-out: the most common value (a set field's: set) of the other
  records.

A field whose masrl top-1 accuracy does not beat its majority baseline is low confidence, and
`masrl suggest` says so beside it. The means are over the same fields for every method.

Screening: each judged record (retained or excluded) in turn is scored against all the
others from its title and abstract; reading in score order, WSS@95 (work saved over sampling
at 95% recall) and the recall of the retained records at 50% of the list, with the exact
expectation of random order as the baseline (masrl.review.suggest.evaluate.measure_screening).
scripts/bench_screening.py simulates when to stop.

Deterministic: the same records print the same figures. Runs in tens of seconds.

Usage: python scripts/bench_suggest.py [--root DIR] [--markdown]
  --markdown  print the results as a Markdown section (figures, the command, the machine, the date)
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The baseline's neighbours.
K = 10


def tfidf_knn(records: list[dict], tax) -> dict[str, tuple[int, int, int]]:
    """field -> (records holding it, top-1 hits, top-3 hits) of the TF-IDF kNN baseline."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from masrl.review.suggest import structure, text

    documents = [text.record_text(r, tax.abstract_field) for r in records]
    stubs = [text.record_text(r, tax.abstract_field, stub=True) for r in records]
    out = {f.name: [0, 0, 0] for f in structure.fields(tax)}
    options = ({"analyzer": "word", "ngram_range": (1, 2), "stop_words": "english", "sublinear_tf": True},
               {"analyzer": "char_wb", "ngram_range": (3, 5), "sublinear_tf": True})
    for i in range(len(records)):
        others = [j for j in range(len(records)) if j != i]
        similarity = np.zeros(len(records))
        for opts in options:
            vectorizer = TfidfVectorizer(**opts).fit([documents[j] for j in others] + [stubs[i]])
            rows = vectorizer.transform(documents)
            similarity += (rows @ vectorizer.transform([stubs[i]]).T).toarray()[:, 0] / 2
        for f in structure.fields(tax):
            if f.name not in records[i]:
                continue
            holders = sorted((j for j in others if f.name in records[j]), key=lambda j: (-similarity[j], records[j]["key"]))[:K]
            votes: dict = defaultdict(float)
            for j in holders:
                votes[_value(records[j], f)] += similarity[j]
            ranked = sorted(votes, key=lambda v: (-votes[v], str(v)))
            truth = _value(records[i], f)
            out[f.name][0] += 1
            out[f.name][1] += bool(ranked) and ranked[0] == truth
            out[f.name][2] += truth in ranked[:3]
    return {k: tuple(v) for k, v in out.items()}


def _value(record: dict, field):
    value = record[field.name]
    return tuple(v for v in field.values if v in value) if field.multi else value


def machine() -> str:
    """The CPU, its cores, and the Python that ran."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()} ({platform.system()})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="survey root (default: this repository)")
    parser.add_argument("--markdown", action="store_true",
                        help="print a Markdown section: the figures, the command, the machine and the date")
    args = parser.parse_args()
    started = time.perf_counter()
    from masrl.core import clock
    from masrl.corpus.load import load
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.review.suggest import evaluate, propose

    corpus = load(args.root)
    tax = Taxonomy(corpus.taxonomy)
    scores = evaluate.measure(list(corpus.retained.values()), tax)
    tagged = propose.tagged_records(list(corpus.retained.values()), tax)
    knn = tfidf_knn(tagged.records, tax)
    screening = evaluate.measure_screening(corpus)
    elapsed = time.perf_counter() - started

    measured = [s for s in scores.values() if s.n]
    lines = []
    if args.markdown:
        lines += ["## Suggestions and the screening rank (`scripts/bench_suggest.py`)", ""]
    lines.append(f"Leave-one-out over {len(tagged.records)} tagged retained records (each hidden as a stub: title, abstract "
                 "where present, venue, year); masrl's field settings chosen again without the record predicted (nested).")
    lines += ["", "| field | records | masrl top-1 | masrl top-3 | TF-IDF kNN-10 top-1 | TF-IDF kNN-10 top-3 | "
              "majority (leave-one-out) | masrl beats majority |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    for s in scores.values():
        n, k1, k3 = knn[s.field]
        verdict = "yes" if not s.low_confidence else "**no** (low confidence)"
        lines.append(f"| {s.field} | {s.n} | {s.accuracy:.3f} | {s.recall3:.3f} | {k1 / n if n else 0:.3f} | "
                     f"{k3 / n if n else 0:.3f} | {s.baseline:.3f} | {verdict} |")
    if measured:
        top1 = statistics.mean(s.accuracy for s in measured)
        top3 = statistics.mean(s.recall3 for s in measured)
        knn1 = statistics.mean(knn[s.field][1] / knn[s.field][0] for s in measured)
        knn3 = statistics.mean(knn[s.field][2] / knn[s.field][0] for s in measured)
        base = statistics.mean(s.baseline for s in measured)
        lines.append(f"| **mean of {len(measured)} fields** | | **{top1:.3f}** | **{top3:.3f}** | **{knn1:.3f}** | "
                     f"**{knn3:.3f}** | **{base:.3f}** | |")
        lines += ["", f"masrl's top-1 is {100 * (top1 - knn1):+.1f} points from the TF-IDF kNN baseline's and "
                      f"{100 * (top1 - base):+.1f} from the majority baseline's; its top-3 {100 * (top3 - knn3):+.1f} points "
                      "from the kNN baseline's."]
    lines += ["", f"Screening rank, leave-one-out over {screening.n} judged records ({screening.relevant} retained, "
                  f"{screening.n - screening.relevant} excluded; title and abstract)", "",
              "| measure | model | random order |", "|---|---:|---:|",
              f"| WSS@95 | {screening.wss95:.3f} | {screening.random_wss95:.3f} |",
              f"| recall at 50% of the list | {screening.recall50:.3f} | {screening.random_recall50:.3f} |"]
    command = "python scripts/bench_suggest.py" + (f" --root {args.root}" if args.root != REPO else "") + \
              (" --markdown" if args.markdown else "")
    if args.markdown:
        lines += ["", f"Command: `{command}`; {elapsed:.1f} s in all (scikit-learn's import included). "
                      f"Machine: {machine()}. Date: {clock.today_iso()}."]
    else:
        lines.append(f"\n{elapsed:.1f} s in all (scikit-learn's import included)")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
