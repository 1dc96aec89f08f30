#!/usr/bin/env python3
"""Measure `masrl suggest` and the screening rank by leave-one-out over the pool, beside two baselines.

Suggestions: each tagged retained record in turn becomes a stub (every controlled field
hidden, only the text a stub has: title, abstract where present, venue; and its year), its
fields are suggested from all the other tagged records exactly as `masrl suggest` does
(masrl.review.suggest.evaluate.measure: the nearest records, the taxonomy's definitions and
labels of the values and the vocabulary's rules; the stub compared under the TF-IDF `masrl
suggest` would fit for it, without its own full text; each field's setting chosen again by
leave-one-out without the record predicted: nested), and each field it holds is compared with
its value. Per controlled field: top-1 accuracy and top-3 recall of

* masrl;
* a TF-IDF kNN baseline: scikit-learn's TfidfVectorizer on words (1-2-grams, English stop words)
  and on character 3-5-grams within words (both 1 + log tf), fitted on the other records' full
  texts (title, abstract, one-liner, notes, venue) and the stub, cosine similarity the mean of
  the two; the 10 nearest other records holding the field vote with their similarity, a set
  field's sets as whole values; no rules, no definitions, no years;
* the majority baseline, leave-one-out: the most common value (a set field's: set) of the other
  records.

A field whose masrl top-1 accuracy does not beat its majority baseline is low confidence, and
`masrl suggest` says so beside it. The means are over the same fields for every method. The
difference between masrl's mean top-1 and the kNN baseline's comes with its 95% interval by the
paired bootstrap over the records (2,000 resamples of the records with replacement, seed 0; each
field's accuracy over the resampled records that hold it).

Screening: each judged record (retained or excluded) in turn is scored against all the
others from its title and abstract; reading in score order, WSS@95 (work saved over sampling
at 95% recall) and the recall of the retained records at 50% of the list, with the exact
expectation of random order as the baseline (masrl.review.suggest.evaluate.measure_screening).
scripts/bench_screening.py simulates when to stop.

Deterministic: the same records print the same figures. Runs in tens of seconds.

Usage: python scripts/bench_suggest.py [--root DIR] [--markdown [FILE]]
  --markdown  write the figures into the benchmarks page (scripts/benchpage.py; default docs/benchmarks.md)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The baseline's neighbours.
K = 10
#: Resamples of the paired bootstrap of the difference between masrl and the kNN baseline.
DRAWS = 2000


def tfidf_knn(records: list[dict], tax) -> dict[str, tuple[int, int, int, tuple[str, ...]]]:
    """field -> (records holding it, top-1 hits, top-3 hits, keys of the top-1 hits) of the TF-IDF
    kNN baseline."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from masrl.review.suggest import structure, text

    documents = [text.record_text(r, tax.abstract_field) for r in records]
    stubs = [text.record_text(r, tax.abstract_field, stub=True) for r in records]
    out = {f.name: [0, 0, 0, ()] for f in structure.fields(tax)}
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
            if ranked and ranked[0] == truth:
                out[f.name][3] += (records[i]["key"],)
            out[f.name][2] += truth in ranked[:3]
    return {k: tuple(v) for k, v in out.items()}


def bootstrap(records: list[dict], fields: list[str], mine: dict, theirs: dict) -> tuple[float, float]:
    """The 95% interval (2.5th and 97.5th percentiles) of the difference of the mean top-1 accuracy
    over ``fields`` between two methods, by the paired bootstrap over the records: :data:`DRAWS`
    resamples of the records with replacement (seed 0), each field's accuracy over the resampled
    records holding it. ``mine``, ``theirs``: field -> the keys each method predicted right."""
    import numpy as np

    holds = np.array([[f in r for f in fields] for r in records], dtype=float)
    a = np.array([[r["key"] in mine[f] for f in fields] for r in records], dtype=float)
    b = np.array([[r["key"] in theirs[f] for f in fields] for r in records], dtype=float)
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(records), size=(DRAWS, len(records)))
    counts = np.stack([np.bincount(d, minlength=len(records)) for d in draws]).astype(float)  # (draws, records)
    held = counts @ holds
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.nanmean(((counts @ a) - (counts @ b)) / np.where(held > 0, held, np.nan), axis=1)
    low, high = np.percentile(diff, [2.5, 97.5])
    return float(low), float(high)


def _value(record: dict, field):
    value = record[field.name]
    return tuple(v for v in field.values if v in value) if field.multi else value


def machine() -> str:
    """The CPU, its cores, and the Python that ran (scripts/bench_screening.py's Markdown says it too)."""
    import os
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()} ({platform.system()})"


def main() -> int:
    import benchpage  # scripts/ is on sys.path when a script runs

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="survey root (default: this repository)")
    benchpage.add_option(parser)
    args = parser.parse_args()
    load_before = benchpage.load_average()
    started = time.perf_counter()
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
    summary = (f"Leave-one-out over {len(tagged.records)} tagged retained records, each hidden as a stub (title, abstract "
               "where present, venue, year) and suggested from the others as `masrl suggest` would: compared under the "
               "TF-IDF fitted without its own full text, each field's setting chosen again without it (nested). The "
               "TF-IDF kNN-10 baseline: words 1-2 and character 3-5-grams, fitted on the other records' full texts and the "
               "stub, the 10 nearest holders vote by similarity, sets as whole values.")
    columns = ["field", "records", "masrl top-1", "masrl top-3", "TF-IDF kNN-10 top-1", "TF-IDF kNN-10 top-3",
               "majority (leave-one-out)", "masrl beats majority"]
    rows = []
    for s in scores.values():
        n, k1, k3, _ = knn[s.field]
        rows.append([s.field, str(s.n), f"{s.accuracy:.3f}", f"{s.recall3:.3f}", f"{k1 / n if n else 0:.3f}",
                     f"{k3 / n if n else 0:.3f}", f"{s.baseline:.3f}", "yes" if not s.low_confidence else "**no** (low confidence)"])
    notes = []
    if measured:
        top1 = statistics.mean(s.accuracy for s in measured)
        top3 = statistics.mean(s.recall3 for s in measured)
        knn1 = statistics.mean(knn[s.field][1] / knn[s.field][0] for s in measured)
        knn3 = statistics.mean(knn[s.field][2] / knn[s.field][0] for s in measured)
        base = statistics.mean(s.baseline for s in measured)
        rows.append([f"**mean of {len(measured)} fields**", "", f"**{top1:.3f}**", f"**{top3:.3f}**", f"**{knn1:.3f}**",
                     f"**{knn3:.3f}**", f"**{base:.3f}**", ""])
        low, high = bootstrap(tagged.records, [s.field for s in measured], {s.field: s.right for s in measured},
                              {s.field: knn[s.field][3] for s in measured})
        notes.append(f"masrl's top-1 is {100 * (top1 - knn1):+.2f} points from the TF-IDF kNN baseline's "
                     f"(95% interval {100 * low:+.1f} to {100 * high:+.1f}: paired bootstrap over the records, "
                     f"{DRAWS:,} resamples) and {100 * (top1 - base):+.2f} from the majority baseline's; its top-3 "
                     f"{100 * (top3 - knn3):+.2f} points from the kNN baseline's.")
    notes.append("\n".join([
        f"Screening rank, leave-one-out over {screening.n} judged records ({screening.relevant} retained, "
        f"{screening.n - screening.relevant} excluded; title and abstract):", "",
        "| measure | model | random order |", "| --- | --- | --- |",
        f"| WSS@95 | {screening.wss95:.3f} | {screening.random_wss95:.3f} |",
        f"| recall at 50% of the list | {screening.recall50:.3f} | {screening.random_recall50:.3f} |"]))
    notes.append(f"{elapsed:.1f} s in all (scikit-learn's import included).")
    lines = [summary, "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    for note in notes:
        lines += ["", note]
    sys.stdout.write("\n".join(lines) + "\n")
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="screening", script="bench_suggest", title="Suggestions and the screening rank", summary=summary,
            columns=columns, rows=rows, notes=notes, load_before=load_before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
