#!/usr/bin/env python3
"""Simulate when to stop screening: masrl's screening rank with the stopping test of `masrl update show`.

The stopping test is the hypergeometric test of Callaghan & Müller-Hansen (2020, Systematic
Reviews 9:273; masrl.review.update.stopping): screen in rank order and stop as soon as it rejects
"recall is below the target" (95% at 95% confidence unless --recall/--confidence say otherwise).
Each simulation reports, against screening everything (work saved 0, recall 1): the candidates
read at the stop, the work saved (the share of the list not read) and the recall reached (the
share of the relevant candidates found by then).

1. The bundled decisions: the survey's 84 retained and 32 excluded records. Relevant at the title
   and abstract screen: retained, or excluded at a later stage than the first (full text,
   artifact, duplicate). Each record is ranked by its leave-one-out screening score (masrl's model
   learning from all the other judged records: masrl.review.suggest.evaluate.measure_screening's
   order), then read in that order; the test runs after every record.

2. A labelled public benchmark of title and abstract screening that ships inside a package of the
   registries here: Nagtegaal et al. (2019), "Nudging healthcare professionals towards
   evidence-based medicine: a systematic scoping review", 2,019 records with title, abstract and
   the reviewers' title/abstract decision (label_abstract_screening) and final inclusion
   (label_included); CC0 1.0 (Harvard Dataverse doi:10.7910/DVN/WMGPGZ, as ASReview's
   systematic-review-datasets distribute it). It is the file allib/tests/testdataset.csv of the
   wheel python-allib 0.5.3 on PyPI (LGPL-3.0 code; the data keeps its CC0 licence), checked by
   its SHA-256 below. Install the data without the package's dependencies, which masrl never
   imports: `pip install --no-deps python-allib==0.5.3`; or give the CSV with --dataset.
   A round is simulated as masrl runs one: a random sample of the records (--prior, 10%) is
   already judged; masrl's screening model (TF-IDF nearest neighbours over title and abstract,
   masrl.review.suggest.screening) ranks the rest once; they are read in rank order and the test
   runs after every --every records (10). The same is done in random order (the order the test
   was first designed for) to show what the ranking adds. Repeated over --seeds seeds (10); each
   row is one seed, then the mean and the worst.

Deterministic for the same seeds. Runs in a minute or two on 2 cores.

Usage: python scripts/bench_screening.py [--root DIR] [--dataset CSV] [--seeds 10] [--prior 0.1]
                                         [--every 10] [--recall 0.95] [--confidence 0.95] [--markdown]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib.util
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: allib/tests/testdataset.csv of python-allib 0.5.3 (the Nagtegaal 2019 review, as ASReview distributes it).
DATASET_SHA256 = "abfbdb973aa125f26ce872a5193c931d0690f7fe2e1fb75551de9c0acecd200f"
DATASET_NAME = "Nagtegaal et al. 2019 (2,019 records; CC0 1.0; via python-allib 0.5.3)"
#: The recall target of the run (set by main, read by the summary).
TARGET = [0.95]


@dataclass
class Run:
    """One simulated screening: list size, relevant in it, read at the stop (None: never stopped
    before the end), relevant found by then, and the final inclusions (None where unknown)."""

    total: int
    relevant: int
    read: int
    found: int
    included: int | None = None
    included_found: int | None = None

    @property
    def saved(self) -> float:
        return 1.0 - self.read / self.total

    @property
    def recall(self) -> float:
        return self.found / self.relevant if self.relevant else 1.0


def simulate(labels: list[bool], recall: float, confidence: float, every: int, included: list[bool] | None = None) -> Run:
    """Read ``labels`` (a ranked list, True: relevant) until the stopping test allows stopping."""
    from masrl.review.update.stopping import stopping_point

    point = stopping_point(labels, recall, confidence, every)
    read = len(labels) if point is None else point
    run = Run(len(labels), sum(labels), read, sum(labels[:read]))
    if included is not None:
        run.included, run.included_found = sum(included), sum(included[:read])
    return run


def bundled(root: Path, recall: float, confidence: float) -> tuple[Run, int]:
    """The bundled decisions in leave-one-out score order; also the records excluded at the first stage."""
    from masrl.corpus.load import load
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.review.suggest import evaluate, model, screening, text

    corpus = load(root)
    tax = Taxonomy(corpus.taxonomy)
    stages = tax.role("stages")
    first = tax.values(stages)[0] if stages else None
    pool = screening.judged_pool(corpus)
    texts = [text.screening_text(r, pool.abstract) for r in pool.records]
    index = model.build(texts, texts)
    everyone = list(range(len(pool.records)))
    scores = [screening.score(pool, index, i, everyone[:i] + everyone[i + 1:], explain=False)[0] for i in everyone]
    order = sorted(everyone, key=lambda i: (-scores[i], screening._ident(pool.records[i])))
    relevant = [pool.retained[i] or (first is not None and pool.records[i].get(stages) != first) for i in order]
    included = [pool.retained[i] for i in order]
    assert evaluate.measure_screening(corpus).n == len(order)
    return simulate(relevant, recall, confidence, 1, included), sum(not r for r in relevant)


def dataset_path(given: Path | None) -> Path | None:
    """The benchmark's CSV: ``given``, else python-allib's copy when installed (never imported)."""
    if given is not None:
        return given
    spec = importlib.util.find_spec("allib")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "tests" / "testdataset.csv"
    return path if path.is_file() else None


def read_dataset(path: Path) -> list[dict]:
    """Rows with ``title``, ``abstract``, ``label_abstract_screening`` and ``label_included``."""
    csv.field_size_limit(10**8)
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    missing = {"title", "abstract", "label_abstract_screening", "label_included"} - set(rows[0] if rows else ())
    if missing:
        raise SystemExit(f"{path}: no column {', '.join(sorted(missing))} (the ASReview benchmark format is needed)")
    return rows


def public(rows: list[dict], seed: int, prior: float, every: int, recall: float, confidence: float) -> tuple[Run, Run]:
    """One seed: (masrl's rank, random order), each read until the test stops."""
    import random

    import numpy as np

    from masrl.review.suggest import model, screening, text

    rng = random.Random(seed)
    everyone = list(range(len(rows)))
    judged = sorted(rng.sample(everyone, round(prior * len(rows))))
    seen = set(judged)
    queue = [i for i in everyone if i not in seen]
    record = [{"key": f"r{i:05d}", "title": rows[i]["title"], "abstract": rows[i]["abstract"]} for i in everyone]
    relevant = [rows[i]["label_abstract_screening"] == "1" for i in everyone]
    included = [rows[i]["label_included"] == "1" for i in everyone]
    pool = screening.Pool([record[i] for i in judged], [relevant[i] for i in judged], (), None, "abstract")
    index = model.build([text.screening_text(r, pool.abstract) for r in pool.records],
                        [text.screening_text(record[i], pool.abstract) for i in queue])
    columns = list(range(len(judged)))
    scores = np.array([screening.score(pool, index, q, columns, explain=False)[0] for q in range(len(queue))])
    ranked = [queue[q] for q in sorted(range(len(queue)), key=lambda q: (-scores[q], queue[q]))]
    shuffled = list(queue)
    rng.shuffle(shuffled)
    runs = []
    for order in (ranked, shuffled):
        runs.append(simulate([relevant[i] for i in order], recall, confidence, every, [included[i] for i in order]))
    return runs[0], runs[1]


def _row(name: str, run: Run) -> str:
    inc = (f"{run.included_found / run.included:.3f}" if run.included else "–")
    return (f"| {name} | {run.total} | {run.relevant} | {run.read} | {run.saved:.3f} | {run.recall:.3f} | {inc} |")


def _summary(name: str, runs: list[Run]) -> list[str]:
    """The mean over the seeds, and the seed whose recall is lowest."""
    def mean(f):
        return statistics.mean(f(r) for r in runs)
    worst = min(runs, key=lambda r: (r.recall, -r.saved))
    included = mean(lambda r: r.included_found / r.included) if all(r.included for r in runs) else None
    return [f"| {name}: mean | {runs[0].total} | {mean(lambda r: r.relevant):.1f} | {mean(lambda r: r.read):.1f} | "
            f"{mean(lambda r: r.saved):.3f} | {mean(lambda r: r.recall):.3f} | "
            f"{'–' if included is None else f'{included:.3f}'} |",
            _row(f"{name}: lowest recall", worst),
            f"| {name}: seeds below the target | | | | | {sum(r.recall < TARGET[0] for r in runs)} of {len(runs)} | |"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="survey root (default: this repository)")
    parser.add_argument("--dataset", type=Path, help="a labelled CSV in ASReview's benchmark format (default: python-allib's copy)")
    parser.add_argument("--seeds", type=int, default=10, help="simulated rounds of the public benchmark (default 10)")
    parser.add_argument("--prior", type=float, default=0.1, help="share of its records already judged (default 0.1)")
    parser.add_argument("--every", type=int, default=10, help="run the test after every N records read (default 10)")
    parser.add_argument("--recall", type=float, default=0.95, help="the recall target (default 0.95)")
    parser.add_argument("--confidence", type=float, default=0.95, help="the confidence (default 0.95)")
    parser.add_argument("--markdown", action="store_true",
                        help="print a Markdown section: the figures, the command, the machine and the date")
    args = parser.parse_args()
    TARGET[0] = args.recall
    started = time.perf_counter()
    from masrl.core import clock
    from masrl.review.update.stopping import METHOD

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_suggest import machine

    head = "| list | candidates | relevant | read at the stop | work saved | recall reached | recall of final inclusions |"
    rule = "|---|---:|---:|---:|---:|---:|---:|"
    lines = ["## When to stop screening (`scripts/bench_screening.py`)", ""] if args.markdown else []
    lines += [f"Stopping test: {METHOD}; recall target {args.recall:.0%} at {args.confidence:.0%} confidence. Against "
              "screening everything (work saved 0, recall 1).", ""]
    run, first_stage = bundled(args.root, args.recall, args.confidence)
    lines += ["The bundled decisions (leave-one-out rank of the judged records; relevant: passed the title and abstract "
              f"screen, i.e. every record but the {first_stage} excluded at it; the test after every record):", "",
              head, rule, _row("masrl rank + test", run), ""]
    path = dataset_path(args.dataset)
    digest = None
    if path is None:
        lines.append("Public benchmark: not found. Install its data with `pip install --no-deps python-allib==0.5.3`, "
                     "or give --dataset CSV.")
    else:
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        named = DATASET_NAME if digest == DATASET_SHA256 else f"{path.name} (sha256 {digest[:12]}…)"
        rows = read_dataset(path)
        ranked, shuffled = [], []
        for seed in range(args.seeds):
            a, b = public(rows, seed, args.prior, args.every, args.recall, args.confidence)
            ranked.append(a)
            shuffled.append(b)
        lines += [f"Public benchmark: {named}. Relevant: the reviewers' title and abstract inclusions. "
                  f"{args.prior:.0%} of the records judged beforehand (a random sample per seed), the rest ranked once by "
                  f"masrl's screening model and read in rank order; the test after every {args.every} records; "
                  f"{args.seeds} seeds.", "", head, rule]
        lines += [_row(f"seed {i}: masrl rank + test", r) for i, r in enumerate(ranked)]
        lines += _summary("masrl rank + test", ranked) + _summary("random order + test", shuffled)
        lines.append("")
    elapsed = time.perf_counter() - started
    command = "python scripts/bench_screening.py" + "".join(
        f" --{name} {value}" for name, value in (("seeds", args.seeds), ("prior", args.prior), ("every", args.every),
                                                  ("recall", args.recall), ("confidence", args.confidence))
        if value != parser.get_default(name)) + (" --markdown" if args.markdown else "")
    lines.append(f"Command: `{command}`; {elapsed:.0f} s. Machine: {machine()}. Date: {clock.today_iso()}."
                 + (f" Data sha256: {digest}." if digest else ""))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
