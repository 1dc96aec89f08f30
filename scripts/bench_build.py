#!/usr/bin/env python3
"""Benchmark `masrl validate` and `masrl build` against floors measured in the same run.

Makes synthetic corpora of 1,000 and 10,000 retained records (random valid
tags; the taxonomy's named representatives included so the corpus validates)
in a temporary folder, plus a copy of the bundled 84-record corpus, and times
in fresh processes (best of --repeat runs):

  floor  python -c "import pandas"                 (issue 2's floor)
  floor  python -c "import pandas, matplotlib"     (issue 4's floor)
  masrl validate / masrl build on 84, 1,000 and 10,000 records
  masrl build on 84 records with every figure redrawn (cold) and with current figures (warm)

and prints every time with its ratio to the floors and to the 84-record build.
Targets: 10,000-record build <= 11x the 1,000-record build (issue 2); the
84-record build <= 2.5x `import pandas, matplotlib` (issue 4).

Usage: python scripts/bench_build.py [--repeat 3] [--sizes 1000 10000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from masrl.records import RETAINED_ORDER, ordered
from masrl.yamlio import dump_record

REPO = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], repeat: int, cwd: Path | None = None, before=None) -> float:
    """Best wall-clock time (s) of ``repeat`` runs of ``cmd``; ``before()`` runs untimed before each."""
    best = float("inf")
    for _ in range(repeat):
        if before:
            before()
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, capture_output=True)
        elapsed = time.perf_counter() - start
        if done.returncode not in (0,):
            sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr.decode()[-2000:]}")
        best = min(best, elapsed)
    return best


def synthetic_corpus(root: Path, n: int, seed: int = 7) -> None:
    """A valid survey root with ``n`` random retained records and no claims or audits."""
    rng = random.Random(seed)
    taxonomy = yaml.safe_load((REPO / "corpus/taxonomy.yaml").read_text())
    (root / "corpus/papers").mkdir(parents=True)
    (root / "exclusions").mkdir()
    shutil.copy(REPO / "corpus/taxonomy.yaml", root / "corpus/taxonomy.yaml")
    shutil.copy(REPO / "README.md", root / "README.md")
    (root / "corpus/claims.yaml").write_text("claims: []\n")  # random tags would break the survey's claims
    fields = taxonomy["fields"]
    named = set()
    for fam in taxonomy["reward_families"].values():
        named.update(fam["representatives"])
    anchors: dict[str, list[str]] = {}
    for name, spec in fields.items():
        for code, value in spec["values"].items():
            named.update(value.get("representatives", []))
            for key in value.get("anchors", []):
                anchors.setdefault(key, []).append(code)
    keys = sorted(named) + [f"paper{i:05d}" for i in range(n - len(named))]
    implied = {code: v["inclusion_criterion"] for code, v in fields["category"]["values"].items() if "inclusion_criterion" in v}
    for i, key in enumerate(keys):
        rec = {
            "key": key, "title": f"Synthetic paper {i} on multi-agent credit assignment", "authors": [f"Author{i}, A.", "others"],
            "first_author": f"Author{i}, A.", "affiliation": "unknown", "year": rng.randint(2015, 2026), "venue": "arXiv",
            "url": f"https://arxiv.org/abs/25{(i % 12) + 1:02d}.{i:05d}", "identifiers": {"arxiv": f"25{(i % 12) + 1:02d}.{i:05d}"},
        }
        for name, spec in fields.items():
            if spec["applies_to"] != "retained" or spec.get("required_when"):
                continue
            codes = list(spec["values"])
            rec[name] = sorted(set(rng.sample(codes, rng.randint(0, 2)))) if spec.get("multi") else rng.choice(codes)
        rec["subdecisions"] = sorted(set(anchors.get(key, [])))
        rec["credit_mechanism"] = "NA" if rec["credit_granularity"] == "NA" else rng.choice(["strict", "broad", "unassessed"])
        rec["inclusion_criterion"] = implied.get(rec["category"], rng.choice(["I1", "I4"]))
        if rec["category"] == "benchmark":
            rec.update(domain=rng.choice(list(fields["domain"]["values"])), mas_native=rng.choice(["yes", "partial", "no"]),
                       eval_measures=sorted(rng.sample(["E1", "E2", "E3", "E4"], rng.randint(1, 3))))
        rec.update(one_liner="Synthetic record for benchmarking", notes="", tag_provenance={}, bibtex_key=f"{key}-bib",
                   bibtex={"type": "article", "title": rec["title"], "journal": f"arXiv preprint arXiv:{rec['identifiers']['arxiv']}",
                           "year": str(rec["year"])},
                   provenance={"source": "scripts/bench_build.py"})
        (root / "corpus/papers" / f"{key}.yaml").write_bytes(dump_record(ordered(rec, RETAINED_ORDER)))


def bundled_copy(root: Path) -> None:
    for name in ("corpus", "exclusions"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "README.md", root / "README.md")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    py = sys.executable
    masrl = [py, "-m", "masrl"]
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        floor_pd = timed([py, "-c", "import pandas"], args.repeat)
        floor_pdmpl = timed([py, "-c", "import pandas, matplotlib"], args.repeat)
        base = tmp / "bundled"
        bundled_copy(base)
        subprocess.run(masrl + ["build", "--root", str(base)], capture_output=True)  # create reports once

        def clear_figures():
            shutil.rmtree(base / "reports" / "figures", ignore_errors=True)

        validate84 = timed(masrl + ["validate", "--root", str(base)], args.repeat)
        build84_warm = timed(masrl + ["build", "--root", str(base)], args.repeat)
        build84_cold = timed(masrl + ["build", "--root", str(base)], args.repeat, before=clear_figures)
        check84 = timed(masrl + ["build", "--check", "--root", str(base)], args.repeat)
        rows += [("validate, 84 records", validate84), ("build, 84 records, figures current", build84_warm),
                 ("build, 84 records, every figure redrawn", build84_cold), ("build --check, 84 records", check84)]
        sized = {}
        for n in args.sizes:
            root = tmp / f"synthetic{n}"
            synthetic_corpus(root, n)
            v = timed(masrl + ["validate", "--root", str(root)], args.repeat)
            subprocess.run(masrl + ["build", "--root", str(root)], capture_output=True)
            b = timed(masrl + ["build", "--root", str(root)], args.repeat)
            sized[n] = b
            rows += [(f"validate, {n:,} records", v), (f"build, {n:,} records", b)]

    print(f"floor: python -c 'import pandas'              {floor_pd:7.3f} s")
    print(f"floor: python -c 'import pandas, matplotlib'  {floor_pdmpl:7.3f} s")
    print(f"{'measurement':45s} {'seconds':>8s} {'/pandas':>8s} {'/pd+mpl':>8s} {'/build84':>9s}")
    for label, t in rows:
        print(f"{label:45s} {t:8.3f} {t / floor_pd:8.2f} {t / floor_pdmpl:8.2f} {t / build84_warm:9.2f}")
    if len(args.sizes) >= 2:
        small, large = sorted(args.sizes)[:2]
        print(f"scaling: build {large:,} / build {small:,} = {sized[large] / sized[small]:.2f}x for {large / small:.0f}x records "
              f"(target <= 11x)")
    print(f"issue 4: build 84 (figures current) = {build84_warm / floor_pdmpl:.2f}x, every figure redrawn = "
          f"{build84_cold / floor_pdmpl:.2f}x 'import pandas, matplotlib' (target <= 2.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
