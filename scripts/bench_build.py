#!/usr/bin/env python3
"""How ``masrl validate`` and ``masrl build`` scale: the records of a survey, and the values of one field.

Makes synthetic surveys in a temporary folder (the bundled taxonomy plus one controlled list field,
``topic``, of V values, which is counted, crosstabbed with ``category``, listed in a declared
table with counts and records and in the gap analysis; N retained records with random valid tags
and distinct titles of realistic length) and times, in fresh processes (best of --repeat):

  validate     ``masrl validate``
  build        ``masrl build`` from scratch: no reports, no build cache (``MASRL_CACHE=off``),
               every report written and every figure drawn

along two series: the records (1,000, 10,000, 100,000 at 100 values) and the values (100, 1,000,
10,000 at 10,000 records). Each row gives the wall and CPU time (user + system, the command's
processes included) and the time per thousand records, which stays flat where the time is linear;
the last column divides each point by the one before and by how much larger it is (1.0: linear).
With ``--bundled`` it also times the bundled 84-record survey against ``python -c "import pandas,
matplotlib"``: validate, build with its figures current, and build with every figure redrawn.
``--markdown [FILE]`` writes the table, the command, the machine and the date into the benchmarks
page (scripts/benchpage.py).

Usage: python scripts/bench_build.py [--records 1000 10000 100000] [--values 100 1000 10000]
                                     [--base-records 10000] [--base-values 100] [--repeat 1] [--bundled]
                                     [--markdown [FILE]]
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchpage
import yaml

from masrl.bib.matching import make_known, similar_title_pairs
from masrl.corpus.records import ordered, retained_order
from masrl.corpus.taxonomy import Taxonomy
from masrl.corpus.yamlio import dump_record

REPO = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], repeat: int, cwd: Path | None = None, before=None, env=None) -> tuple[float, float]:
    """Best ``(wall, CPU)`` seconds of ``repeat`` runs of ``cmd``; ``before()`` runs untimed before each."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        if before:
            before()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0,):
            sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr.decode()[-2000:]}")
        cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
        if elapsed < best[0]:
            best = (elapsed, cpu)
    return best


#: Words of synthetic titles: the field's title vocabulary (LLM-MAS, RL, agents, benchmarks).
TITLE_WORDS = """
    a an the of in on and to by as is agent agents agentic multi-agent llm llms language model models large
    reinforcement learning policy optimization gradient reward rewards credit assignment orchestration orchestrator orchestrating planner
    executor critic verifier debate collaboration collaborative cooperative competitive coordination
    communication message messages role roles team teams swarm subagent subagents hierarchical decentralized
    centralized training inference scaling test-time self-play curriculum preference alignment feedback
    trajectory trajectories trace traces tool tools tool-use web browsing search research deep coding
    software engineering repository issues benchmark benchmarks evaluation environment environments
    long-horizon tasks task reasoning mathematical planning memory context efficient efficiency cost
    latency parallel asynchronous distributed framework frameworks system systems towards via with for
    from through beyond under robust robustness safety secure security adversarial attacks injection
    prompt routing router delegation spawning workflow workflows graph graphs topology dynamic adaptive
    emergent social value values advantage estimation group relative proximal actor critic q-learning
    mixing decomposition counterfactual shapley marginal contribution process outcome verifiable
    rubric judge judges game games markov stochastic sequential decision making open-ended embodied
    interactive real-world generalist specialist experts mixture understanding generation critique
""".split()


def synthetic_titles(n: int, rng: random.Random) -> list[str]:
    """``n`` distinct titles, deterministic for ``rng``'s seed: 3-15 distinct words of
    :data:`TITLE_WORDS` (about 8), 40% with a ``NAME:`` prefix as real titles have, and none as
    similar to another as ``masrl validate``'s duplicate-title rule refuses (checked with the same
    function, :func:`masrl.bib.matching.similar_title_pairs`; the later title of any such pair is
    drawn again)."""
    def draw() -> str:
        words = rng.sample(TITLE_WORDS, min(15, max(3, round(rng.gauss(8, 2.5)))))
        title = " ".join(words).capitalize()
        if rng.random() < 0.4:
            name = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(3, 7)))
            title = f"{name}: {title}"
        return title

    titles = [draw() for _ in range(n)]
    while True:
        clashes = sorted({int(later.where) for _, later, _ in similar_title_pairs(
            [make_known(str(i), "batch", t, {}) for i, t in enumerate(titles)])})
        if not clashes:
            return titles
        for i in clashes:
            titles[i] = draw()


def synthetic_corpus(root: Path, n: int, values: int = 0, seed: int = 7) -> None:
    """A valid survey root with ``n`` random retained records, no claims or audits, and (with
    ``values``) the list field ``topic`` of that many values (see the module docstring)."""
    rng = random.Random(seed)
    taxonomy = yaml.safe_load((REPO / "corpus/taxonomy.yaml").read_text())
    if values:
        taxonomy["fields"]["topic"] = {
            "applies_to": "retained", "multi": True, "label": "Topic", "definition": "what the record is about",
            "source": "scripts/bench_build.py",
            "values": {f"t{i:05d}": {"label": f"Topic {i}", "definition": f"synthetic topic {i}", "source": "bench"}
                       for i in range(values)}}
        taxonomy["crosstabs"].append(["topic", "category"])
        taxonomy["gap_analysis"]["combine"].update(topic="every topic", topic_x_category="every topic and category")
        taxonomy["tables"].append({
            "name": "topics", "kind": "values", "field": "topic", "index": "topic", "title": "Topics", "source": "bench",
            "columns": [{"name": "label", "attr": "label"}, {"name": "records", "count": {}},
                        {"name": "RL", "count": {"is_rl": "yes"}}, {"name": "keys", "keys": {}}]})
    (root / "corpus/papers").mkdir(parents=True)
    (root / "exclusions").mkdir()
    (root / "corpus/taxonomy.yaml").write_text(yaml.safe_dump(taxonomy, sort_keys=False, allow_unicode=True))
    shutil.copy(REPO / "README.md", root / "README.md")
    (root / "corpus/claims.yaml").write_text("claims: []\n")  # random tags would break the survey's claims
    fields = taxonomy["fields"]
    named = set()
    for table in taxonomy.get("tables") or []:  # the representatives of declared family tables
        for fam in (table.get("families") or {}).values() if isinstance(table.get("families"), dict) else []:
            named.update(fam.get("representatives") or [])
    anchors: dict[str, list[str]] = {}
    for name, spec in fields.items():
        for code, value in spec["values"].items():
            named.update(value.get("representatives", []))
            for key in value.get("anchors", []):
                anchors.setdefault(key, []).append(code)
    keys = sorted(named) + [f"paper{i:06d}" for i in range(n - len(named))]
    titles = synthetic_titles(len(keys), random.Random(f"{seed}-titles"))  # own stream: tags draw as before
    implied = {code: (v.get("implies") or {})["inclusion_criterion"] for code, v in fields["category"]["values"].items()
               if "inclusion_criterion" in (v.get("implies") or {})}
    order = retained_order(Taxonomy(taxonomy))
    topics = list(fields["topic"]["values"]) if values else []
    for i, key in enumerate(keys):
        arxiv = f"25{(i // 99999) % 12 + 1:02d}.{i % 99999 + 1:05d}"  # distinct for 1.2 million records (numbers from 00001)
        rec = {
            "key": key, "title": titles[i], "authors": [f"Author{i}, A.", "others"],
            "first_author": f"Author{i}, A.", "affiliation": "unknown", "year": rng.randint(2015, 2026), "venue": "arXiv",
            "url": f"https://arxiv.org/abs/{arxiv}", "identifiers": {"arxiv": arxiv},
        }
        for name, spec in fields.items():
            if spec["applies_to"] != "retained" or spec.get("required_when") or name == "topic":
                continue
            codes = list(spec["values"])
            rec[name] = sorted(set(rng.sample(codes, rng.randint(0, 2)))) if spec.get("multi") else rng.choice(codes)
        rec["subdecisions"] = sorted(set(anchors.get(key, [])))
        rec["credit_mechanism"] = "NA" if rec["credit_granularity"] == "NA" else rng.choice(["strict", "broad", "unassessed"])
        rec["inclusion_criterion"] = implied.get(rec["category"], rng.choice(["I1", "I4"]))
        if rec["category"] == "benchmark":
            rec.update(domain=rng.choice(list(fields["domain"]["values"])), mas_native=rng.choice(["yes", "partial", "no"]),
                       eval_measures=sorted(rng.sample(["E1", "E2", "E3", "E4"], rng.randint(1, 3))))
        if topics:
            rec["topic"] = sorted(set(rng.sample(topics, min(len(topics), rng.randint(1, 2)))))
        # added over the review's life, 2025-01-01 to the v1 date 2026-05-04, in key order
        added = datetime.date(2025, 1, 1) + datetime.timedelta(days=i * 488 // len(keys))
        rec.update(one_liner="Synthetic record for benchmarking", notes="", date_added=added.isoformat(), tag_provenance={},
                   bibtex_key=f"{key}-bib",
                   bibtex={"type": "article", "title": rec["title"], "journal": f"arXiv preprint arXiv:{arxiv}",
                           "year": str(rec["year"])},
                   provenance={"source": "scripts/bench_build.py"})
        (root / "corpus/papers" / f"{key}.yaml").write_bytes(dump_record(ordered(rec, order)))


def bundled_copy(root: Path) -> None:
    for name in ("corpus", "exclusions"):
        shutil.copytree(REPO / name, root / name)
    shutil.copy(REPO / "README.md", root / "README.md")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, nargs="*", default=[1000, 10000, 100000],
                        help="the series of record counts (at --base-values values)")
    parser.add_argument("--values", type=int, nargs="*", default=[100, 1000, 10000],
                        help="the series of value counts of the field topic (at --base-records records)")
    parser.add_argument("--base-records", type=int, default=10000)
    parser.add_argument("--base-values", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--bundled", action="store_true", help="also time the bundled survey against the floor")
    benchpage.add_option(parser)
    args = parser.parse_args()
    py = sys.executable
    masrl = [py, "-m", "masrl"]
    env = {**os.environ, "MASRL_CACHE": "off"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed masrl has it
    points = [(n, args.base_values) for n in args.records] + [(args.base_records, v) for v in args.values]
    points = list(dict.fromkeys(points))
    load = benchpage.load_average()
    results: dict[tuple[int, int], tuple] = {}
    bundled = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        if args.bundled:
            floor = timed([py, "-c", "import pandas, matplotlib"], args.repeat)
            base = tmp / "bundled"
            bundled_copy(base)
            subprocess.run(masrl + ["build", "--root", str(base)], capture_output=True, env=env)

            def clear_figures():
                shutil.rmtree(base / "reports", ignore_errors=True)

            bundled = [("python -c 'import pandas, matplotlib' (the floor)", floor),
                       ("validate, 84 records", timed(masrl + ["validate", "--root", str(base)], args.repeat, env=env)),
                       ("build, 84 records, figures current", timed(masrl + ["build", "--root", str(base)], args.repeat, env=env)),
                       ("build, 84 records, from scratch", timed(masrl + ["build", "--root", str(base)], args.repeat,
                                                                  before=clear_figures, env=env))]
        for n, v in points:
            root = tmp / f"synthetic-{n}-{v}"
            synthetic_corpus(root, n, v)

            def scratch(root=root):
                shutil.rmtree(root / "reports", ignore_errors=True)

            if (n, v) == points[0]:  # masrl's and the libraries' modules compiled once, untimed (the bytecode cache)
                subprocess.run(masrl + ["validate", "--root", str(root)], capture_output=True, env=env)
                subprocess.run(masrl + ["build", "--root", str(root)], capture_output=True, env=env)
            validate = timed(masrl + ["validate", "--root", str(root)], args.repeat, env=env)
            build = timed(masrl + ["build", "--root", str(root)], args.repeat, before=scratch, env=env)
            results[(n, v)] = (validate, build)
            print(f"{n:>7,} records {v:>6,} values: validate {validate[0]:8.2f} s (CPU {validate[1]:8.2f}), "
                  f"build {build[0]:8.2f} s (CPU {build[1]:8.2f})", file=sys.stderr, flush=True)
            shutil.rmtree(root, ignore_errors=True)
    rows = []
    for title, series in (("records", [(n, args.base_values) for n in args.records]),
                          ("values", [(args.base_records, v) for v in args.values])):
        previous = None
        for n, v in series:
            (vw, vc), (bw, bc) = results[(n, v)]
            growth = ""
            if previous is not None:
                (pn, pv), pc = previous
                scale = (n / pn) if title == "records" else (v / pv)
                growth = f"{bc / pc:.1f}x for {scale:.0f}x as many {title}"
            rows.append([title, f"{n:,}", f"{v:,}", f"{vw:.1f} s ({vc:.1f} s)", f"{bw:.1f} s ({bc:.1f} s)",
                         f"{bc / n * 1000:.2f} s", growth])
            previous = ((n, v), bc)
    columns = ["series", "records", "values of `topic`", "validate, wall (CPU)", "build from scratch, wall (CPU)",
               "build CPU per 1,000 records", "build CPU against the point before"]
    notes = []
    if bundled:
        floor = bundled[0][1]
        notes.append("The bundled survey against the floor (`--bundled`):\n\n| what | wall | CPU | / floor (wall) | / floor (CPU) |\n"
                     "| --- | --- | --- | --- | --- |\n" + "\n".join(
                         f"| {label} | {w:.2f} s | {c:.2f} s | {w / floor[0]:.2f}x | {c / floor[1]:.2f}x |"
                         for label, (w, c) in bundled))
    if args.markdown:
        benchpage.write(args.markdown, benchpage.Section(
            area="build", script="bench_build", title="How validate and build scale",
            summary=("Synthetic surveys: the bundled taxonomy plus a list field `topic` of V values (counted, crosstabbed "
                     "with `category`, listed in a declared table with counts and records, and in the gap analysis), N "
                     "retained records with random valid tags and distinct titles. `masrl validate` and `masrl build` from "
                     f"scratch (no reports, `MASRL_CACHE=off`, every figure drawn) in fresh processes, best of {args.repeat}; "
                     "CPU is user + system of the command and its workers. Linear time shows as a flat CPU per 1,000 "
                     "records and a growth no larger than the points' ratio."),
            columns=columns, rows=rows, notes=notes, load_before=load))
    else:
        print(" | ".join(columns))
        for row in rows:
            print(" | ".join(row))
        for note in notes:
            print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
