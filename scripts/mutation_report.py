"""Kill ratio of the last mutmut run (mutants/**/*.meta), per mutated module and in all.

Ratio = (killed + timed out) / mutants checked; a mutant that no test reaches counts as
surviving. The last column leaves out the survivors that docs/mutation.md lists as equivalent
(a change no caller can observe): killed / (checked - listed equivalent survivors). With ``--sample N`` only the first N mutants of each module in a fixed
pseudo-random order (SHA-256 of the mutant's name) count, the same N on every run.

    .venv/bin/python scripts/mutation_report.py [--sample N]
    .venv/bin/python scripts/mutation_report.py --names --sample N   # the mutant names, for mutmut run
    .venv/bin/python scripts/mutation_report.py --survivors --sample N   # the surviving mutants' names
    .venv/bin/python scripts/mutation_report.py --sample N --module 'corpus/*' --module trace/typed
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 36, 24, -24, 152, 255}  # mutmut's exit codes for killed and timed out
NOT_CHECKED = {34, None}  # skipped, not (yet) checked


def modules(root: Path, sample: int | None) -> dict[str, dict[str, int | None]]:
    out = {}
    for meta in sorted(root.glob("src/**/*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        names = sorted(codes, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        if sample:
            names = names[:sample]
        out[meta.relative_to(root / "src").as_posix().removesuffix(".py.meta")] = {n: codes[n] for n in names}
    return out


def equivalent(docs: Path) -> set[str]:
    """The mutants docs/mutation.md lists as equivalent (the first cell of each table row)."""
    if not docs.is_file():
        return set()
    return set(re.findall(r"^\| `(masrl\.[^`]+__mutmut_\d+)` \|", docs.read_text("utf-8"), re.MULTILINE))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, metavar="N", help="count only N mutants per module (a fixed sample)")
    parser.add_argument("--names", action="store_true", help="print the names of the mutants counted, and nothing else")
    parser.add_argument("--survivors", action="store_true", help="print the names of the surviving mutants counted, and "
                                                                  "nothing else")
    parser.add_argument("--module", action="append", metavar="GLOB",
                        help="only the modules whose path under src/masrl matches (analyses/*, trace/typed); repeatable")
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent / "mutants"
    listed = equivalent(root.parent / "docs" / "mutation.md")
    found = modules(root, args.sample)
    if args.module:
        found = {m: codes for m, codes in found.items()
                 if any(fnmatch.fnmatchcase(m.removeprefix("masrl/"), g) for g in args.module)}
    if not found:
        print("no mutmut results under mutants/; run scripts/mutation.sh first", file=sys.stderr)
        return 1
    if args.names:
        print(" ".join(n for codes in found.values() for n in codes))
        return 0
    if args.survivors:
        print("\n".join(n for codes in found.values() for n, c in codes.items() if c not in NOT_CHECKED and c not in KILLED))
        return 0
    total = Counter()
    rows = []
    for module, codes in found.items():
        checked = [n for n, c in codes.items() if c not in NOT_CHECKED]
        killed = sum(codes[n] in KILLED for n in checked)
        same = sum(codes[n] not in KILLED and n in listed for n in checked)
        rows.append((module, killed, len(checked), same, len(codes)))
        total.update(killed=killed, checked=len(checked), same=same, mutants=len(codes))
    width = max(len(r[0]) for r in rows)
    print(f"{'module':<{width}}  killed / checked  ratio   (mutants)  without listed equivalent")
    for module, killed, checked, same, n in rows + [("all", total["killed"], total["checked"], total["same"], total["mutants"])]:
        ratio = f"{killed / checked:6.1%}" if checked else "   n/a"
        rest = f"{killed} / {checked - same} = {killed / (checked - same):.1%}" if checked - same else "n/a"
        print(f"{module:<{width}}  {killed:>6} / {checked:<7}  {ratio}  ({n})  {rest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
