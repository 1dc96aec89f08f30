"""Use masrl on a clone of this repository as a maintainer would, and run the README's test
command after every step: the suite must stay green whatever the live corpus holds.

    python scripts/check_workflows.py [--day YYYY-MM-DD] [--keep DIR] [--no-tests]

The clone (of HEAD; ``--keep DIR`` keeps it there, otherwise a temporary folder) gets its own
virtual environment, installed as the README says. Then, on ``--day`` (masrl's clock,
``MASRL_TODAY``; default: today), each step runs through the ``masrl`` command and is committed:

1. an update round: ``masrl update search --source arxiv`` against a stand-in arXiv server on
   127.0.0.1 (the test data's records in arXiv's Atom format), the queue screened (the first
   candidate included and tagged, the others excluded), ``masrl update apply``;
2. ``masrl add --no-fetch`` of a paper, drafted by ``masrl suggest --draft`` and its tags confirmed
   with ``masrl suggest --apply``; ``masrl exclude``;
3. ``masrl release v<N>``;
4. two audit rounds (sample, the reader's sheet imported, adjudicated, applied), the first under
   the id masrl gives (``tags-<day>``), the second under an id of its own;
5. a claim revised (the first share a claim states raised by one point);
6. ``masrl release v<N+1>``;
7. two branches that each add a paper, merged with ``masrl resolve``.

After each step: ``masrl validate``, ``masrl build --check`` and the README's test command (its
live-corpus checks on ``--day`` too, as on a machine whose clock says that day). The script prints
each step's time and stops at the first failure (exit 1).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
TEST_COMMAND = ".venv/bin/python -m pytest -q -n auto --dist worksteal"


def sh(command: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAILED ({done.returncode}): {command}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--day", default=datetime.date.today().isoformat(), help="masrl's clock for every step (YYYY-MM-DD)")
    parser.add_argument("--keep", type=Path, help="make the clone in this new folder and keep it")
    parser.add_argument("--no-tests", action="store_true", help="run the steps and their checks, not the test command")
    args = parser.parse_args(argv)
    root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="masrl-workflows-")) / "survey"
    started = time.monotonic()
    sh(f"git clone -q {shlex.quote(str(REPO))} {shlex.quote(str(root))} && git -C {shlex.quote(str(root))} checkout -q -B main", REPO)
    sh("python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt '.[test]'", root)
    print(f"clone and install: {root} ({time.monotonic() - started:.0f} s)", flush=True)
    sys.path.insert(0, str(root / "tests"))
    sys.path.insert(0, str(root / "tests/update"))
    import grow  # noqa: E402  (the clone's: the papers and the steps of the tests' grown tree)

    env = {**os.environ, "MASRL_TODAY": args.day, "GIT_AUTHOR_NAME": "maintainer", "GIT_AUTHOR_EMAIL": "m@example.invalid",
           "GIT_COMMITTER_NAME": "maintainer", "GIT_COMMITTER_EMAIL": "m@example.invalid"}
    env.pop("MASRL_CACHE", None)

    def run(*words) -> grow.Run:
        done = subprocess.run([str(root / ".venv/bin/masrl"), *map(str, words)], cwd=root, env=env, capture_output=True, text=True)
        return grow.Run(done.returncode, done.stdout, done.stderr)

    def step(name: str, work) -> None:
        began = time.monotonic()
        work()
        for words in (("validate",), ("build",)):
            grow._ok(run(*words, "--root", root), f"masrl {words[0]}")
        sh("git add -A && (git diff --cached --quiet || git commit -qm " + shlex.quote(name) + ")", root, env)  # a merge may leave nothing to commit
        grow._ok(run("build", "--check", "--root", root), "masrl build --check")
        if not args.no_tests:
            done = sh(TEST_COMMAND, root, env)  # on --day too, as on a machine whose clock says that day
            print(f"  {done.stdout.strip().splitlines()[-1]}", flush=True)
        print(f"{name}: ok ({time.monotonic() - began:.0f} s)", flush=True)

    releases = [grow.next_release_name(root)]
    step("update round", lambda: update_round(root, env, run, grow))
    step("add, suggest --apply, exclude", lambda: add_and_exclude(root, run, grow))
    step(f"release {releases[0]}", lambda: grow._ok(run("release", releases[0], "--root", root, "--date", args.day,
                                                          "--title", "Update round"), "masrl release"))
    # the reader disagrees on a record no claim names (a claim that an audit breaks is revised by hand)
    named = set(re.findall(r"[\w-]+", (root / "corpus/claims.yaml").read_text(encoding="utf-8")))
    step("audit round 1", lambda: grow.audit_round(run, root, None, seed=3, n=8, spare=named))  # the id masrl gives
    step("audit round 2", lambda: grow.audit_round(run, root, f"tags-{args.day}-b", seed=4, n=8, spare=named))
    step("a claim revised", lambda: revise_claim(root))
    releases.append(grow.next_release_name(root))
    step(f"release {releases[1]}", lambda: grow._ok(run("release", releases[1], "--root", root, "--date", args.day,
                                                          "--title", "After the audits"), "masrl release"))
    step("two branches merged", lambda: grow.merge_two_branches(run, root, grow.PAPERS[3:5], grow.BRANCH_EXCLUSIONS))
    print(f"every step passed on {args.day} in {time.monotonic() - started:.0f} s; the clone: {root}")
    return 0


def revise_claim(root: Path) -> None:
    """The first share a claim states (``max_percent``) raised by one point, as an author revises a claim."""
    path = root / "corpus/claims.yaml"
    text, n = re.subn(r"max_percent: ([0-9]+)", lambda m: f"max_percent: {int(m.group(1)) + 1}", path.read_text(encoding="utf-8"),
                      count=1)
    if n != 1:
        raise SystemExit(f"{path}: no claim states a share (max_percent) to revise")
    path.write_text(text, encoding="utf-8")


def update_round(root: Path, env: dict, run, grow) -> None:
    """Search the stand-in arXiv server, screen the queue, apply it, tag the included paper."""
    from servers import ArxivServer, Served

    served = Served(ArxivServer())
    try:
        env["MASRL_ARXIV_API"] = f"{served.url}/api/query"
        grow._ok(run("update", "search", "--root", root, "--source", "arxiv"), "masrl update search")
    finally:
        served.close()
        env.pop("MASRL_ARXIV_API")
    (folder,) = sorted((root / "corpus/rounds").iterdir())[-1:]
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for i, row in enumerate(rows):
        row.update({"decision": "include"} if i == 0 else
                   {"decision": "exclude", "stage": "abstract_screen", "reason_class": "X1", "reason": "prompted agent framework only"})
    with open(folder / "queue.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    grow._ok(run("update", "apply", folder.name, "--root", root), "masrl update apply")
    (added,) = [p for p in (root / "corpus/papers").glob("*.yaml") if "untagged" in p.read_text(encoding="utf-8")]
    for field, value in grow.PAPERS[0]["tags"].items():
        grow.set_field(added, field, value)


def add_and_exclude(root: Path, run, grow) -> None:
    """A paper added without fetching and tagged by the suggestions; a screened paper excluded."""
    paper = grow.PAPERS[1]
    args = ["add", "--no-fetch", "--root", root, "--arxiv", paper["arxiv"], "--title", paper["title"], "--year", paper["year"],
            "--venue", paper["venue"], "--key", paper["key"], *[w for a in paper["authors"] for w in ("--author", a)]]
    grow._ok(run(*args), "masrl add --no-fetch")
    grow._ok(run("suggest", paper["key"], "--draft", "--root", root), "masrl suggest --draft")
    written = {"one_liner", "verified"}  # free text and the reader's own check: written by hand
    confirmed = []
    for field, text in paper["tags"].items():
        if field not in written:
            value = yaml.safe_load(text)
            confirmed += ["--apply", f"{field}={','.join(value) if isinstance(value, list) else value}"]
    grow._ok(run("suggest", paper["key"], *confirmed, "--root", root), "masrl suggest --apply")
    path = root / f"corpus/papers/{paper['key']}.yaml"
    for field in sorted(written):
        grow.set_field(path, field, paper["tags"][field])
    grow.exclude_paper(run, root, grow.EXCLUSION)


if __name__ == "__main__":
    sys.exit(main())
